"""``cclab run``: one simulation, its output files and a summary table."""

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from cclab import api
from cclab.cli._common import MAX_SEED, DelayedProgress, SetOption, user_errors
from cclab.cli._render import show
from cclab.cli._tables import summary_tables


class QlogFormat(StrEnum):
    """qlog flavours the simulator writes: 0.3 (qvis; its main schema is draft-02) and the IETF drafts."""

    v03 = "0.3"
    draft02 = "draft-02"
    ietf = "ietf"


class QlogCompression(StrEnum):
    """How qlog traces are compressed: ``gzip`` writes ``trace.sqlog.gz`` (``[output] qlog_compression``)."""

    none = "none"
    gzip = "gzip"


def parse_interval(value: str | None) -> str | None:
    """Validate ``--interval`` with the simulator's own duration parser."""
    if value is not None:
        try:
            api.interval_ns(value)
        except ValueError as e:
            raise typer.BadParameter(str(e)) from None
    return value


def run(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.", metavar="SCENARIO.toml")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory (created if missing).", metavar="DIR")],
    set_: SetOption = None,
    seed: Annotated[int | None, typer.Option(min=0, max=MAX_SEED, help="Override the scenario's RNG seed.")] = None,
    qlog: Annotated[
        bool | None,
        typer.Option(
            "--qlog/--no-qlog",
            help="Write qlog traces, or not, whatever the scenario's \\[output] qlog says (default: the scenario's).",
            show_default=False,
            metavar="",
        ),
    ] = None,
    qlog_format: Annotated[
        QlogFormat, typer.Option("--qlog-format", help="qlog format when traces are written.")
    ] = QlogFormat.v03,
    qlog_compress: Annotated[
        QlogCompression | None,
        typer.Option(
            "--qlog-compress",
            help="Compress the qlog traces (gzip: trace.sqlog.gz), whatever the scenario's \\[output] qlog_compression "
            "says.",
            show_default=False,
        ),
    ] = None,
    interval: Annotated[
        str | None,
        typer.Option(
            help="Time-series sampling interval, e.g. 10ms (default: the scenario's).",
            callback=parse_interval,
        ),
    ] = None,
    real: Annotated[
        bool,
        typer.Option(
            "--real",
            help="Run the endpoints on real UDP sockets (loopback) through the real-time path emulator.",
        ),
    ] = False,
    bind: Annotated[
        str | None,
        typer.Option(help="With --real: IP address to bind (default 127.0.0.1; ::1 for IPv6).", metavar="ADDR"),
    ] = None,
    kernel: Annotated[
        bool,
        typer.Option(
            "--kernel",
            help="Run the TCP flow on Linux kernel TCP between two network namespaces, through the emulated path "
            "(root; writes tcp_info.csv, no qlog).",
        ),
    ] = False,
) -> None:
    """Run SCENARIO.toml and write summary.json, timeseries.csv/.parquet and qlog traces to DIR."""
    if kernel and real:
        raise typer.BadParameter("--kernel and --real are two different modes; choose one")
    overrides = list(set_ or [])
    if qlog_compress is not None:
        # The same as the scenario key, so scenario.resolved.toml and run.json record it.
        overrides.append(f'output.qlog_compression="{qlog_compress.value}"')
    with user_errors():
        sc = api.load(scenario, overrides)
        # The qlog rule (docs/scenarios.md): --qlog/--no-qlog win; without them the scenario decides, and
        # --qlog-format picks the format of the traces it asks for. The simulator writes those in 0.3 itself, so
        # only the IETF format needs to know whether the scenario asks (Python parses its TOML again to tell:
        # importing tomllib was 3-5 ms of a one-packet run, issue #14).
        choice = {None: None, False: False, True: qlog_format.value}[qlog]
        if choice is None and qlog_format is QlogFormat.ietf and sc.wants_qlog:
            choice = qlog_format.value
        if bind is not None and not real:
            raise typer.BadParameter("--bind applies only with --real", param_hint="--bind")
        if kernel:
            if qlog:
                raise typer.BadParameter(
                    "kernel mode writes no qlog: Linux TCP keeps none (tcp_info.csv and the time series come from "
                    "TCP_INFO)",
                    param_hint="--qlog",
                )
            # The scenario's own `[output] qlog` gets a notice from kernel mode.
            choice = None
        label = f"running {sc.name}" + (" on real sockets" if real else "")
        with DelayedProgress(label) as progress:
            result = api.run(
                sc,
                seed=seed,
                out=out,
                qlog=choice,
                timeseries_interval=interval,
                progress=progress,
                real=real,
                bind=bind,
                kernel=kernel,
            )
    show(*summary_tables(result.summary), f"wrote {out}/ ({', '.join(result.files)})")
