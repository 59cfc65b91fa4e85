//! The TCP throughput equation of TFRC (RFC 5348 §3.1) and its inverse, which seeds the loss
//! history after the first loss event (RFC 5348 §6.3.1).
//! <https://www.rfc-editor.org/rfc/rfc5348#section-3.1>

use crate::time::Dur;

/// `f(p)` of RFC 5348 §3.1 with `b = 1` and `t_RTO = 4·R`, so that `X_Bps = s / (R·f(p))`:
/// `f(p) = sqrt(2p/3) + 12·sqrt(3p/8)·p·(1 + 32p²)`.
pub fn f(p: f64) -> f64 {
    // RFC 5348 §3.1: R·sqrt(2bp/3) + t_RTO·(3·sqrt(3bp/8))·p·(1+32p²), divided by R.
    (2.0 * p / 3.0).sqrt() + 12.0 * (3.0 * p / 8.0).sqrt() * p * (1.0 + 32.0 * p * p)
}

/// Allowed rate `X_Bps` in bytes/s for segment size `s_bytes`, round-trip time `rtt` and loss
/// event rate `p` in (0, 1] (RFC 5348 §3.1). `p = 0` gives infinity.
pub fn throughput(s_bytes: f64, rtt: Dur, p: f64) -> f64 {
    s_bytes / (rtt.as_secs_f64() * f(p))
}

/// The loss event rate `p` at which `throughput(s_bytes, rtt, p) = x_bytes_per_sec`, in (0, 1]
/// (RFC 5348 §6.3.1). Rates below what `p = 1` allows give 1.
pub fn loss_rate_for(s_bytes: f64, rtt: Dur, x_bytes_per_sec: f64) -> f64 {
    let target = s_bytes / (rtt.as_secs_f64() * x_bytes_per_sec);
    if target.is_nan() || target >= f(1.0) {
        return 1.0;
    }
    // f is increasing on (0, 1]: bisect on a log scale, since useful p span many decades.
    let (mut lo, mut hi) = (1e-15_f64, 1.0_f64);
    for _ in 0..128 {
        let mid = (lo * hi).sqrt();
        if f(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    #[test]
    fn equation_matches_hand_computed_values() {
        // s = 1460 B, R = 100 ms, p = 0.01:
        // sqrt(2p/3) = 0.081649658; 12·sqrt(3p/8)·p·(1+32p²) = 12·0.061237244·0.01·1.0032 = 0.007371984
        // f = 0.089021642, X = 1460 / (0.1 · 0.089021642) = 164005.06 B/s.
        assert!(close(f(0.01), 0.089021642, 1e-8));
        assert!(close(throughput(1460.0, Dur::from_millis(100), 0.01), 164_005.06, 1e-7));
        // s = 1000 B, R = 50 ms, p = 0.1: sqrt(0.0666667) = 0.258198890;
        // 12·sqrt(0.0375)·0.1·1.32 = 12·0.193649167·0.132 = 0.306740281; X = 1000/(0.05·0.564939171).
        assert!(close(throughput(1000.0, Dur::from_millis(50), 0.1), 35_402.04, 1e-6));
    }

    #[test]
    fn equation_inverse_round_trips() {
        for &p in &[1e-6, 1e-4, 0.01, 0.2, 0.9] {
            let x = throughput(1460.0, Dur::from_millis(40), p);
            assert!(
                close(loss_rate_for(1460.0, Dur::from_millis(40), x), p, 1e-9),
                "p = {p}"
            );
        }
    }

    #[test]
    fn equation_inverse_of_half_segment_per_rtt_is_twenty_percent() {
        // X = s/(2R) means f(p) = 2: p = 0.2064 (the figure Linux quotes for rfc3448bis §6.3.1).
        let p = loss_rate_for(100.0, Dur::from_millis(10), 100.0 / 0.02);
        assert!(close(f(p), 2.0, 1e-12));
        assert!((p - 0.20643).abs() < 1e-5, "{p}");
        // Below the rate p = 1 allows, the inverse saturates at 1.
        assert_eq!(loss_rate_for(100.0, Dur::from_millis(10), 1.0), 1.0);
    }
}
