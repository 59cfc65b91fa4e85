"""Command-line handling that needs no simulation: usage errors exit 2 with a message and no traceback."""

import pytest

from conftest import assert_clean_error, cclab_cli


def test_help_lists_every_command():
    proc = cclab_cli("--help")
    assert proc.returncode == 0
    for cmd in ("run", "validate", "scenarios", "plot", "sweep"):
        assert cmd in proc.stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["frobnicate"], "frobnicate"),
        (["run", "x.toml"], "--out"),
        (["run", "x.toml", "--out", "o", "--seed", "-1"], "--seed"),
        (["run", "x.toml", "--out", "o", "--seed", "many"], "--seed"),
        # 2^64 was an OverflowError traceback from the u64 seed; 2^64 - 1 runs.
        (["run", "x.toml", "--out", "o", "--seed", str(2**64)], "--seed"),
        (["emulate", "x.toml", "--out", "o", "--seed", str(2**64), "--", "s", "--", "c"], "--seed"),
        # NaN passed the range check and ended the run at once; 1e30 s slept with the server running.
        (["emulate", "x.toml", "--out", "o", "--timeout", "nan", "--", "s", "--", "c"], "--timeout"),
        (["emulate", "x.toml", "--out", "o", "--server-start", "1e30", "--", "s", "--", "c"], "--server-start"),
        (["sweep", "x.toml", "--out", "o", "--seeds", "1000001"], "--seeds"),
        (["run", "x.toml", "--out", "o", "--qlog-format", "draft-99"], "--qlog-format"),
        (["run", "x.toml", "--out", "o", "--interval", "10 parsecs"], "--interval"),
        (["run", "x.toml", "--out", "o", "--interval", "0ms"], "--interval"),
        (["validate"], "SCENARIO"),
        (["sweep", "x.toml", "--out", "o", "--param", "links.rate"], "--param"),
        (["sweep", "x.toml", "--out", "o", "--param", "a=1,,2"], "--param"),
        (["sweep", "x.toml", "--out", "o", "--param", "a=1", "--param", "a=2"], "--param"),
        (["sweep", "x.toml", "--out", "o", "--workers", "0"], "--workers"),
    ],
)
def test_bad_arguments_exit_2_without_traceback(args, needle):
    assert_clean_error(cclab_cli(*args), 2, needle)


def test_missing_scenario_file_names_the_file(tmp_path):
    missing = tmp_path / "nope.toml"
    assert_clean_error(cclab_cli("validate", missing), 2, str(missing))
    assert_clean_error(cclab_cli("run", missing, "--out", tmp_path / "o"), 2, str(missing))


def test_plot_without_timeseries_names_the_file(tmp_path):
    assert_clean_error(cclab_cli("plot", tmp_path), 2, "timeseries.parquet")


def test_scenarios_of_a_missing_directory_exit_2(tmp_path):
    assert_clean_error(cclab_cli("scenarios", tmp_path / "none"), 2, "not a directory")


def test_version_prints_the_package_version():
    import cclab

    proc = cclab_cli("--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"cclab {cclab.__version__}"
