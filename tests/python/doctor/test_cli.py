"""``cclab doctor`` on the terminal, as JSON, with figures, and its exit codes for CI (in-process runner)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from cclab.cli import app


@pytest.fixture
def doctor():
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(app, ["doctor", *map(str, args)], env={"COLUMNS": "250", "NO_COLOR": "1"})

    return invoke


def test_doctor_json_lists_findings_with_evidence_and_figures(seed_runs, doctor, tmp_path):
    res = doctor(seed_runs["seed-004", "pathology"], seed_runs["seed-004", "fixed"], "--json", "--out", tmp_path)
    assert res.exit_code == 0, res.output
    bad, fixed = json.loads(res.stdout)
    (f,) = [f for f in bad["findings"] if f["name"] == "feedback-collapse"]
    assert f["seed"] == "seed-004" and f["fix"] and f["spans_s"]
    assert {"quantity", "value", "threshold"} <= f["evidence"][0].keys()
    (png,) = f["figures"]
    assert png.startswith(str(tmp_path)) and png.endswith("-feedback-collapse.png")
    assert (tmp_path / png.rsplit("/", 1)[1]).stat().st_size > 1000
    assert fixed["findings"] == [] and "timeseries" in fixed["inputs"]


def test_doctor_fail_on_sets_the_exit_code(seed_runs, doctor):
    bad, fixed = seed_runs["seed-004", "pathology"], seed_runs["seed-004", "fixed"]
    assert doctor(bad, "--no-figures", "--fail-on", "feedback-collapse").exit_code == 1
    assert doctor(bad, "--no-figures", "--fail-on", "clock-granularity-stall").exit_code == 0
    assert doctor(fixed, "--no-figures", "--fail-on", "any").exit_code == 0
    res = doctor(bad, "--no-figures", "--fail-on", "any")
    assert res.exit_code == 1
    assert "feedback-collapse" in res.stdout and "seed-004" in res.stdout


def test_doctor_rejects_unknown_fail_on_name(seed_runs, doctor):
    res = doctor(seed_runs["seed-004", "fixed"], "--fail-on", "gremlins")
    assert res.exit_code == 2 and "unknown finding gremlins" in res.output


def test_doctor_of_many_quiet_flows_prints_them_on_one_line(doctor, many_flows, tmp_path):
    import cclab
    from cclab.many_flows import MANY_FLOWS

    cclab.run(many_flows("100KB"), out=tmp_path / "run", qlog=None)
    diagnoses = json.loads(doctor(tmp_path / "run", "--no-figures", "--json").stdout)
    assert len(diagnoses) == 25  # as JSON every flow keeps its own diagnosis
    quiet = sum(not d["findings"] for d in diagnoses)
    assert 1 < quiet and 25 > MANY_FLOWS
    res = doctor(tmp_path / "run", "--no-figures")
    assert res.exit_code == 0, res.output
    said = [line for line in res.stdout.splitlines() if "no finding" in line]
    assert len(said) == 1 and f"{quiet} others" in said[0], res.stdout
