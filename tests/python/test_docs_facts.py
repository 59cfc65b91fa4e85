"""Facts the documents state that the code can check."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_outputs_doc_min_ack_delay_id_matches_its_hex():
    text = (ROOT / "docs" / "outputs.md").read_text()
    m = re.search(r'\{"id":(\d+),"value"[^}]*\}` \((0x[0-9a-f]+)', text)
    assert m, "docs/outputs.md no longer states the min_ack_delay parameter id"
    decimal, hexa = int(m.group(1)), int(m.group(2), 16)
    assert decimal == hexa
    src = (ROOT / "crates" / "cclab-sim" / "src" / "qlog" / "events.rs").read_text()
    code = re.search(r"MIN_ACK_DELAY_ID: u64 = (0x[0-9a-f]+)", src)
    assert code and int(code.group(1), 16) == decimal


def test_seeds_doc_cites_public_sources_not_a_local_directory():
    text = (ROOT / "docs" / "seeds.md").read_text()
    assert "shared/seeds" not in text
    sources = text.split("## Sources", 1)[1]
    for case in range(5):
        row = next(line for line in sources.splitlines() if line.startswith(f"| seed-00{case} |"))
        # Author, title and date, and a URL or an explicit statement that none was found.
        assert re.search(r"\b(19|20)\d\d\b|no (author or )?date", row), row
        assert "https://" in row or "no public URL" in row, row
