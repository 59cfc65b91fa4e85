"""The package surface: light import, exceptions, stubs."""

import subprocess
import sys
from pathlib import Path

import cclab
from cclab import _core
from conftest import write_scenario


def test_import_cclab_loads_neither_polars_nor_matplotlib():
    code = "import sys, cclab; print(sorted(m for m in ('polars', 'matplotlib') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_exceptions_are_public_and_distinct():
    assert cclab.ScenarioError.__module__ == "cclab"
    assert cclab.RunError.__module__ == "cclab"
    assert issubclass(cclab.ScenarioError, Exception)
    assert not issubclass(cclab.ScenarioError, cclab.RunError)
    assert not issubclass(cclab.RunError, cclab.ScenarioError)


def test_stub_lists_every_public_name_of_the_extension():
    stub = (Path(cclab.__file__).parent / "_core.pyi").read_text()
    public = {n for n in dir(_core) if not n.startswith("_")}
    listed = ("def {}(", "class {}", "\n{}: ")  # functions, classes, constants
    missing = {n for n in public if not any(form.format(n) in stub for form in listed)}
    assert not missing
    assert (Path(cclab.__file__).parent / "py.typed").is_file()


def test_parse_duration_uses_the_scenario_units():
    assert _core.parse_duration_ns("10ms") == 10_000_000
    assert _core.parse_duration_ns("1.5s") == 1_500_000_000
    assert cclab.api.interval_ns(0.25) == 250_000_000
    for bad in ("10", "10 parsecs", "-1ms"):
        try:
            _core.parse_duration_ns(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} parsed")


def test_package_docstring_example_names_a_scenario_that_exists():
    import re

    paths = re.findall(r'"(scenarios/[^"]+\.toml)"', cclab.__doc__ or "")
    assert paths
    root = Path(__file__).resolve().parents[2]
    assert all((root / p).is_file() for p in paths), paths


#: What `cclab run` of a small scenario and `cclab validate` must not import: each costs 0.05-0.15 s of CPU at
#: start-up (issue #14), and neither command needs them.
HEAVY = ("numpy", "polars", "pandas", "matplotlib")


def _cli_modules(*args: str, top_level: bool = True) -> list[str]:
    """The modules (top-level ones only, by default) loaded by ``cclab ARGS`` in a fresh interpreter (the command
    must succeed)."""
    names = "{m.split('.')[0] for m in sys.modules}" if top_level else "set(sys.modules)"
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['cclab', *{list(args)!r}]\n"
        "try:\n"
        "    runpy.run_module('cclab', run_name='__main__')\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        f"print(' '.join(sorted({names})))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()[-1].split()


#: A run of one packet (1,000 bytes): what it costs is start-up.
ONE_PACKET = (
    '[scenario]\nname = "one"\nduration = "1s"\n[path.forward]\nrate = "10Mbps"\ndelay = "5ms"\n'
    '[path.return]\nrate = "10Mbps"\ndelay = "5ms"\n[[flow]]\nsource = { kind = "bulk", size = "1000B" }\n'
)


def test_cli_run_and_validate_of_a_small_scenario_import_no_heavy_module(tmp_path):
    one = write_scenario(tmp_path, ONE_PACKET)
    out = tmp_path / "out"
    loaded = _cli_modules("run", str(one), "--out", str(out))
    assert "cclab" in loaded and (out / "timeseries.parquet").is_file()
    assert not set(HEAVY) & set(loaded), loaded
    loaded = _cli_modules("validate", str(one))
    assert not set(HEAVY) & set(loaded), loaded


def test_cli_run_of_one_packet_loads_no_rich(tmp_path):
    """rich's import was ~30 % of a one-packet run's CPU time (issue #14): the commands draw their tables and
    messages themselves (cclab/cli/_render.py), and rich loads only for a progress bar on a terminal."""
    one = write_scenario(tmp_path, ONE_PACKET)
    loaded = _cli_modules("run", str(one), "--out", str(tmp_path / "out"))
    assert "cclab" in loaded and "rich" not in loaded, loaded
    assert "rich" not in _cli_modules("validate", str(one))


def test_cli_run_registers_only_its_own_command(tmp_path):
    """typer inspects every registered command before it parses; a run imports only ``cclab.cli.run``, while help
    still lists every command."""
    one = write_scenario(tmp_path, ONE_PACKET)
    loaded = set(_cli_modules("run", str(one), "--out", str(tmp_path / "out"), top_level=False))
    from cclab.cli import COMMANDS

    others = {f"cclab.cli.{c}" for c in COMMANDS if c != "run"}
    assert "cclab.cli.run" in loaded and not others & loaded, others & loaded
    proc = subprocess.run([sys.executable, "-m", "cclab", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert all(c in proc.stdout for c in COMMANDS), proc.stdout
