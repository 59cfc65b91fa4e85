"""The scenario catalog: every ``*.toml`` under a directory, loaded and validated by the simulator."""

from __future__ import annotations

from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from cclab._core import ScenarioError
from cclab.api import load


@dataclass(frozen=True)
class Entry:
    """One catalog file."""

    path: Path
    name: str | None
    """``[scenario].name``; None when the file is invalid."""
    description: str
    """``[scenario].description``, or the validation error when the file is invalid."""
    valid: bool


def scan(root: str | PathLike[str]) -> list[Entry]:
    """Load every ``*.toml`` under ``root`` (recursively), sorted by path.

    Raises
    ------
    NotADirectoryError
        ``root`` is not a directory.
    """
    base = Path(root)
    if not base.is_dir():
        raise NotADirectoryError(f"{base}: not a directory")
    entries = []
    for path in sorted(base.rglob("*.toml")):
        try:
            sc = load(path)
        except ScenarioError as e:
            entries.append(Entry(path, None, str(e), valid=False))
        else:
            entries.append(Entry(path, sc.name, sc.description, valid=True))
    return entries
