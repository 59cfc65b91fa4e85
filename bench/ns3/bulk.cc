// One TCP NewReno bulk transfer over a two-node point-to-point path in ns-3, for `make bench-compare`:
// the same path as a cclab-bench case (rates per direction, one-way delay, drop-tail queue in packets),
// timed in process CPU seconds around Simulator::Run. Prints `cpu_s=.. pkts=.. rx=.. sim_s=..`.
//
// Build: g++ -O2 bulk.cc $(pkg-config --cflags --libs ns3-core ns3-network ns3-internet
//        ns3-point-to-point ns3-applications ns3-traffic-control)

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <ctime>

using namespace ns3;

static uint64_t g_data_tx = 0;

static void
OnTx(Ptr<const Packet>)
{
    g_data_tx++;
}

// Stops the run once the sink has everything (cclab stops when the transfer completes too).
static void
StopWhenDone(Ptr<PacketSink> sink, uint64_t size)
{
    if (sink->GetTotalRx() >= size)
    {
        Simulator::Stop();
        return;
    }
    Simulator::Schedule(MilliSeconds(1), &StopWhenDone, sink, size);
}

int
main(int argc, char* argv[])
{
    std::string fwd = "10Gbps";
    std::string ret = "10Gbps";
    std::string delay = "25us";
    uint64_t size = 100000000;
    uint32_t queue = 100;
    CommandLine cmd;
    cmd.AddValue("fwd", "forward (data) rate", fwd);
    cmd.AddValue("ret", "return (ACK) rate", ret);
    cmd.AddValue("delay", "one-way delay", delay);
    cmd.AddValue("size", "bytes to transfer", size);
    cmd.AddValue("queue", "drop-tail queue of each device, packets", queue);
    cmd.Parse(argc, argv);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpNewReno"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    // Buffers large enough that only the congestion window limits the sender.
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1u << 30));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1u << 30));

    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetChannelAttribute("Delay", StringValue(delay));
    p2p.SetQueue("ns3::DropTailQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(std::to_string(queue) + "p")));
    NetDeviceContainer devs = p2p.Install(nodes);
    devs.Get(0)->SetAttribute("DataRate", StringValue(fwd));
    devs.Get(1)->SetAttribute("DataRate", StringValue(ret));
    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = addr.Assign(devs);
    // No qdisc (Assign installed the default one): the device's drop-tail queue is the bottleneck, as in cclab.
    TrafficControlHelper tch;
    tch.Uninstall(devs);

    BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(ifs.GetAddress(1), 9));
    bulk.SetAttribute("MaxBytes", UintegerValue(size));
    bulk.Install(nodes.Get(0)).Start(Seconds(0));
    PacketSinkHelper sinkHelper("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
    ApplicationContainer sinks = sinkHelper.Install(nodes.Get(1));
    sinks.Start(Seconds(0));
    Ptr<PacketSink> sink = DynamicCast<PacketSink>(sinks.Get(0));
    devs.Get(0)->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&OnTx));
    Simulator::Schedule(MilliSeconds(1), &StopWhenDone, sink, size);
    Simulator::Stop(Seconds(3600));

    std::clock_t c0 = std::clock();
    Simulator::Run();
    double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
    std::printf("cpu_s=%f pkts=%llu rx=%llu sim_s=%f\n",
                cpu,
                (unsigned long long)g_data_tx,
                (unsigned long long)sink->GetTotalRx(),
                Simulator::Now().GetSeconds());
    Simulator::Destroy();
    return 0;
}
