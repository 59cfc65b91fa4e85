"""What every command shares: consoles, the ``--set`` option, and turning errors into exit codes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TaskID, TaskProgressColumn, TextColumn, TimeElapsedColumn

from cclab import KernelUnavailable, RunError, ScenarioError
from cclab.sweep import SweepError

#: Exit code for invalid input (scenario, override, argument), as for a usage error.
EXIT_INVALID = 2
#: Exit code after Ctrl-C (128 + SIGINT), as a shell reports it.
EXIT_INTERRUPTED = 130

console = Console()
err_console = Console(stderr=True)

SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        "-s",
        metavar="KEY=VALUE",
        help="Override a scenario value, e.g. --set path.forward.rate=50Mbps (repeatable, applied in order).",
    ),
]


def error(message: str) -> None:
    """Print ``error: message`` to stderr (the message is printed verbatim, not as rich markup)."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)


@contextmanager
def user_errors() -> Iterator[None]:
    """Map expected failures to a message and an exit code, never a traceback.

    ScenarioError, SweepError, KernelUnavailable, a missing file → 2; RunError → 1; Ctrl-C → 130.
    """
    try:
        yield
    except (ScenarioError, SweepError, FileNotFoundError, NotADirectoryError) as e:
        error(str(e))
        raise typer.Exit(EXIT_INVALID) from None
    except KernelUnavailable as e:
        # One line, exit 2: the machine, not the run, is the problem (tests skip on it).
        error(str(e))
        raise typer.Exit(EXIT_INVALID) from None
    except RunError as e:
        error(str(e))
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        err_console.print("interrupted", style="yellow")
        raise typer.Exit(EXIT_INTERRUPTED) from None


class DelayedProgress:
    """A rich progress bar that appears only once the work has taken longer than ``delay`` seconds.

    Call it with a fraction (0..1) or with ``(done, total)``; use it as a context manager so the bar is
    removed on exit.
    """

    def __init__(self, label: str, delay: float = 1.0) -> None:
        self._label = label
        self._delay = delay
        self._start = time.monotonic()
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def __call__(self, done: float, total: float = 1.0) -> None:
        if self._progress is None:
            if time.monotonic() - self._start < self._delay:
                return
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TaskProgressColumn(),
                TimeElapsedColumn(),
                console=err_console,
                transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task(self._label, total=total)
        assert self._task is not None
        self._progress.update(self._task, completed=done, total=total)

    def __enter__(self) -> DelayedProgress:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        if self._progress is not None:
            self._progress.stop()
