//! The sans-IO data sender: one stream in one packet-number space, RFC 9002 loss recovery, a
//! pluggable congestion controller, pacing, delivery-rate samples and (optionally) the
//! sender side of the ACK-frequency extension.
//!
//! `transmit.rs` builds packets (window, pacing, probes), `ack.rs` processes ACK frames and
//! timers (RTT samples, loss detection, controller events), `stream.rs` tracks stream bytes.
//! Every input `now` is the true time; the sender reads it only through its `Clock`, and the
//! deadlines `poll_timeout` returns are the true times at which that clock can see them.

mod ack;
mod kept_gate;
mod stream;
mod transmit;
mod tso;
mod warm;

use self::stream::SendStream;
pub use self::tso::TsoConfig;
use self::tso::{Tso, TsoView};
use super::handshake::{HandshakeClient, HandshakeConfig};
use super::source::{Source, SourceConfig};
use super::{Endpoint, EndpointStats, Metrics, TraceEvent, TraceLog};
use crate::ack::frequency_sender::{AckFrequencySender, AckFrequencySenderConfig};
use crate::ack::RangeSet;
use crate::cc::{AckedPacket, CcConfig, CcState, CongestionController, LostPacket};
use crate::clock::{Clock, ClockConfig};
use crate::recovery::delivery_rate::{DeliveryRate, Rate};
use crate::recovery::loss::LossDetection;
use crate::recovery::pacer::{Pacer, Pacing, PacingConfig};
use crate::recovery::prr::Prr;
use crate::recovery::rtt::RttEstimator;
use crate::recovery::rtt_histogram::RttHistogram;
use crate::recovery::sent::{AckFrequencySent, SentPackets};
use crate::time::{Dur, Time};
use crate::units::Bytes;
use crate::wire::packet::{AckFrame, AckFrequencyFrame, Datagram, Ecn, FlowId, RareFrames};
use crate::wire::size::Profile;
use core::num::NonZeroU64;
use serde::Deserialize;

/// Sender parameters (scenario table `[flow.sender]`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SenderConfig {
    /// RTT assumed before the first sample (RFC 9002 §6.2.2 kInitialRtt: 333 ms).
    pub initial_rtt: Dur,
    /// The peer's max_ack_delay transport parameter (RFC 9000 §18.2 default: 25 ms).
    pub peer_max_ack_delay: Dur,
    /// Pacing (RFC 9002 §7.7).
    pub pacing: PacingConfig,
    /// Linux's TSO/GSO aggregates and send deferral (`tso.rs`); off by default.
    pub tso: TsoConfig,
    /// Grow the window as TCP does, on the cumulative acknowledgement (`snd_una`): only on ACKs
    /// that advance it (RFC 5681 §3.2 counts only ACKs of new data; Linux raises cwnd only with
    /// `FLAG_DATA_ACKED`, `tcp_may_raise_cwnd` in `net/ipv4/tcp_input.c`), and not from a loss
    /// until it passes the data sent before the loss was detected (RFC 6675 §5's RecoveryPoint,
    /// Linux `high_seq`). Default false: RFC 9002 §7.3, where every newly acknowledged packet
    /// grows the window, so slow start grows on the ACKs that reveal its first loss, and
    /// recovery ends with the first ACK of a packet sent after it began (a retransmission)
    /// while older holes may still be open. Read by NewReno and CUBIC.
    pub cumulative_ack_growth: bool,
    /// Bring the window down in recovery as Linux does, with each delivery, by Proportional Rate
    /// Reduction (RFC 6937 §3, PRR-SSRB; `recovery/prr.rs`) toward the window the controller's
    /// reduction set (its ssthresh: half for NewReno, β = 0.7 for CUBIC). Default false: the
    /// controller's window applies at once (RFC 9002 §7.3.2), so the sender stops sending until
    /// the flight has drained below it. Read with NewReno and CUBIC.
    pub proportional_rate_reduction: bool,
    /// Mark packets ECT(0) and treat increases of the reported CE count as congestion
    /// (RFC 9002 §7.3.2, §B.7). Default false. A controller that needs ECN (DCTCP; Prague,
    /// which marks ECT(1)) turns it on and picks the codepoint itself.
    pub ecn: bool,
    /// The sender's clock model.
    pub clock: ClockConfig,
    /// kPacketThreshold (RFC 9002 §6.1.1: 3); 0 would declare acknowledged packets lost.
    pub packet_threshold: NonZeroU64,
    /// kTimeThreshold (RFC 9002 §6.1.2: 9/8).
    pub time_threshold: f64,
    /// Send ACK_FREQUENCY frames chosen by this policy (draft-ietf-quic-ack-frequency); `None` = never.
    /// Its `peer_max_ack_delay` is replaced by this config's, so the two cannot disagree.
    pub ack_frequency: Option<AckFrequencySenderConfig>,
    /// Flow-control credit of the peer, stream bytes: new data may reach at most this far past the
    /// acknowledged prefix (TCP receive window, RFC 9293 §3.8.6; QUIC MAX_DATA kept this far ahead
    /// by a receiver that reads at once, RFC 9000 §4.1). `None` (default) = unlimited.
    pub receive_window: Option<Bytes>,
    /// Open the connection with a handshake first (scenario `[flow] handshake`, which sets it
    /// for both ends); `None` = data from the start.
    #[serde(skip)]
    pub handshake: Option<HandshakeConfig>,
}

impl Default for SenderConfig {
    fn default() -> Self {
        SenderConfig {
            initial_rtt: crate::recovery::rtt::INITIAL_RTT,
            peer_max_ack_delay: Dur::from_millis(25),
            pacing: PacingConfig::default(),
            tso: TsoConfig::default(),
            cumulative_ack_growth: false,
            proportional_rate_reduction: false,
            ecn: false,
            clock: ClockConfig::default(),
            packet_threshold: NonZeroU64::new(3).expect("3 is not 0"),
            time_threshold: 9.0 / 8.0,
            ack_frequency: None,
            receive_window: None,
            handshake: None,
        }
    }
}

/// Ack-eliciting probe packets sent per PTO expiry (RFC 9002 §6.2.4: one or two).
const PTO_PROBES: u8 = 2;
/// RFC 8985 §7.2 WCDelAckT: the worst-case delayed-ACK timer a TCP sender assumes, 200 ms.
const TCP_WORST_CASE_DELACK: Dur = Dur::from_millis(200);
/// Ranges of the receiver's packet numbers the sender remembers and acknowledges (its ACK-only
/// packets rarely leave gaps, so a few suffice).
const PEER_ACK_RANGES: usize = 4;

/// A data sender. See the module doc for the driving contract (`Endpoint`).
///
/// With thousands of flows every send and ACK finds the sender cold, so the fields are grouped by
/// who reads them (`repr(C)` keeps the order) and the struct starts on a cache line: first what a
/// send, an ACK and `poll_timeout` all read, then what only a send reads, then what only an ACK
/// reads, the counters last among a send's (an ACK's and the rare ones follow in the same line);
/// inside the first group, the ACK-only parts of its structs (`repr(C)` too) line up into whole
/// lines; a send then touches 11 lines and an ACK 17 of 19, where both touched nearly all 20.
/// Last, fields read only when an ACK_FREQUENCY frame is lost.
#[repr(C, align(64))]
pub struct Sender {
    // Read by sends, ACKs and `poll_timeout`.
    clock: Clock,
    cc: Box<dyn CongestionController>,
    trace: TraceLog,
    /// The connection's handshake (QUIC and TCP profiles).
    handshake: Option<Box<Opening>>,
    /// Bytes in flight of a full-sized packet (the controllers' max_datagram_size).
    mss: u64,
    /// The loss-detection timer's deadline (clock reading): its inputs change only when a packet
    /// is sent, an ACK arrives or a timer fires, and each of those recomputes it.
    loss_deadline: Option<Time>,
    /// Clock reading until which pacing (or the controller's pause) holds the next packet.
    blocked_until: Option<Time>,
    /// An ack-eliciting packet from the receiver awaits acknowledgement, since this clock reading.
    peer_ack_due: Option<Time>,
    /// Boxed, like `handshake`: most flows have none, and inline they would spread the fields every
    /// packet touches over more cache lines (that matters with many flows).
    ack_frequency: Option<Box<AckFrequencySender>>,
    profile: Profile,
    flow: FlowId,
    /// Probe packets still to send after a PTO expiry.
    probes: u8,
    /// The last send attempt found no data while the window had room (RFC 9002 §7.8).
    app_limited: bool,
    /// Codepoint of every packet sent; anything but Not-ECT also turns on the CE response.
    ecn: Ecn,
    /// The newest ACK_FREQUENCY frame's packet was lost: resend the frame.
    af_resend: bool,
    /// The source is finished and the stream has its final size (`pump_source` has nothing to do).
    source_closed: bool,
    /// The controller's gate is its window alone (`CongestionController::gate_is_window`, asked when it
    /// is built): a send attempt asks it `window`, not `send_gate`.
    cc_gate_is_window: bool,
    /// The controller reads sends (`CongestionController::reads_sends`, asked when it is built): without,
    /// a send does not call its `on_packet_sent`.
    cc_reads_sends: bool,
    /// [`PacingConfig::enabled`], in this line's spare byte: in `pacing` its padding made the kept gate
    /// push the counters a send writes into one more line.
    paced: bool,
    sent: SentPackets,
    rtt: RttEstimator,
    loss: LossDetection,
    rate: DeliveryRate,
    stream: SendStream,
    source: Source,
    // Read by sends only.
    pacer: Pacer,
    /// The scenario's pacing parameters, the burst worked out for `mss` once.
    pacing: Pacing,
    /// Linux's TSO aggregates and deferral, when the scenario asks for them.
    tso: Option<Box<Tso>>,
    /// The window's proportional rate reduction while one runs (`proportional_rate_reduction`).
    prr: Option<Box<Prr>>,
    /// The sizes of a full data packet, for the packet-number and offset lengths last seen.
    full_packet: transmit::FullPacket,
    /// The window and pacing rate of the last send attempt since the last input (`kept_gate.rs`).
    kept_gate: kept_gate::KeptGate,
    /// Flow-control credit beyond the acknowledged prefix, stream bytes (`None` = unlimited).
    receive_window: Option<u64>,
    /// The largest possible ACK_FREQUENCY frame when frames may be sent, lent to the packet
    /// `size_bound` sizes: boxed once, not on every send attempt.
    af_bound: Option<Box<RareFrames>>,
    /// The PTO period the last ACK or timeout left (`update_loss_deadline`), for a send's re-arm of the
    /// loss timer; `Dur::ZERO` (no period is 0) where a send itself may change it (`pto_period_is_kept`).
    pto_period: Dur,
    /// Last of the fields sends read: a send writes the counters in its first half line, an ACK the
    /// next half line, which with the rest of the struct starts the ACK's fields (`EndpointStats`).
    stats: EndpointStats,
    // Read by ACKs only. First, after the counters' cold tail, what only tracing, TCP-style window
    // growth, PRR or a lost ACK_FREQUENCY frame reads: no byte of line 14 is read by a plain ACK.
    /// The controller state last traced (kept up to date only while tracing).
    cc_state: CcState,
    /// With `cumulative_ack_growth`: the end of the data sent when the last loss was detected
    /// (Linux `high_seq`), until the acknowledged prefix passes it.
    recovery_point: Option<u64>,
    /// Newest ACK_FREQUENCY frame sent, resent when its packet was lost.
    last_af_frame: Option<AckFrequencyFrame>,
    /// Delivery rate of the last rate sample (0 before the first), for `metrics`: the sample itself is
    /// 72 bytes, copied on every ACK only for this field.
    last_delivery_rate: Rate,
    /// QUIC: the peer's max_ack_delay, read by the PTO period (`pto_max_ack_delay`), which sends take
    /// from `pto_period`.
    peer_max_ack_delay: Dur,
    /// Largest ECN-CE count reported so far (ACKs with ECN only).
    ecn_ce_count: u64,
    /// Reused per-ACK buffers (no allocation per ACK).
    acked_buf: Vec<AckedPacket>,
    lost_buf: Vec<LostPacket>,
    /// QUIC: the receiver's packets seen, acknowledged in an ACK frame on the next data packet
    /// after an ack-eliciting one (RFC 9000 §13.2.1; the receiver's PINGs, §13.2.4).
    peer_received: RangeSet,
    /// Every RTT sample, for the run's percentiles.
    rtt_samples: RttHistogram,
    /// Only ACKs that advance the acknowledged prefix grow the window (`cumulative_ack_growth`).
    cumulative_ack_growth: bool,
    /// Recovery brings the window down by PRR (`proportional_rate_reduction`).
    prr_enabled: bool,
    /// The controller reads rate samples (`CongestionController::reads_rate_samples`, asked when it is
    /// built): without, an ACK works out only the sample's rate (`last_delivery_rate`).
    cc_reads_rate_samples: bool,
    /// The outstanding packets that carried an ACK_FREQUENCY frame (asked for each packet an ACK
    /// covers).
    af_sent: AckFrequencySent,
}

/// The handshake's client and what the sender needs when it opens, boxed together: most flows
/// have no handshake, and inline the config would grow every sender by a cache line.
struct Opening {
    client: HandshakeClient,
    /// TCP: the controller's config, to build it again with a one-segment initial window if the
    /// SYN or SYN-ACK was lost (`HandshakeClient::setup_lost`); `None` for QUIC and for a
    /// controller built elsewhere.
    setup_loss_cc: Option<CcConfig>,
}

impl Sender {
    /// A sender for `flow` whose source starts at true time `now`.
    pub fn new(
        flow: FlowId,
        profile: Profile,
        cfg: &SenderConfig,
        cc: &CcConfig,
        source: &SourceConfig,
        now: Time,
    ) -> Sender {
        let clock = Clock::new(cfg.clock);
        let built = cc.build(clock.read(now), profile.mss() as u64);
        let mut s = Sender::with_controller(flow, profile, cfg, built, source, now);
        // RFC 9002 §7.2 has no rule for a lost Initial: a QUIC sender keeps its initial window.
        if let (Some(h), Profile::Tcp(_)) = (s.handshake.as_mut(), profile) {
            h.setup_loss_cc = Some(cc.clone());
        }
        s
    }

    /// A sender driven by a controller built elsewhere (a plug-in or a test double), for
    /// full-sized packets of `profile.mss()` bytes in flight. Such a controller keeps its initial
    /// window after a TCP handshake that lost its SYN (only a `CcConfig` can be built again).
    ///
    /// # Panics
    /// If a full-sized packet, `profile.mss()`, exceeds 65,535 bytes, which no IP packet holds: the sent
    /// record keeps a packet's sizes in 16 bits (`SentPacket::new`).
    pub fn with_controller(
        flow: FlowId,
        profile: Profile,
        cfg: &SenderConfig,
        cc: Box<dyn CongestionController>,
        source: &SourceConfig,
        now: Time,
    ) -> Sender {
        assert!(
            profile.mss() <= u16::MAX.into(),
            "a full-sized packet of at most 65,535 bytes, an IP packet's limit, got {}",
            profile.mss()
        );
        let clock = Clock::new(cfg.clock);
        let t = clock.read(now);
        let mss = profile.mss() as u64;
        let step = clock.config().resolution.get().max(clock.config().timer_granularity);
        let mut s = Sender {
            flow,
            profile,
            mss,
            clock,
            peer_max_ack_delay: cfg.peer_max_ack_delay,
            paced: cfg.pacing.enabled,
            pacing: cfg.pacing.for_mss(mss),
            tso: cfg.tso.enabled.then(|| Box::new(Tso::new(&cfg.tso))),
            cumulative_ack_growth: cfg.cumulative_ack_growth,
            recovery_point: None,
            prr_enabled: cfg.proportional_rate_reduction,
            cc_reads_rate_samples: cc.reads_rate_samples(),
            cc_gate_is_window: cc.gate_is_window(),
            cc_reads_sends: cc.reads_sends(),
            prr: None,
            ecn: cc
                .ecn_codepoint()
                .unwrap_or(if cfg.ecn { Ecn::Ect0 } else { Ecn::NotEct }),
            cc_state: cc.state(),
            cc,
            rtt: RttEstimator::new(cfg.initial_rtt),
            rtt_samples: RttHistogram::default(),
            sent: SentPackets::new(),
            loss: LossDetection::new(cfg.packet_threshold, cfg.time_threshold),
            pacer: Pacer::new(t, step),
            rate: DeliveryRate::new(),
            source: Source::new(source, t),
            stream: SendStream::default(),
            ack_frequency: cfg.ack_frequency.as_ref().map(|af| {
                Box::new(AckFrequencySender::new(&AckFrequencySenderConfig {
                    peer_max_ack_delay: cfg.peer_max_ack_delay,
                    ..af.clone()
                }))
            }),
            receive_window: cfg.receive_window.map(|b| b.0),
            last_af_frame: None,
            af_sent: AckFrequencySent::default(),
            af_resend: false,
            full_packet: transmit::FullPacket::default(),
            kept_gate: kept_gate::KeptGate::NONE,
            af_bound: cfg.ack_frequency.is_some().then(transmit::af_bound),
            handshake: cfg
                .handshake
                .as_ref()
                .filter(|_| !matches!(profile, Profile::Dccp(_)))
                .map(|h| {
                    Box::new(Opening {
                        client: HandshakeClient::new(&profile, h, t),
                        setup_loss_cc: None,
                    })
                }),
            probes: 0,
            source_closed: false,
            app_limited: false,
            blocked_until: None,
            ecn_ce_count: 0,
            last_delivery_rate: Rate::default(),
            stats: EndpointStats::default(),
            trace: TraceLog::default(),
            acked_buf: Vec::new(),
            lost_buf: Vec::new(),
            peer_received: RangeSet::new(),
            peer_ack_due: None,
            loss_deadline: None,
            pto_period: Dur::ZERO,
        };
        s.pump_source(t);
        s.stats.cwnd_max_bytes = s.cc.window();
        s.update_loss_deadline();
        s
    }

    /// Hands every pending trace event to `f`, oldest first (as repeated `poll_event`s would,
    /// without a call and an `Option` per event).
    #[inline]
    pub fn drain_events(&mut self, f: impl FnMut(&TraceEvent)) {
        self.trace.drain(f);
    }

    /// The RTT estimator.
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }

    /// `stats()`'s `(bytes_sent, bytes_delivered)` alone: a time-series sample of thousands of flows
    /// reads one line of each sender's counters instead of copying all of them.
    pub fn sent_and_acked_bytes(&self) -> (u64, u64) {
        (self.stats.bytes_sent, self.stream.acked_bytes())
    }

    /// Bytes in flight (RFC 9002 §B.2).
    pub fn bytes_in_flight(&self) -> u64 {
        self.sent.bytes_in_flight()
    }

    /// The congestion controller.
    pub fn controller(&self) -> &dyn CongestionController {
        self.cc.as_ref()
    }

    /// Consecutive PTO expiries without an acknowledgement.
    pub fn pto_count(&self) -> u32 {
        self.loss.pto_count()
    }

    /// The max_ack_delay the probe timeout allows for. TCP has no max_ack_delay parameter: RFC 8985
    /// §7.2 allows for the worst-case delayed ACK (WCDelAckT) when one segment is in flight, and
    /// otherwise sets the timeout to 2·SRTT, which SRTT + 4·RTTVAR approximates.
    fn pto_max_ack_delay(&self) -> Dur {
        match self.profile {
            Profile::Tcp(_) if self.sent.ack_eliciting_in_flight() <= 1 => TCP_WORST_CASE_DELACK,
            Profile::Tcp(_) => Dur::ZERO,
            _ => self.max_ack_delay(),
        }
    }

    /// max_ack_delay the peer may be using: the ACK-frequency requests in force, else the
    /// transport parameter (draft-ietf-quic-ack-frequency §7; RFC 9002 §6.2.1).
    fn max_ack_delay(&self) -> Dur {
        self.ack_frequency
            .as_ref()
            .and_then(|a| a.max_ack_delay())
            .unwrap_or(self.peer_max_ack_delay)
    }

    /// The congestion window in bytes: PRR's while it brings the window down, else the controller's.
    fn window(&self) -> u64 {
        self.prr.as_deref().map_or_else(|| self.cc.window(), Prr::window)
    }

    /// Pacing rate in bytes/s: the controller's, else RFC 9002 §7.7 `N · cwnd / smoothed_rtt`.
    fn pacing_rate(&self) -> f64 {
        self.pacing_rate_from(self.cc.pacing_rate(), self.window())
    }

    /// `pacing_rate` from the controller's answers `cc_rate` and `window` (bytes), already read.
    #[inline]
    fn pacing_rate_from(&self, cc_rate: Option<f64>, window: u64) -> f64 {
        cc_rate.unwrap_or_else(|| {
            let srtt = self.rtt.smoothed().max(Dur(1)).as_secs_f64();
            self.pacing.gain * crate::time::u64_to_f64(window) / srtt
        })
    }

    /// Hands the application's writes due at clock reading `t` to the stream.
    #[inline]
    fn pump_source(&mut self, t: Time) {
        // A closed source writes nothing more, and the stream already has its final size: every send
        // attempt and timer of a bulk flow would hand the stream the same two values again.
        if !self.source_closed {
            self.pump_open_source(t);
        }
    }

    /// `pump_source` while the source may still write. Out of line, like the other parts of a send
    /// attempt and a timeout that a bulk flow never reaches: inline, their registers made every
    /// `poll_timeout` and `handle_timeout` save and restore six.
    #[inline(never)]
    fn pump_open_source(&mut self, t: Time) {
        if self.source.poll(t) > 0 || self.source.is_finished() {
            self.stream.on_written(self.source.written(), self.source.is_finished());
            self.source_closed = self.source.is_finished();
        }
    }

    /// Re-arms the loss-detection timer (RFC 9002 §A.8 `SetLossDetectionTimer`) after an ACK or a
    /// timeout (and when the sender is built), and keeps the PTO period for the sends until the next.
    #[inline]
    fn update_loss_deadline(&mut self) {
        let period = self.loss.pto_period(&self.rtt, self.pto_max_ack_delay());
        self.pto_period = if self.pto_period_is_kept() { period } else { Dur::ZERO };
        self.loss_deadline = self.loss.timer_with(&self.sent, period).map(|(t, _)| t);
    }

    /// `update_loss_deadline` after a send, with the period kept by the last input where a send
    /// leaves it unchanged (working it out cost each send ~20 instructions).
    #[inline(always)]
    fn update_loss_deadline_after_send(&mut self) {
        let period = match self.pto_period {
            Dur::ZERO => self.loss.pto_period(&self.rtt, self.pto_max_ack_delay()),
            kept => kept,
        };
        self.loss_deadline = self.loss.timer_with(&self.sent, period).map(|(t, _)| t);
    }

    /// Whether only inputs change the PTO period, so that a send may take the one the last input left:
    /// its RTT estimate, backoff and floor change only with ACKs and timeouts, each of which ends in
    /// `update_loss_deadline`; but TCP's delayed-ACK allowance follows the ack-eliciting packets in
    /// flight, and an ACK_FREQUENCY frame a send carries may change the max_ack_delay in force.
    fn pto_period_is_kept(&self) -> bool {
        !matches!(self.profile, Profile::Tcp(_)) && self.ack_frequency.is_none()
    }

    /// The earliest of the loss timer, the application's next write, the pacer's (or the
    /// controller's) hold and the handshake's timer, as a true time. Worked out when asked, not
    /// after every input and poll: the host asks once per touched endpoint and event, while an
    /// event may poll an endpoint twice and feed it too.
    #[inline]
    fn next_timeout(&self) -> Option<Time> {
        // The deadlines as integers with `u64::MAX` for none, and apart whether any is set (a deadline
        // may itself be `Time::MAX`): the minimum without a branch per pair of `Option`s.
        let at = |d: Option<Time>| d.map_or(u64::MAX, |t| t.0);
        let earliest = at(self.loss_deadline).min(at(self.blocked_until));
        let any = self.loss_deadline.is_some() | self.blocked_until.is_some();
        if self.source_closed && self.handshake.is_none() {
            // A bulk flow's: no call on this path, so it saves and restores no register.
            return any.then(|| self.clock.fire_time(Time(earliest)));
        }
        self.next_timeout_with(earliest, any)
    }

    /// `next_timeout` with the source's next write (while it is open) and the handshake's timer
    /// joined to the minimum `earliest` of the others (`any`: whether one was set).
    #[inline(never)]
    fn next_timeout_with(&self, mut earliest: u64, mut any: bool) -> Option<Time> {
        let mut add = |d: Option<Time>| {
            earliest = earliest.min(d.map_or(u64::MAX, |t| t.0));
            any |= d.is_some();
        };
        if !self.source_closed {
            add(self.source.next_event());
        }
        if let Some(h) = self.handshake.as_deref() {
            add(h.client.next_wake());
        }
        any.then(|| self.clock.fire_time(Time(earliest)))
    }

    /// The handshake completed at clock reading `t`, before any data left. RFC 5681 §3.1 and
    /// RFC 6928 §2: after a lost SYN or SYN-ACK the initial window MUST be one segment, so the
    /// controller starts again from one (then slow start as usual; its ssthresh is still unset, as
    /// Linux's `tcp_init_metrics` resets the one a SYN timeout lowered); with `syn_loss_window =
    /// "linux"` only after a second SYN retransmission (`HandshakeClient::setup_lost`). A TCP
    /// handshake that gave no RTT sample (a resent SYN without timestamps) leaves a 3 s
    /// retransmission timeout until the first sample (RFC 6298 §5.7,
    /// `LossDetection::on_handshake_without_rtt_sample`).
    fn on_handshake_open(&mut self, t: Time) {
        let Some(h) = self.handshake.as_mut() else {
            return;
        };
        if matches!(self.profile, Profile::Tcp(_)) && !self.rtt.has_sample() {
            self.loss.on_handshake_without_rtt_sample();
        }
        let Some(cfg) = h.setup_loss_cc.take() else {
            return;
        };
        if h.client.setup_lost() {
            self.cc = cfg.with_one_segment_window(self.mss).build(t, self.mss);
            self.cc_reads_rate_samples = self.cc.reads_rate_samples();
            self.cc_gate_is_window = self.cc.gate_is_window();
            self.cc_reads_sends = self.cc.reads_sends();
            self.cc_state = self.cc.state();
            self.stats.cwnd_max_bytes = self.cc.window();
        }
    }

    /// `handle_timeout` with a timer that may be due: the handshake's, the source's or the loss timer.
    #[inline(never)]
    fn handle_due_timeout(&mut self, now: Time) {
        self.forget_gate();
        if let Some(h) = self.handshake.as_mut() {
            h.client.on_timeout(self.clock.read(now));
        }
        self.on_timeout(now);
    }

    fn trace(&mut self, ev: impl FnOnce() -> TraceEvent) {
        if self.trace.is_on() {
            self.trace.push(ev());
        }
    }
}

impl Endpoint for Sender {
    fn handle_datagram(&mut self, now: Time, dgram: Datagram) {
        self.forget_gate();
        if let (Some(f), Some(h)) = (dgram.packet.handshake(), self.handshake.as_mut()) {
            let t = self.clock.read(now);
            let was_open = h.client.is_open();
            // RFC 9002 §5.1: the handshake gives the first RTT sample (no ACK delay in it).
            if let Some(sample) = h.client.on_server(t, f) {
                self.rtt.update(t, sample, Dur::ZERO);
                self.rtt_samples.record(sample);
            }
            if !was_open && h.client.is_open() {
                self.on_handshake_open(t);
            }
        } else if let Some(ack) = &dgram.packet.ack {
            self.on_ack_frame(now, ack);
        }
        if matches!(self.profile, Profile::Quic(_)) {
            let pn = dgram.packet.pn;
            // The next packet number (every ACK of a bulk transfer) only extends the top range: no new
            // range to trim, as on the receiver's in-order path.
            if self.peer_received.follows_top(pn) {
                self.peer_received.extend_top(pn);
            } else {
                self.peer_received.insert(pn, pn);
                self.peer_received.trim(PEER_ACK_RANGES);
            }
            if dgram.packet.is_ack_eliciting() {
                self.peer_ack_due.get_or_insert(self.clock.read(now));
            }
        }
        self.update_loss_deadline();
        if self.trace.is_on() {
            self.trace.received(now, dgram.size, dgram.packet);
        } else if let Some(ack) = dgram.packet.ack {
            // The receiver's next ACK reuses the box (`wire::ack_box`).
            AckFrame::recycle(ack);
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        // A bulk flow's pacing wake-up (one per packet at large BDPs) has nothing to do here: no
        // handshake, a closed source, the loss timer not due. Tested first, so that its path makes
        // no call and saves no register.
        let idle = self.handshake.is_none()
            && self.source_closed
            && self.loss_deadline.is_none_or(|d| d > self.clock.read(now));
        if !idle {
            self.handle_due_timeout(now);
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Datagram> {
        // `send` re-arms the loss timer; a poll that sends nothing leaves it.
        self.transmit(now)
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.next_timeout()
    }

    fn trace_log(&mut self) -> Option<&mut TraceLog> {
        Some(&mut self.trace)
    }

    fn set_tracing(&mut self, on: bool) {
        self.trace.set(on);
        self.cc_state = self.cc.state();
    }

    fn stats(&self) -> EndpointStats {
        EndpointStats {
            bytes_delivered: self.stream.acked_bytes(),
            ..self.stats.clone()
        }
    }

    fn rtt_percentiles(&self) -> Option<[Dur; 3]> {
        let q = |p| self.rtt_samples.quantile(p);
        Some([q(0.5)?, q(0.9)?, q(0.99)?])
    }

    fn metrics(&self) -> Metrics {
        // Before the first RTT sample the estimator holds the initial RTT (RFC 9002 §6.2.2), which was
        // never measured: report no value (zero), as qlog and summary.json already read zero.
        let sampled = |d: Dur| if self.rtt.has_sample() { d } else { Dur::ZERO };
        Metrics {
            cwnd: self.window(),
            bytes_in_flight: self.sent.bytes_in_flight(),
            smoothed_rtt: sampled(self.rtt.smoothed()),
            min_rtt: sampled(self.rtt.min()),
            latest_rtt: sampled(self.rtt.latest()),
            pacing_rate_bps: if self.paced {
                (self.pacing_rate() * 8.0) as u64
            } else {
                0
            },
            delivery_rate_bps: (self.last_delivery_rate.bytes_per_sec() * 8.0) as u64,
            ssthresh: self.cc.ssthresh(),
        }
    }

    fn is_done(&self) -> bool {
        self.stream.is_complete()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::offset_of;

    /// The bytes of field `$f` (of type `$t`) of the sender, or only `$part` of them.
    macro_rules! span {
        ($f:ident: $t:ty) => {
            offset_of!(Sender, $f)..offset_of!(Sender, $f) + size_of::<$t>()
        };
        ($f:ident, $part:expr) => {{
            let (at, part) = (offset_of!(Sender, $f), $part);
            at + part.start..at + part.end
        }};
    }

    #[test]
    fn layout_keeps_a_send_in_11_lines_and_line_14_cold() {
        // Every field a send, its loss timer and `poll_timeout` read, with the parts of the structs
        // among them that a send reads. With thousands of flows a send (on a pacing timer) and an
        // ACK visit a sender at different times, each finding its lines cold.
        let send = [
            span!(clock: Clock),
            span!(cc: Box<dyn CongestionController>),
            span!(trace: TraceLog),
            span!(handshake: Option<Box<Opening>>),
            span!(mss: u64),
            span!(loss_deadline: Option<Time>),
            span!(blocked_until: Option<Time>),
            span!(peer_ack_due: Option<Time>),
            span!(ack_frequency: Option<Box<AckFrequencySender>>),
            span!(profile: Profile),
            span!(flow: FlowId),
            span!(probes: u8),
            span!(app_limited: bool),
            span!(ecn: Ecn),
            span!(af_resend: bool),
            span!(source_closed: bool),
            span!(cc_gate_is_window: bool),
            span!(cc_reads_sends: bool),
            span!(paced: bool),
            span!(sent: SentPackets),
            span!(rtt, crate::recovery::rtt::SEND_BYTES),
            span!(loss, crate::recovery::loss::SEND_BYTES),
            span!(rate, crate::recovery::delivery_rate::SEND_BYTES),
            span!(stream, stream::SEND_BYTES),
            span!(source: Source),
            span!(pacer: Pacer),
            span!(pacing: Pacing),
            span!(tso: Option<Box<Tso>>),
            span!(prr: Option<Box<Prr>>),
            span!(full_packet: transmit::FullPacket),
            span!(kept_gate: kept_gate::KeptGate),
            span!(receive_window: Option<u64>),
            span!(af_bound: Option<Box<RareFrames>>),
            span!(pto_period: Dur),
            span!(stats, 0..offset_of!(EndpointStats, completion_time)),
        ];
        let mut lines: Vec<usize> = send.iter().flat_map(|r| r.start / 64..r.end.div_ceil(64)).collect();
        lines.sort_unstable();
        lines.dedup();
        assert_eq!(lines, [0, 1, 2, 3, 5, 6, 8, 9, 10, 11, 12], "{send:?}");
        // Line 14 holds only the counters' cold tail and fields a plain ACK does not read.
        let cold = offset_of!(Sender, stats) + offset_of!(EndpointStats, bytes_delivered);
        assert!(cold <= 14 * 64 && offset_of!(Sender, last_delivery_rate) >= 15 * 64);
        assert_eq!(
            offset_of!(Sender, cc_state),
            offset_of!(Sender, stats) + size_of::<EndpointStats>()
        );
        assert!(offset_of!(Sender, last_af_frame) < offset_of!(Sender, last_delivery_rate));
        assert_eq!(size_of::<Sender>(), 20 * 64);
    }

    #[test]
    fn peer_packet_numbers_in_order_extend_the_top_range_and_others_keep_four_ranges() {
        // The receiver's packets in order take the fast path; gaps, a late one and a duplicate the general one.
        use crate::wire::packet::Packet;
        let cc = CcConfig::NewReno(crate::cc::NewRenoConfig::default());
        let source = SourceConfig::Bulk { size: Bytes(1 << 20) };
        let mut s = Sender::new(
            FlowId(0),
            Profile::Quic(Default::default()),
            &SenderConfig::default(),
            &cc,
            &source,
            Time(0),
        );
        for pn in [0, 1, 2, 5, 6, 4, 9, 9, 12, 13, 20, 21, 22, 30] {
            let packet = Packet {
                pn,
                ..Default::default()
            };
            s.handle_datagram(
                Time(0),
                Datagram {
                    packet,
                    flow: FlowId(0),
                    size: 50,
                    ecn: Ecn::NotEct,
                },
            );
        }
        let ranges: Vec<_> = s.peer_received.iter_desc().collect();
        assert_eq!(ranges, [(30, 30), (20, 22), (12, 13), (9, 9)]);
    }

    #[test]
    #[should_panic(expected = "at most 65,535 bytes")]
    fn sender_refuses_packets_larger_than_an_ip_packet() {
        // The sent record keeps sizes in 16 bits; a scenario cannot ask for more (cclab-sim's `ip_limit`).
        let profile = Profile::Quic(crate::wire::size::QuicProfile {
            max_udp_payload: 65_536,
            ..Default::default()
        });
        let cc = CcConfig::NewReno(crate::cc::NewRenoConfig::default());
        let source = SourceConfig::Bulk { size: Bytes(1 << 20) };
        Sender::new(FlowId(0), profile, &SenderConfig::default(), &cc, &source, Time(0));
    }

    #[test]
    fn pto_period_kept_is_the_one_a_send_would_work_out() {
        // A bulk transfer to a real receiver, 10 ms each way, losing every 23rd data packet, every 31st
        // ACK and everything sent for 300 ms (so that PTOs fire and back off). Before every send attempt
        // the period a send takes must be the one worked out afresh.
        use crate::endpoint::receiver::{Receiver, ReceiverConfig};
        let tcp = crate::wire::size::TcpProfile {
            mss: 1448,
            timestamps: true,
            ipv6: false,
            accecn: false,
        };
        let profiles = [Profile::Quic(Default::default()), Profile::Tcp(tcp)];
        for profile in profiles {
            let cc = CcConfig::NewReno(crate::cc::NewRenoConfig::default());
            let source = SourceConfig::Bulk { size: Bytes(3 << 20) };
            let mut s = Sender::new(FlowId(0), profile, &SenderConfig::default(), &cc, &source, Time(0));
            let mut r = Receiver::new(FlowId(0), profile, &ReceiverConfig::default(), Time(0));
            // Datagrams on the way: (arrival, to the receiver, datagram).
            let mut wire: Vec<(Time, bool, Datagram)> = Vec::new();
            let (mut now, mut sends, mut acks, mut kept, mut backoff) = (Time(0), 0u64, 0u64, 0u64, 0);
            let delay = Dur::from_millis(10);
            let blackout = |t: Time| (Time(300_000_000)..Time(600_000_000)).contains(&t);
            for _ in 0..200_000 {
                loop {
                    let fresh = s.loss.pto_period(&s.rtt, s.pto_max_ack_delay());
                    if s.pto_period != Dur::ZERO {
                        assert_eq!(s.pto_period, fresh, "{profile:?} at {now:?}");
                        kept += 1;
                    }
                    let Some(d) = s.poll_transmit(now) else { break };
                    sends += 1;
                    if sends % 23 != 0 && !blackout(now) {
                        wire.push((now + delay, true, d));
                    }
                }
                while let Some(a) = r.poll_transmit(now) {
                    acks += 1;
                    if acks % 31 != 0 && !blackout(now) {
                        wire.push((now + delay, false, a));
                    }
                }
                let next_wire = wire.iter().map(|w| w.0).min();
                let Some(next) = [next_wire, s.poll_timeout(), r.poll_timeout()]
                    .into_iter()
                    .flatten()
                    .min()
                else {
                    break;
                };
                now = now.max(next);
                let (due, later): (Vec<_>, Vec<_>) = wire.drain(..).partition(|w| w.0 <= now);
                wire = later;
                for (_, to_receiver, d) in due {
                    if to_receiver {
                        r.handle_datagram(now, d);
                    } else {
                        s.handle_datagram(now, d);
                    }
                }
                s.handle_timeout(now);
                r.handle_timeout(now);
                backoff = backoff.max(s.loss.pto_count());
            }
            assert_eq!(s.stats().bytes_delivered, 3 << 20, "{profile:?}");
            assert!(backoff >= 2, "{profile:?}: PTOs backed off {backoff} times");
            // QUIC keeps the period for every attempt, TCP for none.
            assert_eq!(
                kept > sends,
                matches!(profile, Profile::Quic(_)),
                "{profile:?}: {kept} kept"
            );
        }
    }

    #[test]
    fn sender_config_parses_with_rfc_defaults() {
        let c: SenderConfig =
            toml::from_str("ecn = true\n[pacing]\ngain = 2.0\n[clock]\nresolution = \"1ms\"").unwrap();
        assert!(c.ecn && c.pacing.enabled && c.pacing.gain == 2.0 && c.pacing.burst_packets == 10);
        assert_eq!(c.clock.resolution, crate::time::NonZeroDur::from_millis(1));
        assert_eq!(
            (c.initial_rtt, c.peer_max_ack_delay),
            (Dur::from_millis(333), Dur::from_millis(25))
        );
        assert_eq!((c.packet_threshold.get(), c.time_threshold), (3, 1.125));
        assert!(toml::from_str::<SenderConfig>("pacng = true").is_err());
    }
}
