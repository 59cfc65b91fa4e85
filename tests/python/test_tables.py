"""Summary-table number formatting."""

from cclab.cli._tables import fmt_bytes, fmt_pct, fmt_rate, fmt_secs


def test_rates_use_si_prefixes():
    assert fmt_rate(12.34e6) == "12.3 Mbit/s"
    assert fmt_rate(1e9) == "1 Gbit/s"
    assert fmt_rate(999.0) == "999 bit/s"
    assert fmt_rate(1e12) == "1 Tbit/s"  # was "1e+03 Gbit/s"
    assert fmt_rate(None) == "—"


def test_durations_pick_a_readable_unit():
    assert fmt_secs(0.0205) == "20.5 ms"
    assert fmt_secs(1.25) == "1.25 s"
    assert fmt_secs(85e-6) == "85 µs"
    assert (fmt_secs(36000.0), fmt_secs(600.0)) == ("10 h", "600 s")  # was "3.6e+04 s"
    assert fmt_secs(None) == "—"


def test_sizes_and_fractions():
    assert fmt_bytes(64_200) == "64.2 kB"
    assert fmt_bytes(1500) == "1.5 kB"
    assert fmt_bytes(999) == "999 B"
    assert fmt_bytes(2e12) == "2 TB"  # was "2e+03 GB"
    assert fmt_pct(0.971) == "97.1 %"


def _flow(i: int, goodput: float, done: bool) -> dict:
    return {
        "flow": i,
        "goodput_bps": goodput,
        "completion_time_s": 2.0 + i if done else None,
        "loss_rate": 0.01,
        "ack_interval_mean_s": 1e-3,
        "srtt_s": 0.02,
        "cwnd_max_bytes": 15000,
    }


def test_a_few_flows_get_a_row_each():
    from cclab.cli._tables import flow_table

    rows = flow_table([_flow(i, 1e6 * (i + 1), i != 1) for i in range(3)]).rows
    assert [r[0] for r in rows] == ["0", "1", "2"]
    assert rows[1][2] == "incomplete"


def test_many_flows_show_the_first_and_the_spread_over_all():
    from cclab.cli._tables import flow_table
    from cclab.many_flows import SHOWN_FLOWS

    flows = [_flow(i, 1e6 * (i + 1), i % 2 == 0) for i in range(1000)]
    table = flow_table(flows)
    rows = table.rows
    assert [r[0] for r in rows[:SHOWN_FLOWS]] == [str(i) for i in range(SHOWN_FLOWS)]
    assert rows[SHOWN_FLOWS][0] == "… 990 more"
    by_label = {r[0]: r for r in rows[SHOWN_FLOWS + 1 :]}
    # Goodputs are 1..1000 Mbit/s over all flows, not only the ones shown.
    assert by_label["min"][1] == "1 Mbit/s"
    assert by_label["median"][1] == "500 Mbit/s"
    assert by_label["max"][1] == "1 Gbit/s"
    # Completion spreads over the 500 flows that completed (even indices: 2 s + i).
    assert by_label["max"][2] == "1e+03 s"
    assert table.caption == "min, median, max over all 1000 flows (500 complete); summary.json has every flow"


def test_a_real_run_says_what_the_emulator_gave():
    # A real run of a 1 Tbit/s path printed only a 0.02 % utilisation; the emulator's own figures were in
    # summary.json alone. Now the run's output carries them.
    from cclab.cli._tables import summary_tables

    em = {"packets": 82576, "late_packets": 2200, "late_threshold_s": 5e-5, "release_error_p50_s": 1.2e-5}
    em |= {"release_error_p99_s": 7.8e-5, "release_error_max_s": 6.06e-3}
    link = {"name": "path.forward", "direction": "forward", "utilisation": 0.0002, "drops": 0}
    link |= {"configured_rate_bps": 1e12, "achieved_rate_bps": 8.32e9}
    text = "\n".join(map(str, summary_tables({"flows": [], "links": [link], "emulator": em})))
    assert "emulator 82,576 packets" in text and ": 2,200 (2.7%)" in text, text
    assert "path.forward 8.32 Gbit/s achieved of 1 Tbit/s" in text, text
    assert "emulator" not in "\n".join(map(str, summary_tables({"flows": [], "links": [link]})))
