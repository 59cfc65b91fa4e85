// N TCP NewReno bulk flows sharing one bottleneck in ns-3, for `make bench-compare`: the same path as
// cclab-bench's dumbbell (10 Mbit/s per flow each way, 10 ms one-way delay each way, a drop-tail queue of
// 25,000 B per flow on the forward bottleneck, 1,000 packets on the return), for a fixed simulated time,
// timed in process CPU seconds around Simulator::Run.
// Prints `cpu_s=.. pkts=.. rx=.. drops=.. acks=.. sim_s=..`: pkts = data packets the senders' IP layer
// sent (all flows, retransmissions and drops included), drops = those the bottleneck queue refused,
// acks = pure ACKs the receivers sent, rx = bytes the receiving applications got.
//
// Topology: one sender node and one receiver node with N sockets each, joined by the bottleneck link, so
// every packet crosses exactly the links it crosses in cclab, where each flow's hosts connect straight to
// the shared links. ns-3's PointToPointDumbbellHelper (a node per flow behind 100 Gbit/s, zero-delay leaf
// links and two routers) simulates the same load but adds two hops and two routing-table scans per packet:
// 3.7x this topology's CPU per packet at 100 flows, 6.4x at 1,000 (docs/performance.md).
//
// What still differs from cclab's TCP profile: ns-3's NewReno adds one MSS per ACK in slow start and
// MSS²/cwnd per ACK in congestion avoidance (tcp-congestion-ops.cc), so with an ACK per two segments its
// window grows 1.5x per round trip, then half an MSS per round trip; cclab's grows by the bytes acked (RFC
// 9002 §7.3.1, §7.3.3: 2x, then one MSS), so ns-3 drops fewer packets. ns-3 also opens each connection with
// a handshake, has a 1 s minimum RTO, and its application writes and send buffer count in its CPU
// (cclab's bulk source costs nothing).
//
// Build: g++ -O2 dumbbell.cc $(pkg-config --cflags --libs ns3-core ns3-network ns3-internet
//        ns3-point-to-point ns3-applications ns3-traffic-control)

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

using namespace ns3;

static uint64_t g_data_tx = 0;
static uint64_t g_queued = 0;
static uint64_t g_acks = 0;

// IP packets larger than this carry data (1,500 B with a 1,448 B segment); smaller ones are SYNs and
// pure ACKs.
static const uint32_t DATA_MIN_BYTES = 1000;

// A sender's IP layer sends a packet: counted before the traffic-control layer, which drops silently
// what a full device queue refuses (the drop-tail losses).
static void
OnSenderTx(Ptr<const Packet> p, Ptr<Ipv4>, uint32_t)
{
    g_data_tx += p->GetSize() > DATA_MIN_BYTES;
}

static void
OnReceiverTx(Ptr<const Packet> p, Ptr<Ipv4>, uint32_t)
{
    g_acks += p->GetSize() <= DATA_MIN_BYTES;
}

// A data packet enters the forward bottleneck's queue.
static void
OnBottleneckEnqueue(Ptr<const Packet> p)
{
    g_queued += p->GetSize() > DATA_MIN_BYTES;
}

// The bottleneck in each direction: rate, delay and drop-tail limits as cclab-bench's dumbbell.
static PointToPointHelper
Bottleneck(uint32_t share)
{
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(std::to_string(10 * share) + "Mbps"));
    p2p.SetChannelAttribute("Delay", StringValue("10ms"));
    return p2p;
}

// Sets the forward device's queue (25,000 B per flow) and the return device's (1,000 packets, cclab's
// default), and counts what enters the forward one.
static void
ConfigureBottleneck(Ptr<NetDevice> fwd, Ptr<NetDevice> ret, uint32_t share)
{
    // The helper gave each device a drop-tail queue; only its limit changes.
    auto queue = [](Ptr<NetDevice> dev, std::string size) {
        DynamicCast<PointToPointNetDevice>(dev)->GetQueue()->SetMaxSize(QueueSize(size));
    };
    queue(fwd, std::to_string(25000ull * share) + "B");
    queue(ret, "1000p");
    fwd->TraceConnectWithoutContext("MacTx", MakeCallback(&OnBottleneckEnqueue));
}

int
main(int argc, char* argv[])
{
    uint32_t flows = 1000;
    uint32_t share = 0;
    double secs = 2;
    CommandLine cmd;
    cmd.AddValue("flows", "number of flows", flows);
    cmd.AddValue("share", "flows the bottleneck is sized for (default: --flows)", share);
    cmd.AddValue("secs", "simulated seconds", secs);
    cmd.Parse(argc, argv);
    share = share ? share : flows;
    // One port per flow, above 10,000.
    if (flows < 1 || flows > 50000 || secs <= 0)
    {
        std::fprintf(stderr, "--flows must be 1..50000 and --secs positive\n");
        return 2;
    }

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpNewReno"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    // Buffers large enough that only the congestion window limits the sender: 8 times a flow's share of
    // the path's BDP (a window reaches ~4 before a drop-tail loss: path and queue, doubled by slow start;
    // 32 gave the same packets at 1,000 flows). Not 1 GiB as bulk.cc: an unlimited BulkSend fills its
    // send buffer at once, inside Run.
    uint32_t buf = std::min<uint64_t>(8 * 25000ull * share / flows, UINT32_MAX);
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(buf));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(buf));
    // cclab paces at 1.25 cwnd/srtt in every phase (RFC 9002 §7.7, its PacingConfig default).
    Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketState::PacingSsRatio", UintegerValue(125));
    Config::SetDefault("ns3::TcpSocketState::PacingCaRatio", UintegerValue(125));
    // No cap below the bottleneck (ns-3's default is 4 Gbit/s; cclab has none).
    Config::SetDefault("ns3::TcpSocketState::MaxPacingRate",
                       DataRateValue(DataRate(uint64_t(10e6) * share * 10)));

    NodeContainer nodes;
    nodes.Create(2);
    NetDeviceContainer devs = Bottleneck(share).Install(nodes);
    InternetStackHelper().Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = addr.Assign(devs);
    // No qdisc (Assign installed the default one): the device queue is the bottleneck, as in cclab.
    TrafficControlHelper().Uninstall(devs);
    ConfigureBottleneck(devs.Get(0), devs.Get(1), share);
    Ptr<Node> sender = nodes.Get(0);
    Ptr<Node> receiver = nodes.Get(1);
    sender->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext("Tx", MakeCallback(&OnSenderTx));
    receiver->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext("Tx", MakeCallback(&OnReceiverTx));

    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < flows; i++)
    {
        // One port and listening socket per flow, as each cclab flow has its own receiver.
        uint16_t port = 10000 + i;
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(ifs.GetAddress(1), port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        // One write per segment: cclab's bulk source costs nothing per write.
        bulk.SetAttribute("SendSize", UintegerValue(1448));
        bulk.Install(sender).Start(Seconds(0));
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer app = sink.Install(receiver);
        app.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(app.Get(0)));
    }
    Simulator::Stop(Seconds(secs));

    std::clock_t c0 = std::clock();
    Simulator::Run();
    double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
    uint64_t rx = 0;
    for (Ptr<PacketSink> s : sinks)
    {
        rx += s->GetTotalRx();
    }
    std::printf("cpu_s=%f pkts=%llu rx=%llu drops=%llu acks=%llu sim_s=%f\n",
                cpu,
                (unsigned long long)g_data_tx,
                (unsigned long long)rx,
                (unsigned long long)(g_data_tx - g_queued),
                (unsigned long long)g_acks,
                Simulator::Now().GetSeconds());
    Simulator::Destroy();
    return 0;
}
