"""The Rust JSON-SEQ reader (``cclab._core.read_qlog_seq``) against the Python reader, its reference.

Every table must be the same array (dtype and bytes: NaN and -0.0 included) on every JSON-SEQ fixture and on
traces of short runs that exercise each event the tables use; bad files must give an error naming the same
line from both; and whatever Rust leaves to Python (or finds bad), `read_qlog` reads exactly as Python does.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cclab
from cclab._core import QlogReadError, read_qlog_seq
from cclab.traces.qlog import QlogError, QlogTrace, _read_python, _read_rust, read_qlog, read_qlog_traces

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures"
SCENARIOS = ROOT / "scenarios"
TABLES = ("sent", "received", "metrics", "lost", "acked_after_loss", "ack_frequency", "acks")
FIELDS = ("vantage", "protocol", "schema", "params", "lost_triggers", "states", "event_counts")

#: name → (scenario, overrides, qlog format): short runs that between them write every event the tables read.
RUNS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "quic-droptail-loss": ("bulk-newreno.toml", ('scenario.duration="0.6s"',), "draft-02"),
    "quic-ietf": ("bulk-newreno.toml", ('scenario.duration="0.6s"',), "ietf"),
    "quic-random-loss": ("lossy-wireless.toml", ('scenario.duration="0.3s"',), "draft-02"),
    "quic-pto": (
        "lossy-wireless.toml",
        ('scenario.duration="0.5s"', 'path.forward.loss={model="gilbert-elliott", p=0.05, r=0.02}'),
        "draft-02",
    ),
    "quic-handshake-gzip": (
        "bulk-newreno.toml",
        ('scenario.duration="0.2s"', "flow[0].handshake=true", 'output.qlog_compression="gzip"'),
        "draft-02",
    ),
    "tcp-handshake": (
        "bulk-newreno.toml",
        ('scenario.duration="0.3s"', 'flow[0].profile="tcp"', "flow[0].handshake=true"),
        "draft-02",
    ),
    "l4s-ecn": ("l4s-dualpi2-prague-cubic.toml", ('scenario.duration="0.2s"',), "ietf"),
    "ack-frequency": ("seeds/seed-000-loopback-ack-gap.toml", ('scenario.duration="20ms"',), "ietf"),
    "dccp-nofeedback": ("seeds/seed-004-loopback.toml", ('scenario.duration="3s"',), "draft-02"),
}


def assert_same(a: QlogTrace, b: QlogTrace) -> None:
    """Every table of `a` is `b`'s: same columns, dtype and bytes; the other fields equal."""
    for name in FIELDS:
        assert getattr(a, name) == getattr(b, name), name
    assert list(a.event_counts) == list(b.event_counts)  # same order of first appearance
    for name in TABLES:
        ta, tb = getattr(a, name), getattr(b, name)
        assert list(ta) == list(tb), name
        for col in ta:
            assert ta[col].dtype == tb[col].dtype == np.float64, (name, col)
            assert ta[col].tobytes() == tb[col].tobytes(), (name, col)
            assert np.array_equal(ta[col], tb[col], equal_nan=True)
    for name in ("pto_expired_s", "nofeedback_expired_s"):
        va, vb = getattr(a, name), getattr(b, name)
        assert va.dtype == vb.dtype and va.tobytes() == vb.tobytes(), name


def rust(path: Path, rtt_unit_s: float | None = None) -> QlogTrace:
    trace = _read_rust(path, rtt_unit_s)
    assert trace is not None, f"the Rust reader declined {path}"
    return trace


@pytest.fixture(scope="module")
def run_traces(tmp_path_factory) -> dict[str, list[Path]]:
    out = tmp_path_factory.mktemp("qlog-rust")
    traces = {}
    for name, (scenario, overrides, fmt) in RUNS.items():
        cclab.run(cclab.load(SCENARIOS / scenario, set=list(overrides)), out=out / name, qlog=fmt)
        traces[name] = sorted((out / name).glob("*.sqlog*"))
        assert len(traces[name]) >= 2, name
    return traces


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*/*.sqlog")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_rust_reader_matches_python_on_fixtures(path):
    assert_same(rust(path), _read_python(path, None))
    assert_same(rust(path, 1e-3), _read_python(path, 1e-3))


@pytest.mark.parametrize("name", sorted(RUNS))
def test_rust_reader_matches_python_on_runs(run_traces, name):
    for path in run_traces[name]:
        a, b = rust(path), _read_python(path, None)
        assert_same(a, b)
        assert sum(a.event_counts.values()) > 20


def test_runs_cover_every_table(run_traces):
    """The differential test above is only as good as what the runs write: each table must have rows somewhere."""
    seen: dict[str, int] = {}
    for paths in run_traces.values():
        for path in paths:
            t = rust(path)
            for name in TABLES:
                seen[name] = seen.get(name, 0) + len(next(iter(getattr(t, name).values())))
            seen["pto"] = seen.get("pto", 0) + len(t.pto_expired_s)
            seen["nofeedback"] = seen.get("nofeedback", 0) + len(t.nofeedback_expired_s)
            seen["states"] = seen.get("states", 0) + len(t.states)
            seen["params"] = seen.get("params", 0) + len(t.params)
            seen["gzip"] = seen.get("gzip", 0) + path.name.endswith(".gz")
    assert all(seen.values()), seen


def test_read_qlog_uses_rust_for_json_seq_and_python_for_documents():
    seq = FIXTURES / "quinn-cubic" / "server.sqlog"
    assert read_qlog_seq(seq) is not None
    assert read_qlog_seq(FIXTURES / "picoquic-cubic" / "server.qlog") is None
    (trace,) = read_qlog_traces(seq)
    assert_same(trace, _read_python(seq, None))
    assert_same(read_qlog(seq), trace)


def _base_records(tmp_path: Path) -> list[str]:
    """A small trace's records (header first), for the hand-cut files below."""
    return [
        json.dumps({"qlog_version": "0.3", "trace": {"vantage_point": {"type": "client"}}}),
        json.dumps({"time": 0.5, "name": "transport:packet_sent", "data": {"header": {"packet_number": 0}}}),
        json.dumps({"time": 1.0, "name": "recovery:metrics_updated", "data": {"smoothed_rtt": 20.0}}),
        json.dumps({"time": 1.5, "name": "transport:packet_sent", "data": {"header": {"packet_number": 1}}}),
    ]


def _write(path: Path, records: list[str], end: str = "\n") -> Path:
    path.write_text("".join("\x1e" + r + "\n" for r in records[:-1]) + "\x1e" + records[-1] + end)
    return path


#: name → (edit of the base records, the line the error names).
BAD: dict[str, tuple[Any, int]] = {
    "truncated": (lambda r: [*r[:3], r[3][:20]], 4),
    "bad-json": (lambda r: [*r[:2], r[2].replace(":", ";", 1), *r[3:]], 3),
    "not-an-object": (lambda r: [*r, "[1, 2]"], 5),
    "no-name-or-time": (lambda r: [*r, '{"name": "x", "time": "1"}'], 5),
    "frames-a-number": (lambda r: [*r, '{"time": 2, "name": "packet_sent", "data": {"frames": 5}}'], 5),
    "ranges-a-number": (
        lambda r: [
            *r,
            '{"time": 2, "name": "packet_received", "data": {"frames": [{"frame_type": "ack", "acked_ranges": 3}]}}',
        ],
        5,
    ),
    "frame-type-a-list": (
        lambda r: [*r, '{"time": 2, "name": "packet_sent", "data": {"frames": [{"frame_type": []}]}}'],
        5,
    ),
    "huge-packet-number": (
        lambda r: [*r, '{"time": 2, "name": "packet_sent", "data": {"header": {"packet_number": 1e400}}}'],
        5,
    ),
    "huge-integer-time": (lambda r: [*r, '{"time": 1' + "0" * 400 + ', "name": "x"}'], 5),
    "header-only": (lambda r: r[:1], None),
    "no-header": (lambda r: r[1:], 1),
    "empty-seq": (lambda r: [""], 1),
    "nested-too-deep": (lambda r: [*r, '{"time": 2, "name": "x", "data": ' + "[" * 5000 + "]" * 5000 + "}"], 5),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_names_the_line_from_both_readers(tmp_path, case):
    edit, line = BAD[case]
    path = _write(tmp_path / "bad.sqlog", edit(_base_records(tmp_path)), end="" if case == "truncated" else "\n")
    where = re.escape(str(path)) + (f":{line}: " if line else ": ")
    with pytest.raises(QlogError, match=where):
        _read_python(path, None)
    with pytest.raises(QlogReadError, match=where):
        read_qlog_seq(path)
    with pytest.raises(QlogError, match=where):
        read_qlog(path)  # Rust declines, Python reports


def test_empty_and_non_seq_files_are_left_to_python(tmp_path):
    for text in ("", "  \n", "hello\n"):
        path = tmp_path / "x.sqlog"
        path.write_text(text)
        assert read_qlog_seq(path) is None
        with pytest.raises(QlogError, match=re.escape(str(path)) + ":1: not a qlog file"):
            read_qlog(path)
    missing = tmp_path / "missing.sqlog"
    with pytest.raises(QlogReadError, match=re.escape(str(missing))):
        read_qlog_seq(missing)
    with pytest.raises(QlogError, match=re.escape(str(missing))):
        read_qlog(missing)


def test_truncated_gzip_is_an_error_from_both(tmp_path, run_traces):
    gz = next(p for p in run_traces["quic-handshake-gzip"] if p.name == "trace.sqlog.gz")
    cut = tmp_path / "cut.sqlog.gz"
    data = gz.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(QlogReadError, match=re.escape(str(cut))):
        read_qlog_seq(cut)
    with pytest.raises(QlogError, match=re.escape(str(cut))):
        read_qlog(cut)


#: Records the Rust reader leaves to Python (what Python makes of them needs more than the JSON value says),
#: or finds bad where Python's json is lenient: read_qlog must give exactly Python's tables.
LEFT_TO_PYTHON = {
    "nan-literal": '{"time": 2, "name": "metrics_updated", "data": {"congestion_window": NaN}}',
    "infinite-time": '{"time": 1e400, "name": "x"}',
    "float-trigger": '{"time": 2, "name": "packet_lost", "data": {"header": {"packet_number": 0}, "trigger": 1.5}}',
    "lone-surrogate": '{"time": 2, "name": "congestion_state_updated", "data": {"new": "\\ud800"}}',
    "nested-200": '{"time": 2, "name": "x", "data": ' + "[" * 200 + "]" * 200 + "}",
    "numeric-category": '{"time": 2, "category": 1.5, "event": "x"}',
}


@pytest.mark.parametrize("case", sorted(LEFT_TO_PYTHON))
def test_records_rust_leaves_to_python_read_as_python_reads_them(tmp_path, case):
    path = _write(tmp_path / "odd.sqlog", [*_base_records(tmp_path), LEFT_TO_PYTHON[case]])
    with pytest.raises(QlogReadError, match=re.escape(str(path)) + ":5: "):
        read_qlog_seq(path)
    assert_same(read_qlog(path), _read_python(path, None))


#: Numbers whose Python value takes care: the integer -0 is 0 (not -0.0), -0.0 stays negative, integers beyond
#: 64 bits round to the nearest double, decimals round correctly, underflow gives zero.
EDGE_NUMBERS = {
    "integer-minus-zero": '{"time": -0, "name": "packet_sent", "data": {"header": {"packet_number": -0}}}',
    "float-minus-zero": '{"time": -0.0, "name": "packet_sent", "data": {"header": {"packet_number": -0.0}, '
    '"raw": {"length": -0.0}}}',
    "beyond-64-bits": '{"time": 18446744073709553665, "name": "metrics_updated", "data": {"congestion_window": '
    '-9223372036854775809, "ssthresh": 123456789012345678901234567890}}',
    "long-decimals": '{"time": 0.1000000000000000055511151231257827021181583404541015625, "name": '
    '"metrics_updated", "data": {"smoothed_rtt": 2.2250738585072011e-308, "min_rtt": 1e-400, "latest_rtt": 3.3e1}}',
}


@pytest.mark.parametrize("case", sorted(EDGE_NUMBERS))
def test_edge_numbers_read_as_python_reads_them(tmp_path, case):
    path = _write(tmp_path / "edge.sqlog", [*_base_records(tmp_path), EDGE_NUMBERS[case]])
    assert_same(rust(path), _read_python(path, None))


#: Values a mutation puts in place of a field: every JSON type, edge numbers, the strings the reader tests for.
VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1,
    175,
    2.5,
    -0.5,
    1e300,
    2**64 + 1,
    2**70,
    0.333,
    "",
    "x",
    "1RTT",
    "initial",
    "ack",
    "stream",
    "padding",
    "ping",
    "unknown",
    "expired",
    "pto",
    "nofeedback",
    "pto_expired",
    [],
    [1],
    [3, 1],
    [[0, 5]],
    [[5, 0]],
    [[2]],
    {},
    {"packet_number": 3},
    [{"frame_type": "ack", "acked_ranges": [[0, 9]]}],
]


def _mutate(rng: random.Random, records: list[str]) -> list[str]:
    """One record's value somewhere in it replaced, or a key dropped: mostly in an event's data, now and then
    its name or time, or the header."""
    out = list(records)
    i = rng.randrange(len(out))
    obj = json.loads(out[i])
    node: Any = obj["data"] if i and isinstance(obj.get("data"), dict) and rng.random() < 0.9 else obj
    for _ in range(rng.randrange(1, 6)):
        if isinstance(node, dict) and node:
            key = rng.choice(list(node))
            if rng.random() < 0.35 or not isinstance(node[key], dict | list) or not node[key]:
                if rng.random() < 0.2:
                    del node[key]
                else:
                    node[key] = rng.choice(VALUES)
                break
            node = node[key]
        elif isinstance(node, list) and node:
            j = rng.randrange(len(node))
            if rng.random() < 0.35 or not isinstance(node[j], dict | list) or not node[j]:
                node[j] = rng.choice(VALUES)
                break
            node = node[j]
        else:
            break
    out[i] = json.dumps(obj)
    return out


def test_mutated_traces_read_as_python_reads_them(tmp_path, run_traces):
    """Seeded mutations of a real trace: Rust gives Python's tables, or declines and Python's answer stands;
    an error from Python is an error from Rust; nothing else is ever raised."""
    source = next(p for p in run_traces["quic-droptail-loss"] if p.name == "trace.sqlog")
    records = [r.strip() for r in source.read_text().split("\x1e") if r.strip()][:120]
    rng = random.Random(15)
    read, declined = 0, 0
    for n in range(600):
        path = _write(tmp_path / f"m{n % 4}.sqlog", _mutate(rng, _mutate(rng, records)))
        try:
            expected: QlogTrace | None = _read_python(path, None)
        except QlogError:
            expected = None
        try:
            got = read_qlog_seq(path)
        except QlogReadError:
            declined += 1
            got = None
        if got is not None:
            assert expected is not None, path.read_text()
            assert_same(rust(path), expected)
            read += 1
        if expected is not None:
            assert_same(read_qlog(path), expected)
    assert read > 300  # most mutations stay readable in Rust; the rest exercise the hand-over
    assert declined > 20


def _out_of_order_records(n: int) -> list[str]:
    """A hostile trace: `n` packets sent, all declared lost in descending order, then one ACK frame of `n`
    single-packet ranges from the middle outwards. Sorted lists made each loss and each range O(n)."""
    records = [json.dumps({"qlog_version": "0.3", "trace": {"vantage_point": {"type": "client"}}})]
    sent = (
        '{"time": %d, "name": "transport:packet_sent", '
        '"data": {"header": {"packet_number": %d}, "raw": {"length": 1200}}}'
    )
    lost = '{"time": %d, "name": "recovery:packet_lost", "data": {"header": {"packet_number": %d}}}'
    records += [sent % (pn, pn) for pn in range(n)]
    records += [lost % (n + k, n - 1 - k) for k in range(n)]
    ranges = [[(n // 2 + k) % n] * 2 for k in range(n)]
    ack = {"frame_type": "ack", "acked_ranges": ranges}
    records.append(json.dumps({"time": 2 * n, "name": "transport:packet_received", "data": {"frames": [ack]}}))
    return records


def test_out_of_order_losses_and_acks_read_in_n_log_n(tmp_path):
    # 200,000 of each: the sorted lists took minutes here (see docs/doctor.md); no timing is asserted.
    n = 200_000
    path = _write(tmp_path / "hostile.sqlog", _out_of_order_records(n))
    expected = _read_python(path, None)
    assert_same(rust(path), expected)
    assert len(expected.lost["pn"]) == len(expected.acked_after_loss["pn"]) == n
    order = [(n // 2 + k) % n for k in range(n)]
    assert expected.acked_after_loss["pn"].tolist() == order
    assert expected.acks["newly_acked"].tolist() == [n]
    assert expected.acks["newly_acked_bytes"].tolist() == [1200.0 * n]
    assert expected.acks["largest_pn"].tolist() == [n - 1]
    assert expected.acks["largest_sent_s"].tolist() == [expected.sent["time_s"][-1]]
