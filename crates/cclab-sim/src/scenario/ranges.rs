//! Range checks of the endpoint parameters a flow sets (`[flow.cc]`, `[flow.sender]`, `[flow.receiver]`), of its
//! source's write rate, and of the receiver host's socket buffer against the flows' packets.
//!
//! Serde checks types only, so a NaN gain, a window of 0 bytes or a CUBIC `beta` of 2 used to run and give
//! a result the model never meant: a flow that sends nothing for the whole run, a window that grows on loss.
//! Each check here names the key (relative to the flow) and the range it expects; the ranges are what the
//! formulas the parameters enter need, not the RFCs' recommendations.

use cclab_core::ack::frequency_sender::AckFrequencySenderConfig;
use cclab_core::cc::cubic::picoquic::PicoquicCubicConfig;
use cclab_core::cc::slow_start::SlowStartConfig;
use cclab_core::cc::{Bbr3Config, BbrConfig, CcConfig, CubicConfig, NewRenoConfig};
use cclab_core::endpoint::receiver::ReceiverConfig;
use cclab_core::endpoint::sender::{SenderConfig, TsoConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::units::Bytes;

use super::schema::ScenarioFile;

/// A failed check: (key relative to the flow, what was expected and what was given).
type Check = Result<(), (String, String)>;

/// Checks a flow's controller, sender and receiver parameters; `mss` is the payload of its full-sized packet.
pub(super) fn check_endpoints(
    cc: Option<&CcConfig>,
    sender: Option<&SenderConfig>,
    receiver: Option<&ReceiverConfig>,
    mss: u64,
) -> Check {
    if let Some(cc) = cc {
        check_cc(cc, mss)?;
    }
    if let Some(s) = sender {
        positive("sender.pacing.gain", s.pacing.gain)?;
        positive("sender.time_threshold", s.time_threshold)?;
        window("sender.receive_window", s.receive_window, mss, RWND_WHY)?;
        if let Some(af) = &s.ack_frequency {
            ack_frequency(af)?;
        }
        tso(&s.tso)?;
    }
    if let Some(r) = receiver {
        window("receiver.receive_window", r.receive_window, mss, RWND_WHY)?;
    }
    Ok(())
}

/// A CBR source writes `packet_size` bytes every `packet_size·8/rate`, and the sender is woken for each write in
/// whole nanoseconds: a shorter interval woke it every nanosecond (1-byte writes at 100 Gbit/s: 3.8 s of CPU
/// per 20 simulated ms). As for cross traffic (`link/cross.rs`), the interval must be 1 ns or more.
/// A bulk source writes once; an empty CBR write writes nothing at all.
pub(super) fn check_source(source: &SourceConfig) -> Check {
    let SourceConfig::Cbr { packet_size, rate, .. } = source else {
        return Ok(());
    };
    let fastest = u128::from(packet_size.0) * 8 * 1_000_000_000;
    if packet_size.0 == 0 || u128::from(rate.bps()) <= fastest {
        return Ok(());
    }
    fail(
        "source.rate",
        format!(
            "expected at most {fastest} bit/s for {}B writes (one per nanosecond, the clock's tick), got {} bit/s; raise packet_size",
            packet_size.0,
            rate.bps()
        ),
    )
}

/// A receiver socket buffer smaller than one full data packet drops every one of them (the host model drops an
/// arrival that does not fit), so a bulk flow would deliver nothing for the whole run: refused, as 0 is.
pub(super) fn receiver_buffer_fits(file: &ScenarioFile) -> Result<(), (String, String)> {
    let Some(buffer) = file.hosts.receiver.socket_buffer else {
        return Ok(());
    };
    let bulk = file
        .flow
        .iter()
        .enumerate()
        .filter(|(_, f)| matches!(f.source, SourceConfig::Bulk { .. }));
    match bulk.map(|(i, f)| (i, u64::from(f.wire_profile().mss()))).max_by_key(|&(_, mss)| mss) {
        Some((i, mss)) if buffer.0 < mss => Err((
            "hosts.receiver.socket_buffer".into(),
            format!(
                "expected at least one full data packet, more than {mss}B for flow[{i}]'s profile (a smaller buffer drops every one), got {}B",
                buffer.0
            ),
        )),
        _ => Ok(()),
    }
}

/// Why a flow-control window must hold one full packet: the sender sends new data in full chunks only.
const RWND_WHY: &str = "the sender sends new data only in full packets, so a smaller credit never lets one out";
/// Why a congestion window must hold one full packet.
const CWND_WHY: &str = "a smaller window never lets a full packet out";

/// The ACK-frequency sender's gap bounds (draft-ietf-quic-ack-frequency §8: the requested threshold is the
/// window's packets over `gap_divisor`, kept within `min_gap` and `max_gap`): a `max_gap` below `min_gap` was
/// overruled by it. Its divisors, `min_gap` and `gap_cap` are nonzero types in the core.
fn ack_frequency(af: &AckFrequencySenderConfig) -> Check {
    match af.max_gap {
        Some(max) if max < af.min_gap.get() => fail(
            "sender.ack_frequency.max_gap",
            format!("expected at least min_gap ({}), got {max}", af.min_gap),
        ),
        _ => Ok(()),
    }
}

/// Linux's TSO parameters within the ranges the kernel takes (kernel mode writes three of them as sysctls): a
/// device GSO size with room for one segment after `MAX_TCP_HEADER` and at most BIG TCP's 512 KiB, at least one
/// segment per aggregate and at most `gso_max_segs` (65,535), a divisor within a C int, a shift within a u8.
fn tso(t: &TsoConfig) -> Check {
    let (lo, hi) = (TsoConfig::MIN_GSO_MAX_SIZE, TsoConfig::MAX_GSO_MAX_SIZE);
    within("sender.tso.gso_max_size", t.gso_max_size, lo, hi)?;
    within("sender.tso.min_segs", t.min_segs.get(), 1, 65_535)?;
    within("sender.tso.win_divisor", t.win_divisor, 0, i32::MAX as u64)?;
    within("sender.tso.rtt_log", u64::from(t.rtt_log), 0, u64::from(u8::MAX))
}

fn check_cc(cc: &CcConfig, mss: u64) -> Check {
    match cc {
        CcConfig::NewReno(c) => new_reno(c, mss),
        CcConfig::Cubic(c) => cubic(c, mss),
        CcConfig::CubicPicoquic(c) => picoquic(c, mss),
        CcConfig::Bbr(c) => bbr(c),
        CcConfig::Bbr3(c) => bbr3(c),
        CcConfig::Dctcp(c) => {
            window("cc.initial_window", c.initial_window, mss, CWND_WHY)?;
            fraction("cc.gain", c.gain, false)?;
            unit_interval("cc.initial_alpha", c.initial_alpha)
        }
        CcConfig::Prague(c) => {
            window("cc.initial_window", c.initial_window, mss, CWND_WHY)?;
            fraction("cc.gain", c.gain, false)?;
            unit_interval("cc.initial_alpha", c.initial_alpha)
        }
    }
}

/// RFC 9002 §7.3.2: `ssthresh = cwnd · kLossReductionFactor`, a reduction.
fn new_reno(c: &NewRenoConfig, mss: u64) -> Check {
    window("cc.initial_window", c.initial_window, mss, CWND_WHY)?;
    window("cc.minimum_window", c.minimum_window, mss, CWND_WHY)?;
    fraction("cc.loss_reduction_factor", c.loss_reduction_factor, false)?;
    slow_start(&c.slow_start)
}

/// RFC 9438 §4.6 `cwnd = cwnd · β_cubic` (a reduction) and §4.2 `K = ∛(W_max·(1−β)/C)` (C > 0, finite).
fn cubic(c: &CubicConfig, mss: u64) -> Check {
    window("cc.initial_window", c.initial_window, mss, CWND_WHY)?;
    fraction("cc.beta", c.beta, false)?;
    positive("cc.c", c.c)?;
    slow_start(&c.slow_start)
}

/// picoquic's cubic.c: the same β and C, and a loss share in [0, 1].
fn picoquic(c: &PicoquicCubicConfig, mss: u64) -> Check {
    window("cc.initial_window", c.initial_window, mss, CWND_WHY)?;
    fraction("cc.beta", c.beta, false)?;
    positive("cc.c", c.c)?;
    unit_interval("cc.loss_threshold", c.loss_threshold)?;
    slow_start(&c.slow_start)
}

/// `cc.slow_start`. Only the train slow start has parameters a formula can break: HyStart++ has only
/// `paced` (RFC 9406 §4.3 fixes its constants), picoquic's exit has none, and Linux HyStart's `low_window = 0`
/// (test from the first ACK) and `ack_delta = 0` (a train of simultaneous ACKs only) are `tcp_cubic.c`'s to run.
fn slow_start(s: &SlowStartConfig) -> Check {
    let SlowStartConfig::Train(t) = s else {
        return Ok(());
    };
    // train_ss.rs: cwnd = max(cwnd, bdp_gain · peak · min_rtt). At 0 or below it never jumps (classic slow start
    // under another name); NaN used to jump straight to ssthresh, as `f64::min` drops a NaN.
    positive("cc.slow_start.bdp_gain", t.bdp_gain)?;
    // The jump is capped at `cwnd · max_jump_factor`: at 1 or below no jump can raise cwnd; NaN meant no cap.
    if let Some(f) = t.max_jump_factor {
        if !(f.is_finite() && f > 1.0) {
            let why = "at or below 1 no jump can raise the window";
            return fail(
                "cc.slow_start.max_jump_factor",
                format!("expected a finite number above 1 ({why}), got {f}"),
            );
        }
    }
    // A train of 0 packets shows no rate: the pause on a failed estimate would wait for nothing.
    at_least_one("cc.slow_start.min_train_packets", t.min_train_packets)
}

/// draft-cardwell-iccrg-bbr-congestion-control-00: gains multiply BtlBw·RTprop; filters need a window.
fn bbr(c: &BbrConfig) -> Check {
    at_least_one("cc.initial_window_packets", c.initial_window_packets)?;
    at_least_one("cc.btl_bw_filter_rounds", c.btl_bw_filter_rounds)?;
    at_least_one("cc.extra_acked_window_rounds", c.extra_acked_window_rounds)?;
    positive("cc.high_gain", c.high_gain)?;
    positive("cc.probe_bw_cwnd_gain", c.probe_bw_cwnd_gain)?;
    non_negative("cc.extra_acked_gain", c.extra_acked_gain)
}

/// draft-ietf-ccwg-bbr §5.1 (gains), §5.5.10.3 (`beta`, `loss_thresh`), §5.5.6 (`headroom`), Linux v3 (ECN).
fn bbr3(c: &Bbr3Config) -> Check {
    at_least_one("cc.initial_window_packets", c.initial_window_packets)?;
    at_least_one("cc.extra_acked_window_rounds", c.extra_acked_window_rounds)?;
    for (key, gain) in [
        ("cc.startup_pacing_gain", c.startup_pacing_gain),
        ("cc.startup_cwnd_gain", c.startup_cwnd_gain),
        ("cc.drain_pacing_gain", c.drain_pacing_gain),
        ("cc.probe_bw_down_pacing_gain", c.probe_bw_down_pacing_gain),
        ("cc.probe_bw_up_pacing_gain", c.probe_bw_up_pacing_gain),
        ("cc.cwnd_gain", c.cwnd_gain),
        ("cc.probe_bw_up_cwnd_gain", c.probe_bw_up_cwnd_gain),
        ("cc.probe_rtt_cwnd_gain", c.probe_rtt_cwnd_gain),
    ] {
        positive(key, gain)?;
    }
    fraction("cc.beta", c.beta, false)?;
    // §5.3.3.8: probe once the rounds since the last probe reach min(BDP in packets, bw_probe_max_rounds);
    // 0 makes every round a probe time: ProbeBW would start a probe from each Down or Cruise check.
    at_least_one("cc.bw_probe_max_rounds", c.bw_probe_max_rounds)?;
    for (key, share) in [
        ("cc.loss_thresh", c.loss_thresh),
        ("cc.headroom", c.headroom),
        ("cc.pacing_margin", c.pacing_margin),
        ("cc.ecn_alpha_gain", c.ecn_alpha_gain),
        ("cc.ecn_factor", c.ecn_factor),
        ("cc.ecn_thresh", c.ecn_thresh),
    ] {
        unit_interval(key, share)?;
    }
    Ok(())
}

fn fail(key: &str, msg: String) -> Check {
    Err((key.to_string(), msg))
}

/// A finite value above 0.
fn positive(key: &str, v: f64) -> Check {
    if v.is_finite() && v > 0.0 {
        return Ok(());
    }
    fail(key, format!("expected a finite number above 0, got {v}"))
}

/// A finite value of at least 0.
fn non_negative(key: &str, v: f64) -> Check {
    if v.is_finite() && v >= 0.0 {
        return Ok(());
    }
    fail(key, format!("expected a finite number of at least 0, got {v}"))
}

/// A factor in (0, 1] (or [0, 1] with `zero`): a multiplicative decrease or a gain of an EWMA.
fn fraction(key: &str, v: f64, zero: bool) -> Check {
    if (v > 0.0 || zero && v == 0.0) && v <= 1.0 {
        return Ok(());
    }
    let low = if zero { "[0" } else { "(0" };
    fail(key, format!("expected a number in {low}, 1], got {v}"))
}

/// A share in [0, 1].
fn unit_interval(key: &str, v: f64) -> Check {
    fraction(key, v, true)
}

/// An integer in `lo..=hi`.
fn within(key: &str, v: u64, lo: u64, hi: u64) -> Check {
    if (lo..=hi).contains(&v) {
        return Ok(());
    }
    fail(key, format!("expected an integer from {lo} to {hi}, got {v}"))
}

fn at_least_one(key: &str, v: u64) -> Check {
    if v >= 1 {
        return Ok(());
    }
    fail(key, "expected at least 1, got 0".into())
}

/// A window in bytes, when set, of at least one full packet's payload (`mss`).
fn window(key: &str, v: Option<Bytes>, mss: u64, why: &str) -> Check {
    match v {
        Some(Bytes(b)) if b < mss => fail(
            key,
            format!("expected at least one full packet, {mss}B for this flow's profile ({why}), got {b}B"),
        ),
        _ => Ok(()),
    }
}
