"""What every command shares: the ``--set`` option, turning errors into exit codes, and progress."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import TYPE_CHECKING, Annotated

import typer

from cclab import KernelUnavailable, RunError, ScenarioError
from cclab.cli._render import error, note
from cclab.errors import SweepError

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

#: Exit code for invalid input (scenario, override, argument), as for a usage error.
EXIT_INVALID = 2
#: Largest seed: the simulator's random streams take a u64 (a larger one was an OverflowError traceback).
MAX_SEED = 2**64 - 1
#: Exit code after Ctrl-C (128 + SIGINT), as a shell reports it.
EXIT_INTERRUPTED = 130

SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        "-s",
        metavar="KEY=VALUE",
        help="Override a scenario value, e.g. --set path.forward.rate=50Mbps (repeatable, applied in order).",
    ),
]


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
        note("interrupted")
        raise typer.Exit(EXIT_INTERRUPTED) from None


class DelayedProgress:
    """Progress of long work with an ETA, shown once the work has taken longer than ``delay`` seconds.

    On a terminal it is a rich bar (done, elapsed, remaining); when stderr is not a terminal (a log file, CI)
    it prints a plain line ``label: 42 % (3/7), 12 s elapsed, ETA 16 s`` at most every ``every`` seconds
    instead of staying silent. Call it with a fraction (0..1) or with ``(done, total)``; use it as a context
    manager so the bar is removed on exit.
    """

    def __init__(self, label: str, delay: float = 1.0, every: float = 10.0) -> None:
        self._label = label
        self._delay = delay
        self._every = every
        self._start = time.monotonic()
        self._last_line: float | None = None
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def __call__(self, done: float, total: float = 1.0) -> None:
        now = time.monotonic()
        if now - self._start < self._delay:
            return
        if not sys.stderr.isatty():
            if self._last_line is None or now - self._last_line >= self._every:
                self._last_line = now
                note(progress_line(self._label, done, total, now - self._start))
            return
        if self._progress is None:
            # Imported here, and only here: most runs end before the delay, and rich's import was ~30 % of a
            # one-packet run's CPU time (issue #14).
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                Progress,
                TaskProgressColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TaskProgressColumn(),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
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


def progress_line(label: str, done: float, total: float, elapsed: float) -> str:
    """``label: 42 % (3/7), 12 s elapsed, ETA 16 s``: the ETA assumes the remaining work goes at the pace so far."""
    share = done / total if total > 0 else 0.0
    count = f" ({done:g}/{total:g})" if total != 1.0 else ""
    eta = f"ETA {elapsed * (1 - share) / share:.0f} s" if share > 0 else "ETA unknown"
    return f"{label}: {100 * share:.0f} %{count}, {elapsed:.0f} s elapsed, {eta}"
