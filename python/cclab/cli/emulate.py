"""``cclab emulate``: any UDP server and client through a scenario's real-time emulated path."""

import math
from pathlib import Path
from typing import Annotated

import typer

from cclab.cli._common import MAX_SEED, SetOption, user_errors
from cclab.cli._render import error, note, say


def split_commands(words: list[str]) -> tuple[list[str], list[str]]:
    """``SERVER ... -- CLIENT ...`` (the first ``--`` is consumed by the option parser) → the two commands."""
    if "--" not in words:
        raise typer.BadParameter("give two commands: -- SERVER_CMD ... -- CLIENT_CMD ...")
    i = words.index("--")
    server, client = words[:i], words[i + 1 :]
    if not server or not client:
        raise typer.BadParameter("both the server and the client command must be non-empty")
    return server, client


#: Longest wait before the client starts: an hour (1e30 s slept on with the server running, until killed).
MAX_SERVER_START_S = 3600.0


def _finite(value: float) -> float:
    """NaN passes typer's range checks (every comparison is false) and made a run that ended at once."""
    if not math.isfinite(value):
        raise typer.BadParameter(f"expected a finite number of seconds, got {value}")
    return value


def emulate(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.", metavar="SCENARIO.toml")],
    commands: Annotated[
        list[str],
        typer.Argument(help="-- SERVER_CMD ... -- CLIENT_CMD ... with {listen}, {server}, {qlog_dir} placeholders."),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Run directory (created if missing).", metavar="DIR")],
    set_: SetOption = None,
    seed: Annotated[int | None, typer.Option(min=0, max=MAX_SEED, help="Override the scenario's RNG seed.")] = None,
    timeout: Annotated[
        float, typer.Option(min=0.1, callback=_finite, help="Wall-clock limit for the client, seconds.")
    ] = 60.0,
    server_start: Annotated[
        float,
        typer.Option(
            "--server-start",
            min=0.0,
            max=MAX_SERVER_START_S,
            callback=_finite,
            help="Seconds between starting the server and the client.",
        ),
    ] = 1.0,
) -> None:
    """Run SERVER_CMD and CLIENT_CMD through SCENARIO's emulated path; write emulate.json, emulator.csv, qlog/."""
    # Loaded here, not at import: it brings numpy, which `cclab run` and `validate` must not pay for.
    from cclab.emulate import emulate as run_emulation

    server, client = split_commands(commands)
    with user_errors():
        try:
            report = run_emulation(
                scenario, server, client, out=out, set=set_ or [], seed=seed, timeout=timeout, server_start=server_start
            )
        except RuntimeError as e:
            error(str(e))
            raise typer.Exit(1) from None
    em = report["emulator"]
    for name in ("forward", "return"):
        d = em[name]
        say(
            f"{name:>7}: {d['packets_in']} packets in, {d['packets_out']} out, {d['bytes_in']} bytes, "
            f"{d['drops']} dropped, {d['ecn_marks']} CE-marked"
        )
    say(f"wrote {out}/ (emulate.json, emulator.csv, qlog/ {len(report['qlog_files'])} files)")
    for p in report["problems"]:
        note(f"problem: {p}")
    if report["problems"]:
        raise typer.Exit(1)
