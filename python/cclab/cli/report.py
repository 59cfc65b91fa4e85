"""``cclab report``: a self-contained offline HTML page for a run, a sweep or a reproduction."""

from pathlib import Path
from typing import Annotated

import typer

from cclab.cli._common import user_errors
from cclab.cli._render import say


def report(
    directory: Annotated[Path, typer.Argument(help="A run, sweep or reproduction directory.", metavar="DIR")],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="The HTML file (default DIR/report.html).", metavar="FILE")
    ] = None,
) -> None:
    """Write DIR/report.html, a self-contained page that loads offline.

    Figures embedded, tables, the resolved scenario and links that open each qlog
    in qvis; it loads offline.
    """
    from cclab.report import write_report

    with user_errors():
        path = write_report(directory, out)
    say(str(path))
