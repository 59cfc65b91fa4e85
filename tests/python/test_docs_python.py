"""docs/python.md: its examples run, in order, as one script."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_python_doc_examples_run(tmp_path, monkeypatch):
    text = (ROOT / "docs" / "python.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 5
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for i, block in enumerate(blocks):
        exec(compile(block, f"docs/python.md block {i + 1}", "exec"), namespace)
