//! `run_kernel`: one bulk transfer over the Linux kernel's TCP between two namespaces, through
//! the emulated path; the same outputs as a simulation, with `mode: "kernel"`.

use crate::forward::{forward, ForwardReport};
use crate::netns::{sysctl, Namespace};
use crate::tcp_info::TcpInfo;
use crate::tun::Tun;
use cclab_core::ack::AckPolicyConfig;
use cclab_core::cc::bbr::BbrConfig;
use cclab_core::cc::cubic::CubicConfig;
use cclab_core::cc::new_reno::NewRenoConfig;
use cclab_core::cc::CcConfig;
use cclab_core::endpoint::handshake::{HandshakeConfig, SynLossWindow};
use cclab_core::endpoint::receiver::ReceiverConfig;
use cclab_core::endpoint::sender::{SenderConfig, TsoConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::FlowId;
use cclab_core::wire::size::Profile;
use cclab_real::clock::{request_realtime_priority_at, WallClock};
use cclab_real::emulator::Fabric;
use cclab_sim::run::plan;
use cclab_sim::scenario::{FlowConfig, ScenarioFile};
use cclab_sim::summary::{FlowSummary, LinkSummary, SimStats, Summary};
use cclab_sim::timeseries::{SampleCounters, Sampler};
use cclab_sim::{RunOutput, Scenario};
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The sender namespace's address and the receiver's, from the benchmarking range (RFC 2544
/// §C.2.2, 198.18.0.0/15): never routed on the Internet, and here only inside the namespaces.
pub const SENDER_ADDR: Ipv4Addr = Ipv4Addr::new(198, 18, 0, 1);
/// See [`SENDER_ADDR`].
pub const RECEIVER_ADDR: Ipv4Addr = Ipv4Addr::new(198, 19, 0, 1);
const PORT: u16 = 5201;
/// How long blocking socket calls wait before the thread looks at the stop flag again.
const SOCKET_POLL: Duration = Duration::from_millis(50);
/// `SCHED_FIFO` priority of the receiving application, below the forwarding loop's 10. Linux sends
/// its every-second-segment ACK only while the advertised window would not shrink
/// (`__tcp_ack_snd_check`), so unread data holds ACKs until the application reads: a receiver the
/// machine's other work keeps off the CPU for a few ms turns a window of ACKs into one, and the
/// unpaced sender answers with a window-sized burst (at 1 Gbit/s, 1 ms: 130 packets into a
/// 100-packet queue). A host whose application keeps up does neither.
const RECEIVER_PRIORITY: i32 = 5;
/// `SCHED_FIFO` priority of the sending application, below the receiver's. Kept off the CPU for a
/// millisecond or two, a sender at normal priority let its whole window drain at 1 Gbit/s, 1 ms
/// (no data sent while the ACKs of everything in flight came in), then sent the window at once
/// into the 100-packet queue: 9–15 drops per episode, 43 in one, where the model's sender, which
/// keeps up, loses 1. A host whose application keeps up does not.
const SENDER_PRIORITY: i32 = 4;
/// Extra wall time after the scenario's duration before a run is stopped.
const GRACE: Dur = Dur(2_000_000_000);
/// Largest buffer the kernel may autotune to (`tcp_rmem`/`tcp_wmem` max) when the scenario sets
/// none: the BDP of 1 Gbit/s × 500 ms, so the kernel's buffers never cap the transfer.
const AUTOTUNE_MAX: u64 = 64 << 20;
/// Zeros the sender writes.
static ZEROS: [u8; 1 << 16] = [0; 1 << 16];

/// How to run a scenario on the kernel.
#[derive(Default)]
pub struct KernelOptions {
    /// Seed instead of the scenario's (it seeds the emulated links' loss, jitter and reordering).
    pub seed: Option<u64>,
    /// Directory for `summary.json`, `timeseries.csv` and `tcp_info.csv` (created if missing).
    pub out_dir: Option<PathBuf>,
    /// Time-series interval instead of the scenario's.
    pub timeseries_interval: Option<Dur>,
    /// Wall-clock limit instead of the scenario's duration (plus 2 s).
    pub deadline: Option<Dur>,
    /// Called about every sample with the fraction done; false stops the run (outputs are
    /// still written, then [`KernelError::Cancelled`] is returned).
    pub progress: Option<Box<dyn FnMut(f64) -> bool + Send>>,
}

/// A kernel run that could not be made or did not finish.
#[derive(Debug)]
pub enum KernelError {
    /// This machine does not allow network namespaces or tun devices (one line, for exit 2).
    Forbidden(String),
    /// The scenario asks for something kernel mode cannot map (names the key).
    Unsupported(String),
    /// A socket, device or file could not be set up or written.
    Io(String),
    /// The progress hook asked to stop; the outputs of the run so far were written.
    Cancelled(Box<RunOutput>),
}

impl std::fmt::Display for KernelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KernelError::Forbidden(m) | KernelError::Unsupported(m) | KernelError::Io(m) => f.write_str(m),
            KernelError::Cancelled(_) => f.write_str("kernel run cancelled (outputs written so far)"),
        }
    }
}

impl std::error::Error for KernelError {}

fn io_err(what: &str) -> impl FnOnce(io::Error) -> KernelError + '_ {
    move |e| KernelError::Io(format!("{what}: {e}"))
}

fn forbidden(what: &str) -> impl FnOnce(io::Error) -> KernelError + '_ {
    move |e| {
        if matches!(
            e.raw_os_error(),
            Some(libc::EPERM | libc::EACCES | libc::ENOENT | libc::ENODEV)
        ) {
            KernelError::Forbidden(format!(
                "kernel mode needs network namespaces and tun devices, and {what} failed here: {e}"
            ))
        } else {
            KernelError::Io(format!("{what}: {e}"))
        }
    }
}

/// The scenario's TCP flow in the kernel's terms.
struct Mapping {
    bytes: u64,
    congestion: &'static str,
    /// TCP_MAXSEG: the MSS without options (the kernel subtracts timestamps itself).
    maxseg: u32,
    timestamps: bool,
    ecn: bool,
    quickack: bool,
    /// SO_RCVBUF of the receiver, from the sender's `receive_window`.
    rcvbuf: Option<u64>,
    /// The model's Linux TSO parameters, when the scenario turns them on: their sysctls are set to
    /// match (Linux sends GSO aggregates either way; off, they stay at the kernel's defaults).
    tso: Option<TsoConfig>,
    mtu: u32,
}

/// Linux's smallest `TCP_MAXSEG`, options included (`TCP_MIN_MSS`, include/net/tcp.h).
const LINUX_TCP_MIN_MSS: u32 = 88;

fn unsupported(key: &str, why: &str) -> KernelError {
    KernelError::Unsupported(format!("kernel mode cannot map {key}: {why}"))
}

fn mapping(file: &ScenarioFile) -> Result<Mapping, KernelError> {
    if file.flow.len() != 1 {
        return Err(unsupported("[[flow]]", "it runs exactly one flow"));
    }
    let f = &file.flow[0];
    let Profile::Tcp(tcp) = f.wire_profile() else {
        return Err(unsupported(
            "flow[0].profile",
            "only profile = \"tcp\" runs on the kernel",
        ));
    };
    if tcp.ipv6 {
        return Err(unsupported(
            "flow[0].tcp.ipv6",
            "the namespaces use IPv4 addresses from 198.18.0.0/15",
        ));
    }
    let SourceConfig::Bulk { size } = f.source else {
        return Err(unsupported("flow[0].source", "only a bulk source runs on the kernel"));
    };
    // No [flow.cc] means NewReno, as in simulation.
    let congestion = match &f.cc {
        None | Some(CcConfig::NewReno(_)) => "reno",
        Some(CcConfig::Cubic(_)) => "cubic",
        Some(CcConfig::Bbr(_)) => "bbr",
        Some(CcConfig::CubicPicoquic(_)) => {
            return Err(unsupported(
                "flow[0].cc.algorithm",
                "\"cubic-picoquic\" has no kernel counterpart (use \"cubic\")",
            ))
        }
        Some(CcConfig::Bbr3(_) | CcConfig::Dctcp(_) | CcConfig::Prague(_)) => {
            return Err(unsupported(
                "flow[0].cc.algorithm",
                "this kernel's TCP offers \"reno\", \"cubic\" and \"bbr\" (v1) only",
            ))
        }
    };
    let quickack = match f.receiver.as_ref().map(|r| &r.ack) {
        None | Some(AckPolicyConfig::TcpDelayed(_)) | Some(AckPolicyConfig::Rfc9000(_)) => false,
        Some(AckPolicyConfig::Ratio(r)) if r.ratio.get() == 1 => true,
        Some(_) => {
            return Err(unsupported(
                "flow[0].receiver.ack.policy",
                "Linux offers delayed ACKs (\"tcp-delayed\", \"rfc9000\") or an ACK per segment (\"ratio\" with ratio = 1), nothing else",
            ))
        }
    };
    for (side, h) in [("sender", &file.hosts.sender), ("receiver", &file.hosts.receiver)] {
        if h.socket_buffer.is_some() {
            return Err(unsupported(
                &format!("hosts.{side}.socket_buffer"),
                "a datagram receive buffer has no TCP counterpart (set flow[0].sender.receive_window for the receiver's buffer)",
            ));
        }
    }
    // Linux always opens with its SYN exchange (RFC 9293 §3.5; SYN resent after 1 s, doubling, RFC 6298
    // §2.1, §5.5), which is what the model's TCP handshake does: `handshake = true` describes the kernel's run.
    // `server_flight` sizes a QUIC server's TLS flight, which Linux TCP never sends (`syn_loss_window` gets a
    // notice instead).
    if f.handshake
        .as_ref()
        .is_some_and(|h| h.server_flight != HandshakeConfig::default().server_flight)
    {
        return Err(unsupported(
            "flow[0].handshake.server_flight",
            "Linux TCP answers a SYN with a SYN-ACK and sends no server flight (use handshake = true)",
        ));
    }
    let options = if tcp.timestamps { 12 } else { 0 };
    // Linux refuses TCP_MAXSEG below TCP_MIN_MSS (88 B, include/net/tcp.h); the run used to stop at the tun
    // device's MTU ioctl with a bare EINVAL instead.
    if tcp.mss + options < LINUX_TCP_MIN_MSS {
        return Err(unsupported(
            "flow[0].tcp.mss",
            &format!(
                "Linux takes a segment size of at least {LINUX_TCP_MIN_MSS} B (TCP_MIN_MSS), so mss must be at least {} B here, got {} B",
                LINUX_TCP_MIN_MSS - options,
                tcp.mss
            ),
        ));
    }
    let overhead = 20 + 20 + options;
    Ok(Mapping {
        bytes: size.0,
        congestion,
        maxseg: tcp.mss + options,
        timestamps: tcp.timestamps,
        ecn: f.sender.as_ref().is_some_and(|s| s.ecn),
        quickack,
        rcvbuf: f.sender.as_ref().and_then(|s| s.receive_window).map(|b| b.0),
        tso: f.sender.as_ref().map(|s| s.tso.clone()).filter(|t| t.enabled),
        mtu: tcp.mss + overhead,
    })
}

/// What real mode's notices say for kernel mode: models that exist only in simulation.
pub fn notices(file: &ScenarioFile) -> Vec<String> {
    let mut v = Vec::new();
    for (side, h) in [("sender", &file.hosts.sender), ("receiver", &file.hosts.receiver)] {
        if h.cpu != Default::default() {
            v.push(format!(
                "kernel mode ignores [hosts.{side}.cpu] (this machine's CPU does the work)"
            ));
        }
    }
    let Some(f) = file.flow.first() else {
        return v;
    };
    if f.sender.as_ref().is_some_and(|s| s.pacing != Default::default()) {
        v.push(
            "kernel mode ignores flow[0].sender.pacing (the kernel paces as its controller and qdisc decide)".into(),
        );
    }
    // The kernel cuts its initial window by its own rule (`tcp_init_transfer`), which the model's "linux" is.
    if f.handshake.as_ref().and_then(|h| h.syn_loss_window) == Some(SynLossWindow::Rfc5681) {
        v.push(
            "kernel mode ignores flow[0].handshake.syn_loss_window = \"rfc5681\" (Linux cuts its initial window to one \
             segment only after a second SYN retransmission, which is syn_loss_window = \"linux\")"
                .into(),
        );
    }
    let keys = unmapped_keys(f);
    if !keys.is_empty() {
        v.push(format!(
            "kernel mode ignores {} (Linux TCP has its own; kernel mode maps only the algorithm, the ACK policy, ECN, \
             the receive window, the MSS, the TSO sysctls and the SYN exchange)",
            keys.join(", ")
        ));
    }
    if file.output.qlog {
        v.push(
            "kernel mode writes no qlog ([output] qlog): Linux TCP keeps none; tcp_info.csv and the time series \
                come from TCP_INFO"
                .into(),
        );
    }
    v
}

/// The keys of flow `f` set away from their defaults that kernel mode cannot give Linux TCP (`mapping` maps
/// the rest): a run that silently dropped them would be compared with a simulation that used them.
fn unmapped_keys(f: &FlowConfig) -> Vec<&'static str> {
    let mut keys = Vec::new();
    let cc_params = match &f.cc {
        Some(CcConfig::NewReno(c)) => *c != NewRenoConfig::default(),
        Some(CcConfig::Cubic(c)) => *c != CubicConfig::default(),
        Some(CcConfig::Bbr(c)) => *c != BbrConfig::default(),
        _ => false,
    };
    if cc_params {
        keys.push("flow[0].cc's parameters other than algorithm");
    }
    if let Some(s) = &f.sender {
        let d = SenderConfig::default();
        for (key, set) in [
            ("flow[0].sender.initial_rtt", s.initial_rtt != d.initial_rtt),
            (
                "flow[0].sender.peer_max_ack_delay",
                s.peer_max_ack_delay != d.peer_max_ack_delay,
            ),
            ("flow[0].sender.clock", s.clock != d.clock),
            (
                "flow[0].sender.packet_threshold",
                s.packet_threshold != d.packet_threshold,
            ),
            ("flow[0].sender.time_threshold", s.time_threshold != d.time_threshold),
            ("flow[0].sender.ack_frequency", s.ack_frequency != d.ack_frequency),
            (
                "flow[0].sender.tso.gso_max_size (the tun devices keep 64 KiB)",
                s.tso.enabled && s.tso.gso_max_size != d.tso.gso_max_size,
            ),
        ] {
            if set {
                keys.push(key);
            }
        }
    }
    if let Some(r) = &f.receiver {
        let d = ReceiverConfig::default();
        for (key, set) in [
            ("flow[0].receiver.clock", r.clock != d.clock),
            ("flow[0].receiver.max_ack_ranges", r.max_ack_ranges != d.max_ack_ranges),
            ("flow[0].receiver.pn_len", r.pn_len != d.pn_len),
        ] {
            if set {
                keys.push(key);
            }
        }
    }
    keys
}

fn setsockopt<T>(fd: i32, level: i32, name: i32, value: &T, what: &str) -> Result<(), KernelError> {
    // SAFETY: `value` points to a live `T` of the size given.
    let r = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (value as *const T).cast(),
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    if r != 0 {
        let e = io::Error::last_os_error();
        return Err(KernelError::Unsupported(format!("kernel mode: {what}: {e}")));
    }
    Ok(())
}

/// Per-namespace settings the scenario maps to.
fn namespace_sysctls(m: &Mapping) -> io::Result<()> {
    sysctl("net/ipv4/tcp_timestamps", if m.timestamps { "1" } else { "0" })?;
    sysctl("net/ipv4/tcp_ecn", if m.ecn { "1" } else { "2" })?;
    sysctl("net/ipv4/tcp_no_metrics_save", "1")?;
    sysctl("net/ipv4/tcp_rmem", &format!("4096 131072 {AUTOTUNE_MAX}"))?;
    sysctl("net/ipv4/tcp_wmem", &format!("4096 16384 {AUTOTUNE_MAX}"))?;
    if let Some(t) = &m.tso {
        sysctl("net/ipv4/tcp_tso_win_divisor", &t.win_divisor.to_string())?;
        sysctl("net/ipv4/tcp_min_tso_segs", &t.min_segs.to_string())?;
        sysctl("net/ipv4/tcp_tso_rtt_log", &t.rtt_log.to_string())?;
    }
    Ok(())
}

/// The sender: connect from inside its namespace, write the bytes, wait for the receiver to close.
fn sender(
    ns: &Namespace,
    m: &Mapping,
    published: &Mutex<Option<Arc<TcpStream>>>,
    realtime: &AtomicBool,
    stop: &AtomicBool,
) -> Result<TcpInfo, KernelError> {
    realtime.store(request_realtime_priority_at(SENDER_PRIORITY), Ordering::Relaxed);
    ns.enter().map_err(io_err("enter the sender namespace"))?;
    // SAFETY: plain socket(2), owned at once by the TcpStream below.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io_err("sender socket")(io::Error::last_os_error()));
    }
    // SAFETY: `fd` is a fresh descriptor nobody else owns.
    let stream = unsafe { TcpStream::from_raw_fd(fd) };
    let cc = m.congestion.as_bytes();
    // SAFETY: TCP_CONGESTION takes the name's bytes and length.
    if unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            cc.as_ptr().cast(),
            cc.len() as u32,
        )
    } != 0
    {
        let e = io::Error::last_os_error();
        return Err(KernelError::Unsupported(format!(
            "kernel mode: this kernel does not offer congestion control {:?} (see /proc/sys/net/ipv4/tcp_available_congestion_control): {e}",
            m.congestion
        )));
    }
    setsockopt(
        fd,
        libc::IPPROTO_TCP,
        libc::TCP_MAXSEG,
        &(m.maxseg as libc::c_int),
        "TCP_MAXSEG",
    )?;
    stream
        .set_write_timeout(Some(SOCKET_POLL))
        .map_err(io_err("sender socket"))?;
    stream
        .set_read_timeout(Some(SOCKET_POLL))
        .map_err(io_err("sender socket"))?;
    let addr: SocketAddr = (RECEIVER_ADDR, PORT).into();
    let sa = libc::sockaddr_in {
        sin_family: libc::AF_INET as u16,
        sin_port: PORT.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(RECEIVER_ADDR).to_be(),
        },
        sin_zero: [0; 8],
    };
    // A blocking connect would wait out SYN retries for minutes; poll instead, so stop is seen.
    loop {
        if stop.load(Ordering::Relaxed) {
            return Err(KernelError::Io(format!("sender: stopped before connecting to {addr}")));
        }
        // SAFETY: `sa` is a valid sockaddr_in.
        let r = unsafe {
            libc::connect(
                fd,
                (&sa as *const libc::sockaddr_in).cast(),
                std::mem::size_of_val(&sa) as u32,
            )
        };
        let e = io::Error::last_os_error();
        match (r, e.raw_os_error()) {
            (0, _) | (_, Some(libc::EISCONN)) => break,
            (_, Some(libc::EINPROGRESS | libc::EALREADY | libc::EAGAIN | libc::EINTR)) => {
                std::thread::sleep(Duration::from_millis(5));
            }
            _ => return Err(KernelError::Io(format!("sender: connect to {addr}: {e}"))),
        }
    }
    let stream = Arc::new(stream);
    *published.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::clone(&stream));
    let mut left = m.bytes;
    while left > 0 {
        if stop.load(Ordering::Relaxed) {
            return Err(KernelError::Io("sender: stopped during the transfer".into()));
        }
        let n = left.min(ZEROS.len() as u64) as usize;
        match (&*stream).write(&ZEROS[..n]) {
            Ok(w) => left -= w as u64,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(KernelError::Io(format!("sender: write: {e}"))),
        }
    }
    stream.shutdown(Shutdown::Write).map_err(io_err("sender: shutdown"))?;
    // The receiver closes once it has every byte; EOF here means the transfer is acknowledged.
    let mut sink = [0u8; 64];
    loop {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        match (&*stream).read(&mut sink) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                ) => {}
            Err(e) => {
                return Err(KernelError::Io(format!(
                    "sender: waiting for the receiver to close: {e}"
                )))
            }
        }
    }
    TcpInfo::read(stream.as_raw_fd()).map_err(io_err("TCP_INFO"))
}

/// What the receiver saw.
struct Received {
    bytes: u64,
    completion: Option<Time>,
    info: TcpInfo,
    /// The receiving application ran with real-time scheduling.
    realtime: bool,
}

/// The receiver: accept on the listener (made inside its namespace), read to the end, close.
fn receiver(
    listener: TcpListener,
    m: &Mapping,
    clock: WallClock,
    delivered: &AtomicU64,
    stop: &AtomicBool,
) -> Result<Received, KernelError> {
    let realtime = request_realtime_priority_at(RECEIVER_PRIORITY);
    listener.set_nonblocking(true).map_err(io_err("listener"))?;
    let stream = loop {
        if stop.load(Ordering::Relaxed) {
            // A path the wall clock cannot follow (1 bit/s, hours of delay, loss of everything) holds the
            // SYN past the deadline: say so, rather than leave the user to suspect the namespaces.
            return Err(KernelError::Io(
                "receiver: no connection arrived before the deadline (duration + 2 s): the emulated path delivered no SYN \
                 (a rate of a few bit/s, a delay longer than the run, or loss of every packet)"
                    .into(),
            ));
        }
        match listener.accept() {
            Ok((s, _)) => break s,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(KernelError::Io(format!("receiver: accept: {e}"))),
        }
    };
    stream.set_nonblocking(false).map_err(io_err("receiver socket"))?;
    stream
        .set_read_timeout(Some(SOCKET_POLL))
        .map_err(io_err("receiver socket"))?;
    let fd = stream.as_raw_fd();
    let mut buf = vec![0u8; 1 << 18];
    let (mut bytes, mut completion) = (0u64, None);
    loop {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        match (&stream).read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                bytes += n as u64;
                delivered.store(bytes, Ordering::Relaxed);
                if bytes >= m.bytes && completion.is_none() {
                    completion = Some(clock.now());
                }
                if m.quickack {
                    // TCP_QUICKACK is not sticky (tcp(7)): re-arm after every read.
                    setsockopt(
                        fd,
                        libc::IPPROTO_TCP,
                        libc::TCP_QUICKACK,
                        &(1 as libc::c_int),
                        "TCP_QUICKACK",
                    )?;
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(KernelError::Io(format!("receiver: read: {e}"))),
        }
    }
    let info = TcpInfo::read(fd).map_err(io_err("TCP_INFO"))?;
    Ok(Received {
        bytes,
        completion,
        info,
        realtime,
    })
}

/// Runs `s` on the kernel's TCP; see the crate docs.
pub fn run_kernel(s: &Scenario, mut opts: KernelOptions) -> Result<RunOutput, KernelError> {
    let file = s.config();
    let m = mapping(file)?;
    for n in notices(file) {
        eprintln!("cclab: {n}");
    }
    let seed = opts.seed.unwrap_or(file.scenario.seed);
    let plan = plan(file);
    let interval = opts
        .timeseries_interval
        .unwrap_or(file.output.timeseries_interval)
        .max(Dur::from_millis(1));
    let deadline = Time::ZERO + opts.deadline.unwrap_or(file.scenario.duration + GRACE);
    if let Some(dir) = &opts.out_dir {
        std::fs::create_dir_all(dir).map_err(io_err(&dir.display().to_string()))?;
    }

    // The whole setup lives in these values: dropping them (any return, panic or signal that
    // ends the process) lets the kernel remove the namespaces, devices and sockets.
    let sender_ns = Namespace::new().map_err(forbidden("creating a network namespace"))?;
    let receiver_ns = Namespace::new().map_err(forbidden("creating a network namespace"))?;
    let name = |side: &str| format!("cclab-{}{side}", std::process::id());
    let s_tun = sender_ns
        .run(|| {
            namespace_sysctls(&m)?;
            Tun::create(&name("s"), SENDER_ADDR, RECEIVER_ADDR, m.mtu)
        })
        .map_err(forbidden("creating the sender's tun device"))?;
    let r_tun = receiver_ns
        .run(|| {
            namespace_sysctls(&m)?;
            Tun::create(&name("r"), RECEIVER_ADDR, SENDER_ADDR, m.mtu)
        })
        .map_err(forbidden("creating the receiver's tun device"))?;
    let listener = receiver_ns
        .run(|| TcpListener::bind((RECEIVER_ADDR, PORT)))
        .map_err(io_err("receiver listen"))?;
    if let Some(b) = m.rcvbuf {
        // The kernel doubles SO_RCVBUF and advertises about half of it (tcp_adv_win_scale = 1):
        // the advertised window is then close to the scenario's receive window.
        let v = b.min(i32::MAX as u64) as libc::c_int;
        setsockopt(listener.as_raw_fd(), libc::SOL_SOCKET, libc::SO_RCVBUF, &v, "SO_RCVBUF")?;
    }

    let clock = WallClock::start();
    let stop = AtomicBool::new(false);
    let delivered = AtomicU64::new(0);
    let published: Mutex<Option<Arc<TcpStream>>> = Mutex::new(None);
    let sender_realtime = AtomicBool::new(false);
    let mut tuns = [s_tun, r_tun];
    let mut rows: Vec<(Time, TcpInfo)> = Vec::new();
    let mut cancelled = false;
    let (fwd, sent, received) = std::thread::scope(|scope| {
        let fabric = Fabric::new(&plan, seed);
        let fwd = scope.spawn(|| forward(fabric, &mut tuns, clock, &stop));
        let snd = scope.spawn(|| sender(&sender_ns, &m, &published, &sender_realtime, &stop));
        let rcv = scope.spawn(|| receiver(listener, &m, clock, &delivered, &stop));
        let mut next = Time::ZERO + interval;
        loop {
            let now = clock.now();
            if next > now {
                std::thread::sleep(Duration::from_nanos(next.saturating_since(now).as_nanos()));
            }
            let stream = published.lock().unwrap_or_else(|p| p.into_inner()).clone();
            if let Some(info) = stream.and_then(|s| TcpInfo::read(s.as_raw_fd()).ok()) {
                rows.push((next, info));
            }
            next += interval;
            // The sender ends after the receiver closed (success) or on an error; either way the
            // receiver needs no more time, and waiting on it would wait out the deadline.
            if snd.is_finished() || clock.now() >= deadline {
                break;
            }
            if let Some(p) = opts.progress.as_mut() {
                if !p((delivered.load(Ordering::Relaxed) as f64 / m.bytes.max(1) as f64).min(1.0)) {
                    cancelled = true;
                    break;
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
        let sent = snd
            .join()
            .unwrap_or_else(|_| Err(KernelError::Io("sender thread panicked".into())));
        let received = rcv
            .join()
            .unwrap_or_else(|_| Err(KernelError::Io("receiver thread panicked".into())));
        (fwd.join().expect("forwarding thread"), sent, received)
    });
    let end = clock.now();
    if let Some(p) = opts.progress.as_mut() {
        p(1.0);
    }
    let received = received?;
    let sent = match sent {
        Ok(info) => info,
        // A stopped or failed sender still leaves its last sample.
        Err(e) if cancelled || clock.now() >= deadline => {
            eprintln!("cclab: {e}");
            rows.last().map(|r| r.1).unwrap_or_default()
        }
        Err(e) => return Err(e),
    };
    let realtime = sender_realtime.load(Ordering::Relaxed) && received.realtime;
    let out = report(file, seed, &plan, end, &m, &sent, &received, realtime, &rows, fwd);
    if let Some(dir) = &opts.out_dir {
        write_outputs(dir, &out, &rows)?;
    }
    if cancelled {
        return Err(KernelError::Cancelled(Box::new(out)));
    }
    Ok(out)
}

fn write_outputs(dir: &std::path::Path, out: &RunOutput, rows: &[(Time, TcpInfo)]) -> Result<(), KernelError> {
    let path = dir.join("summary.json");
    std::fs::write(&path, out.summary.to_json_pretty() + "\n").map_err(io_err(&path.display().to_string()))?;
    let path = dir.join("timeseries.csv");
    let mut w = io::BufWriter::new(std::fs::File::create(&path).map_err(io_err(&path.display().to_string()))?);
    out.timeseries
        .to_csv(&mut w)
        .and_then(|()| w.flush())
        .map_err(io_err(&path.display().to_string()))?;
    // What TCP_INFO has beyond the shared time-series schema.
    let path = dir.join("tcp_info.csv");
    let mut text = String::from("time_s,rttvar_s,retransmits,lost,total_retrans,ca_state,delivered_ce\n");
    for (t, i) in rows {
        text += &format!(
            "{},{},{},{},{},{},{}\n",
            t.as_nanos() as f64 / 1e9,
            i.rttvar_us as f64 / 1e6,
            i.retrans,
            i.lost,
            i.total_retrans,
            i.ca_state,
            i.delivered_ce
        );
    }
    std::fs::write(&path, text).map_err(io_err(&path.display().to_string()))
}

#[allow(clippy::too_many_arguments)]
fn report(
    file: &ScenarioFile,
    seed: u64,
    plan: &cclab_sim::run::PathPlan,
    end: Time,
    m: &Mapping,
    sent: &TcpInfo,
    received: &Received,
    applications_realtime: bool,
    rows: &[(Time, TcpInfo)],
    (fabric, fwd): (Fabric, ForwardReport),
) -> RunOutput {
    let start = Time::ZERO + file.flow[0].start;
    let done = received.completion.map(|t| t.saturating_since(start));
    let span = done.unwrap_or(end.saturating_since(start)).as_secs_f64();
    let last = sent.metrics();
    let nonzero = |d: Dur| (d > Dur::ZERO).then(|| d.as_secs_f64());
    let flow = FlowSummary {
        flow: 0,
        goodput_bps: if span > 0.0 {
            received.bytes as f64 * 8.0 / span
        } else {
            0.0
        },
        completion_time_s: done.map(|d| d.as_secs_f64()),
        bytes_delivered: received.bytes,
        data_packets_sent: sent.data_segs_out as u64,
        retransmitted_packets: sent.total_retrans as u64,
        // The kernel keeps no lifetime count of segments it marked lost; each was retransmitted.
        lost_packets: sent.total_retrans as u64,
        acks_sent: (received.info.segs_out as u64).saturating_sub(received.info.data_segs_out as u64),
        ack_bytes: fwd.bytes_in[1],
        min_rtt_s: nonzero(last.min_rtt),
        srtt_s: nonzero(last.smoothed_rtt),
        cwnd_max_bytes: rows
            .iter()
            .map(|r| r.1.metrics().cwnd)
            .chain([last.cwnd])
            .max()
            .unwrap_or(0),
        loss_rate: if sent.data_segs_out > 0 {
            sent.total_retrans as f64 / sent.data_segs_out as f64
        } else {
            0.0
        },
        ecn_marks: m.ecn.then_some(sent.delivered_ce as u64),
        ..FlowSummary::default()
    };
    // TCP_INFO has no receiver-side count: acknowledged bytes stand for delivered ones.
    let mut sampler = Sampler::new(Dur(1));
    for (t, i) in rows {
        let c = SampleCounters {
            bytes_sent: i.bytes_sent,
            bytes_acked: i.bytes_acked,
            bytes_delivered: i.bytes_acked,
        };
        sampler.sample(*t, FlowId(0), &i.metrics(), &c);
    }
    let timeseries = sampler.into_series();
    let elapsed = end.saturating_since(Time::ZERO);
    let links = fabric
        .links()
        .iter()
        .zip(&plan.links)
        .map(|(l, p)| {
            let st = l.stats();
            LinkSummary {
                name: p.name.clone(),
                direction: p.direction.to_string(),
                utilisation: l.utilisation(elapsed),
                drops: st.queue.dropped_packets + st.lost_packets,
                bytes: st.delivered_bytes,
                packets: st.delivered_packets,
                ecn_marks: st.queue.ecn_marked,
                configured_rate_bps: None,
                achieved_rate_bps: None,
            }
        })
        .collect();
    if let Some(e) = &fwd.error {
        eprintln!("cclab: {e}");
    }
    let packets = fwd.packets_in[0] + fwd.packets_in[1];
    let wall_s = elapsed.as_secs_f64();
    let mut emulator = fwd.release.summary();
    emulator.unexpected_packets = fwd.tun_drops[0] + fwd.tun_drops[1];
    emulator.realtime_scheduling = fwd.realtime && applications_realtime;
    emulator.cpu_s = fwd.cpu.as_secs_f64();
    emulator.cpu_utilisation = if wall_s > 0.0 { emulator.cpu_s / wall_s } else { 0.0 };
    let summary = Summary {
        scenario: file.scenario.name.clone(),
        seed,
        mode: "kernel".into(),
        // The kernel's TCP runs in softirq context: its CPU is not attributed to this run.
        sim: SimStats {
            cpu_s: 0.0,
            events: packets,
            wall_s,
            events_per_s: 0.0,
            sim_time_s: wall_s,
        },
        flows: vec![flow],
        links,
        fairness_jain: None,
        emulator: Some(emulator),
    };
    RunOutput { summary, timeseries }
}
