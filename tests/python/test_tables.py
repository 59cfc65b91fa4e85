"""Summary-table number formatting."""

from cclab.cli._tables import fmt_bytes, fmt_pct, fmt_rate, fmt_secs


def test_rates_use_si_prefixes():
    assert fmt_rate(12.34e6) == "12.3 Mbit/s"
    assert fmt_rate(1e9) == "1 Gbit/s"
    assert fmt_rate(999.0) == "999 bit/s"
    assert fmt_rate(None) == "—"


def test_durations_pick_a_readable_unit():
    assert fmt_secs(0.0205) == "20.5 ms"
    assert fmt_secs(1.25) == "1.25 s"
    assert fmt_secs(85e-6) == "85 µs"
    assert fmt_secs(None) == "—"


def test_sizes_and_fractions():
    assert fmt_bytes(64_200) == "64.2 kB"
    assert fmt_bytes(1500) == "1.5 kB"
    assert fmt_bytes(999) == "999 B"
    assert fmt_pct(0.971) == "97.1 %"
