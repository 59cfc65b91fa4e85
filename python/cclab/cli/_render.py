"""What every command writes: tables drawn in box characters, and plain messages on stdout and stderr.

The commands drew these with rich, whose import was 40-50 ms of a one-packet ``cclab run``'s ~150 ms of CPU
(issue #14); rich now draws only the progress bar of long work (``_common.DelayedProgress``). Output is plain
text without colour, and messages are written verbatim: no markup, so nothing in them needs escaping.

A table keeps its natural width where that fits: in a file or a pipe always (unless ``COLUMNS`` is set), on
a terminal when it is wide enough. On a narrower terminal the widest columns give way first, their cells
wrapped at spaces, but no column gets narrower than its longest word: nothing is cut, and a table that still
does not fit is printed at those widths, for the terminal to wrap.
"""

from __future__ import annotations

import os
import sys
import unicodedata

#: rich's HEAVY_HEAD box: heavy lines around the header row, light ones around the body.
_TOP = "┏━┳┓"
_HEAD = "┃"
_HEAD_RULE = "┡━╇┩"
_BODY = "│"
_BOTTOM = "└─┴┘"
#: Between the columns of a table without a box.
_GAP = "  "


def say(text: str) -> None:
    """Write `text` and a newline to stdout, flushed so a closed pipe is typer's EPIPE exit, not a traceback."""
    sys.stdout.write(f"{text}\n")
    sys.stdout.flush()


def note(text: str) -> None:
    """Write `text` and a newline to stderr: what is not the command's output (interruptions, problems)."""
    sys.stderr.write(f"{text}\n")
    sys.stderr.flush()


def error(message: str) -> None:
    """Write ``error: message`` to stderr."""
    note(f"error: {message}")


def text_width(text: str) -> int:
    """Terminal cells `text` takes: East Asian wide and full-width characters take two, combining marks none."""
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def terminal_width() -> int | None:
    """``COLUMNS`` when set to a positive number, else stdout's terminal width; None (no limit) for a file or pipe."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if not sys.stdout.isatty():
        return None
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns
    except OSError:
        return None


class Table:
    """Rows of text cells under a header row, with an optional title line above and caption line below.

    ``boxed`` draws the header in heavy lines and the body in light ones; without a box the columns are
    separated by two spaces, for listings such as the scenario catalog.
    """

    def __init__(self, title: str | None = None, *, boxed: bool = True) -> None:
        self.title = title
        self.caption: str | None = None
        self.boxed = boxed
        self.headers: list[str] = []
        self.right: list[bool] = []
        self.rows: list[list[str]] = []

    def add_column(self, header: str, *, right: bool = False) -> None:
        """A column headed `header`, its cells (and header) aligned right when `right`, else left."""
        if self.rows:
            raise ValueError("add every column before the first row")
        self.headers.append(header)
        self.right.append(right)

    def add_row(self, *cells: str) -> None:
        """One row: a cell per column, in the order the columns were added."""
        if len(cells) != len(self.headers):
            raise ValueError(f"a row of {len(cells)} cells in a table of {len(self.headers)} columns")
        self.rows.append([str(c) for c in cells])

    def lines(self, width: int | None = None) -> list[str]:
        """The table as lines of at most `width` cells where its longest words allow, of its natural width if None."""
        if not self.headers:
            return [self.title] if self.title else []
        grid = [self.headers, *self.rows]
        columns = list(zip(*grid, strict=True))
        widths = [max(text_width(line) for cell in col for line in _lines(cell)) for col in columns]
        if width is not None:
            longest_words = [max((text_width(w) for cell in col for w in cell.split()), default=0) for col in columns]
            frame = 3 * len(columns) + 1 if self.boxed else len(_GAP) * (len(columns) - 1)
            widths = _fit(widths, longest_words, width - frame)
        cells = [[_wrap(cell, w) for cell, w in zip(row, widths, strict=True)] for row in grid]
        # As wide as the widest line each column wraps to, which may be less than it was given.
        widths = [max(text_width(line) for row in cells for line in row[i]) for i in range(len(columns))]
        head, *body = (self._row_lines(row, widths) for row in cells)
        out = [self.title] if self.title else []
        if self.boxed:
            out.append(_rule(_TOP, widths))
            out += [_HEAD.join(["", *line, ""]) for line in head]
            out.append(_rule(_HEAD_RULE, widths))
            out += [_BODY.join(["", *line, ""]) for row in body for line in row]
            out.append(_rule(_BOTTOM, widths))
        else:
            out += [_GAP.join(line).rstrip() for row in (head, *body) for line in row]
        if self.caption:
            out.append(self.caption)
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def _row_lines(self, cells: list[list[str]], widths: list[int]) -> list[list[str]]:
        """One row of wrapped cells as lines, each the list of its cells' texts padded to their columns' widths.

        In a box, every text also has a space each side.
        """
        pad = 1 if self.boxed else 0
        out = []
        for k in range(max(len(c) for c in cells)):
            parts = []
            for lines, w, right in zip(cells, widths, self.right, strict=True):
                text = lines[k] if k < len(lines) else ""
                fill = " " * (w - text_width(text))
                parts.append(" " * pad + (fill + text if right else text + fill) + " " * pad)
            out.append(parts)
        return out


def show(*parts: str | Table) -> None:
    """Write each part to stdout: a table fitted to the terminal (`terminal_width`), a string as it is."""
    width = terminal_width()
    say("\n".join(p if isinstance(p, str) else "\n".join(p.lines(width)) for p in parts))


def _rule(chars: str, widths: list[int]) -> str:
    left, line, mid, end = chars
    return left + mid.join(line * (w + 2) for w in widths) + end


def _lines(cell: str) -> list[str]:
    # A tab would move the cursor past the measured width; an empty cell is still one (empty) line.
    return cell.expandtabs().splitlines() or [""]


def _fit(natural: list[int], least: list[int], room: int) -> list[int]:
    """Column widths summing to at most `room`, where the `least` widths allow.

    Every column is capped at one level, the highest at which the sum fits, but none below its `least` (so the
    sum exceeds `room` when the longest words alone do). A binary search: O(columns × log width).
    """
    if sum(natural) <= room:
        return natural
    low, high = 0, max(natural)
    while low < high:
        level = (low + high + 1) // 2
        if sum(max(m, min(w, level)) for w, m in zip(natural, least, strict=True)) <= room:
            low = level
        else:
            high = level - 1
    return [max(m, min(w, low)) for w, m in zip(natural, least, strict=True)]


def _wrap(cell: str, width: int) -> list[str]:
    """`cell`'s lines, each longer than `width` broken at spaces (a word longer than `width` keeps a line alone)."""
    out = []
    for line in _lines(cell):
        if text_width(line) <= width:
            out.append(line)
            continue
        words: list[str] = []
        taken = 0  # the width of the words joined by spaces
        for word in line.split():
            w = text_width(word)
            if words and taken + 1 + w > width:
                out.append(" ".join(words))
                words, taken = [], 0
            taken += w + (1 if words else 0)
            words.append(word)
        out.append(" ".join(words))
    return out
