"""`cclab validate` and `cclab.load`: good files pass; every malformed one exits 2 naming file and key."""

import re

import pytest

import cclab
from conftest import TINY, assert_clean_error, cclab_cli, write_scenario


def test_valid_scenario_prints_ok(tiny):
    proc = cclab_cli("validate", tiny)
    assert (proc.returncode, proc.stdout.strip()) == (0, "ok")


def test_load_exposes_name_and_description(tiny):
    sc = cclab.load(tiny)
    assert (sc.name, sc.description) == ("tiny", "One bulk flow over a 10 Mbps, 20 ms RTT path.")
    assert cclab.load(tiny, ["scenario.name=other"]).name == "other"


MALFORMED = {
    "bad_unit": (TINY.replace('delay = "10ms"', 'delay = "10 parsecs"', 1), "path.forward.delay", "duration"),
    "unknown_key": (
        TINY.replace("[path.forward]\n", '[path.forward]\ncolour = "red"\n'),
        "path.forward.colour",
        "colour",
    ),
    "negative_rate": (TINY.replace('rate = "10Mbps"', 'rate = "-10Mbps"', 1), "path.forward.rate", "positive"),
    "missing_field": (TINY.replace('delay = "10ms"\n', "", 1), "path.forward", "delay"),
    "bare_number": (TINY.replace('rate = "10Mbps"', "rate = 10", 1), "path.forward.rate", "unit"),
    # Byte rates are refused with the bit rate to write ("10MBps" used to mean 80 Mbit/s silently).
    "byte_rate": (TINY.replace('rate = "10Mbps"', 'rate = "10MBps"', 1), "path.forward.rate", '"80Mbit/s"'),
    # A missing top-level table has no key path; the message names it.
    "no_flow": (TINY.split("[[flow]]")[0], None, "`flow`"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_scenario_exits_2_naming_file_and_key(tmp_path, case):
    text, key, word = MALFORMED[case]
    path = write_scenario(tmp_path, text, f"{case}.toml")
    prefix = f"{path}: {key}: " if key else f"{path}: "
    assert_clean_error(cclab_cli("validate", path), 2, prefix, word)
    with pytest.raises(cclab.ScenarioError, match=re.escape(prefix)):
        cclab.load(path)


@pytest.mark.parametrize(
    ("override", "needle"),
    [
        ("path.forward.rate=fast", "path.forward.rate: "),
        ("path.forward.bogus=1", "path.forward.bogus: "),
        ("scenario.duration=0s", "scenario.duration: "),
        ("nokey", "--set nokey"),
        ('path.forward.queue={kind="droptail",limit_packets=0}', "path.forward.queue.limit_packets: "),
        ("flow[0].quic.max_udp_payload=65508B", "flow[0].quic.max_udp_payload: "),
    ],
)
def test_bad_override_exits_2_naming_the_key(tiny, override, needle):
    assert_clean_error(cclab_cli("validate", tiny, "--set", override), 2, f"{tiny}: ", needle)


def test_scenario_over_the_size_limit_exits_2_naming_file_size_and_limit(tmp_path, tiny):
    # A comment past the limit: valid TOML, so only the size check refuses it (it loaded before).
    limit = cclab._core.MAX_SCENARIO_BYTES
    path = write_scenario(tmp_path, TINY + "#" + "x" * limit + "\n", "big.toml")
    size = path.stat().st_size
    needles = (f"{path}: {size} bytes, over the limit of {limit} bytes", "`count = N`")
    assert_clean_error(cclab_cli("validate", path), 2, *needles)
    # A command line holds at most 128 KiB per argument; the API takes any list.
    with pytest.raises(cclab.ScenarioError, match=re.escape(f"{tiny}: ") + ".* bytes of --set values, over"):
        cclab.load(tiny, ["scenario.description=" + "d" * limit])


def test_toml_syntax_error_names_the_file(tmp_path):
    path = write_scenario(tmp_path, "[scenario\nname = 1\n", "syntax.toml")
    assert_clean_error(cclab_cli("validate", path), 2, f"{path}: ", "line 1")
