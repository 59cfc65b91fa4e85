"""The commands' tables and messages, drawn without rich (cclab/cli/_render.py)."""

import io

import pytest

from cclab.cli import _render
from cclab.cli._render import Table


def _table() -> Table:
    table = Table("Title")
    table.add_column("name")
    table.add_column("value", right=True)
    table.add_row("a", "1")
    table.add_row("longer", "12345")
    return table


def test_columns_align_left_or_right_under_a_heavy_head():
    assert str(_table()).splitlines() == [
        "Title",
        "┏━━━━━━━━┳━━━━━━━┓",
        "┃ name   ┃ value ┃",
        "┡━━━━━━━━╇━━━━━━━┩",
        "│ a      │     1 │",
        "│ longer │ 12345 │",
        "└────────┴───────┘",
    ]


def test_an_empty_table_is_its_header():
    table = Table("Nothing")
    table.add_column("x")
    table.add_column("yy", right=True)
    assert str(table).splitlines() == ["Nothing", "┏━━━┳━━━━┓", "┃ x ┃ yy ┃", "┡━━━╇━━━━┩", "└───┴────┘"]
    assert str(Table("no columns")) == "no columns"


def test_a_wide_cell_keeps_its_width_without_a_limit_and_wraps_at_spaces_within_one():
    table = Table()
    table.add_column("k")
    table.add_column("text")
    table.add_row("1", "the quick brown fox jumps")
    assert table.lines()[3] == "│ 1 │ the quick brown fox jumps │"
    assert table.lines(20) == [
        "┏━━━┳━━━━━━━━━━━┓",
        "┃ k ┃ text      ┃",
        "┡━━━╇━━━━━━━━━━━┩",
        "│ 1 │ the quick │",
        "│   │ brown fox │",
        "│   │ jumps     │",
        "└───┴───────────┘",
    ]
    # Narrower than its longest word, a column keeps that word whole and the table is wider than asked.
    assert [line[4:] for line in table.lines(8)[3:6]] == ["│ the   │", "│ quick │", "│ brown │"]


def test_the_widest_columns_give_way_first():
    table = Table()
    for header in ("a", "b", "c"):
        table.add_column(header)
    table.add_row(" ".join("x" * 10), " ".join("y" * 3), "z")  # natural widths 19, 5 and 1
    widths = [len(cell) for cell in table.lines(30)[1].split("┃")[1:-1]]
    # 30 less 10 for the frame leaves 20: the first column alone gives way, to 14, and wraps to 13 ("x x x x x x x").
    assert widths == [2 + 13, 2 + 5, 2 + 1], table.lines(30)


def test_wide_characters_take_two_cells():
    table = Table()
    table.add_column("名前")
    table.add_column("n", right=True)
    table.add_row("x", "1")
    assert str(table).splitlines()[:4] == ["┏━━━━━━┳━━━┓", "┃ 名前 ┃ n ┃", "┡━━━━━━╇━━━┩", "│ x    │ 1 │"]


def test_a_table_without_a_box_separates_columns_by_two_spaces():
    table = Table(boxed=False)
    table.add_column("run", right=True)
    table.add_column("status")
    table.add_row("1", "ok")
    table.add_row("10", "failed")
    assert str(table).splitlines() == ["run  status", "  1  ok", " 10  failed"]


def test_a_caption_follows_the_table():
    table = _table()
    table.caption = "over all flows"
    assert str(table).splitlines()[-1] == "over all flows"


def test_rows_must_match_the_columns():
    table = _table()
    with pytest.raises(ValueError, match="a row of 1 cells in a table of 2 columns"):
        table.add_row("only one")
    with pytest.raises(ValueError, match="before the first row"):
        table.add_column("late")


def test_a_pipe_gets_the_natural_width_and_columns_limits_it(monkeypatch):
    out = io.StringIO()  # not a terminal
    monkeypatch.setattr(_render.sys, "stdout", out)
    monkeypatch.delenv("COLUMNS", raising=False)
    wide = Table()
    wide.add_column("text")
    wide.add_row("word " * 40)
    _render.show(wide, "a [bold]message[/] printed as it is")
    lines = out.getvalue().splitlines()
    assert len(lines) == 6 and lines[-1] == "a [bold]message[/] printed as it is"
    monkeypatch.setenv("COLUMNS", "40")
    out.seek(0), out.truncate()
    _render.show(wide)
    assert max(len(line) for line in out.getvalue().splitlines()) <= 40


def test_errors_go_to_stderr(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(_render.sys, "stderr", err)
    _render.error("scenario.toml: flow[0].cc: unknown [algorithm]")
    assert err.getvalue() == "error: scenario.toml: flow[0].cc: unknown [algorithm]\n"
