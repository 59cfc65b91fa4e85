"""The package surface: light import, exceptions, stubs."""

import subprocess
import sys
from pathlib import Path

import cclab
from cclab import _core


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
    missing = {n for n in public if f"def {n}(" not in stub and f"class {n}" not in stub}
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
