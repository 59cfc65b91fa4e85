"""A malformed or truncated trace or run gives a clear error naming the file and line, never a traceback."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

import cclab
from cclab.traces.qlog import QlogError, read_qlog
from conftest import assert_clean_error

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture(scope="module")
def sim_trace(tmp_path_factory) -> Path:
    """A short simulated run's sender trace (JSON-SEQ, qlog 0.3)."""
    out = tmp_path_factory.mktemp("doctor-err")
    sc = cclab.load(
        Path(__file__).resolve().parents[3] / "scenarios" / "bulk-newreno.toml", set=['scenario.duration="0.2s"']
    )
    cclab.run(sc, out=out, qlog="draft-02")
    return out / "trace.sqlog"


def _lines(path: Path) -> list[str]:
    """The file's lines split at newlines only (str.splitlines also splits at JSON-SEQ's RS)."""
    return path.read_text().split("\n")


def _cut(src: Path, dst: Path, lines: int, extra: str = "") -> Path:
    kept = [ln + "\n" for ln in _lines(src)[:lines]]
    dst.write_text("".join(kept) + extra)
    return dst


def test_truncated_json_seq_record_names_its_line(tmp_path, sim_trace):
    path = tmp_path / "cut.sqlog"
    text = _lines(sim_trace)
    # Keep 40 whole records and half of the 41st: the error is at line 41.
    path.write_text("\n".join(text[:40]) + "\n" + text[40][: len(text[40]) // 2])
    with pytest.raises(QlogError, match=r"cut\.sqlog:41: truncated record"):
        read_qlog(path)


def test_malformed_json_seq_record_names_its_line(tmp_path, sim_trace):
    lines = _lines(sim_trace)
    lines[9] = lines[9].replace('"time":', '"time"', 1)
    path = tmp_path / "bad.sqlog"
    path.write_text("\n".join(lines))
    with pytest.raises(QlogError, match=r"bad\.sqlog:10: malformed record"):
        read_qlog(path)


def test_truncated_json_document_names_its_line(tmp_path):
    path = _cut(FIXTURES / "picoquic-bbr" / "server.qlog", tmp_path / "cut.qlog", 200)
    with pytest.raises(QlogError, match=r"cut\.qlog:\d+: truncated"):
        read_qlog(path)


def test_malformed_json_document_event_names_its_line(tmp_path):
    lines = _lines(FIXTURES / "picoquic-bbr" / "server.qlog")
    n = next(i for i, ln in enumerate(lines) if i > 50 and ln.startswith("[") and ln.rstrip().endswith("],"))
    lines[n] = lines[n].replace(",", ";", 1)
    path = tmp_path / "bad.qlog"
    path.write_text("\n".join(lines))
    with pytest.raises(QlogError, match=rf"bad\.qlog:{n + 1}: malformed event"):
        read_qlog(path)


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("", "not a qlog file"),
        ("hello\n", "not a qlog file"),
        ("\x1e[1, 2]\n", "record is not a JSON object"),
        ('\x1e{"title": "x"}\n', "not a qlog header"),
        ('{"qlog_version": "0.3", "traces": []}', "without an 'events' array"),
        ('\x1e{"trace": {}}\n', "no qlog events"),
        ('\x1e{"trace": {}}\n\x1e{"name": "x"}\n', "without a name and a numeric time"),
    ],
)
def test_not_a_trace_gives_qlog_error(tmp_path, content, needle):
    path = tmp_path / "x.qlog"
    path.write_text(content)
    with pytest.raises(QlogError, match=needle):
        read_qlog(path)


def test_cli_reports_truncated_trace_without_traceback(tmp_path, sim_trace, cli):
    run = tmp_path / "run"
    shutil.copytree(sim_trace.parent, run)
    _cut(sim_trace, run / "trace.sqlog", 30, extra='\x1e{"time": 1.5, "na')
    assert_clean_error(cli("doctor", run), 2, "trace.sqlog:31: truncated record")


def test_cli_reports_malformed_summary_and_missing_path(tmp_path, cli):
    (tmp_path / "summary.json").write_text('{"flows": [')
    assert_clean_error(cli("doctor", tmp_path), 2, "summary.json:1: malformed JSON")
    assert_clean_error(cli("doctor", tmp_path / "nope"), 2, "no such file or directory")
    (tmp_path / "summary.json").write_text(json.dumps({"flows": [{"flow": 0}]}))
    (tmp_path / "timeseries.csv").write_text("time_s,flow\n0.1,0\n0.2\n")
    assert_clean_error(cli("doctor", tmp_path), 2, "timeseries.csv:3: 1 fields")


@pytest.mark.parametrize(
    ("summary", "needle"),
    [
        ("[]", "not a JSON object"),
        ('{"scenario": "x"}', "no 'flows' list"),
        ('{"flows": [1]}', "flows[0] is not a flow object"),
        ('{"flows": [{"flow": "a"}]}', "flows[0] is not a flow object"),
    ],
)
def test_malformed_summary_gives_run_dir_error(tmp_path, summary, needle):
    from cclab.doctor import diagnose
    from cclab.traces.rundir import RunDirError

    (tmp_path / "summary.json").write_text(summary)
    with pytest.raises(RunDirError, match=re.escape(needle)):
        diagnose(tmp_path)


def test_header_fields_of_the_wrong_type_are_ignored(tmp_path):
    path = tmp_path / "odd.sqlog"
    path.write_text('\x1e{"trace": {"vantage_point": "x", "common_fields": 3}}\n\x1e{"time": 1, "name": "a:b"}\n')
    assert read_qlog(path).event_counts == {"b": 1}
