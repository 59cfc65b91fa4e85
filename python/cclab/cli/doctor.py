"""``cclab doctor``: findings per flow on the terminal or as JSON, figures on disk, an exit code for CI."""

import json
from pathlib import Path
from typing import Annotated

import typer

from cclab.cli._common import EXIT_INVALID
from cclab.cli._render import Table, error, say, show
from cclab.many_flows import MANY_FLOWS

#: Exit code when a finding named by ``--fail-on`` was made.
EXIT_FINDING = 1
#: Time ranges printed per finding (all of them are in the JSON and the figure).
SPANS_SHOWN = 5


def doctor(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Run directories, directories of qlog files, or qlog files.", metavar="TRACE_OR_RUN_DIR..."
        ),
    ],
    json_out: Annotated[bool, typer.Option("--json", help="Print the findings as JSON instead of tables.")] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Directory for the figures (default: a doctor/ directory beside each input).",
            metavar="DIR",
        ),
    ] = None,
    no_figures: Annotated[bool, typer.Option("--no-figures", help="Do not draw figures.")] = False,
    fail_on: Annotated[
        list[str] | None,
        typer.Option(
            "--fail-on", help="Exit 1 if this finding (a name, or 'any') is made; repeatable.", metavar="NAME|any"
        ),
    ] = None,
) -> None:
    """Name the pathologies in runs and traces, with the evidence, a figure and the fix to try."""
    from cclab.doctor import NAMES, diagnose
    from cclab.doctor.figures import draw
    from cclab.traces.qlog import QlogError
    from cclab.traces.rundir import RunDirError

    wanted = set(fail_on or [])
    unknown = wanted - {*NAMES, "any"}
    if unknown:
        error(f"--fail-on: unknown finding {', '.join(sorted(unknown))}; expected one of {', '.join(NAMES)} or 'any'")
        raise typer.Exit(EXIT_INVALID)
    diagnoses = []
    try:
        for p in paths:
            diagnoses += diagnose(p)
    except (QlogError, RunDirError) as e:
        error(str(e))
        raise typer.Exit(EXIT_INVALID) from None
    except OSError as e:
        error(f"{e.filename or ''}: {e.strerror or e}")
        raise typer.Exit(EXIT_INVALID) from None
    if not no_figures:
        for d in diagnoses:
            fig_dir = out or (d.source if d.source.is_dir() else d.source.parent) / "doctor"
            for f in d.findings:
                f.figures = [str(p) for p in draw(f, fig_dir, d.label)]
    if json_out:
        print(json.dumps([d.to_json() for d in diagnoses], indent=2))
    else:
        quiet = [d for d in diagnoses if not d.findings]
        # Past `MANY_FLOWS` diagnoses (a 1,000-flow run makes 1,000), those without a finding share one line.
        many = len(diagnoses) > MANY_FLOWS and len(quiet) > 1
        for d in diagnoses:
            if d.findings or not many:
                _print(d)
        if many:
            say(f"{len(quiet)} others ({quiet[0].label} … {quiet[-1].label}): no finding")
    made = {f.name for d in diagnoses for f in d.findings}
    if ("any" in wanted and made) or (wanted & made):
        raise typer.Exit(EXIT_FINDING)


def _print(d) -> None:
    head = f"{d.label} ({d.mode}; read: {', '.join(d.inputs) or 'nothing'})"
    if not d.findings:
        say(f"{head}: no finding")
        return
    say(f"{head}: {len(d.findings)} finding(s)")
    for f in d.findings:
        table = Table(f"{f.name} — {f.verdict}")
        table.add_column("evidence")
        table.add_column("value", right=True)
        table.add_column("threshold")
        for q, v, t in f.evidence:
            table.add_row(q, v, t)
        lines: list[str | Table] = [table]
        if f.spans:
            shown = ", ".join(f"{a:.6g}–{b:.6g} s" if b > a else f"{a:.6g} s" for a, b in f.spans[:SPANS_SHOWN])
            more = f" … ({len(f.spans)} in all)" if len(f.spans) > SPANS_SHOWN else ""
            lines.append(f"  time ranges: {shown}{more}")
        lines.append(f"  seed report: {f.seed}   fix: {f.fix}")
        lines += [f"  figure: {p}" for p in f.figures]
        show(*lines)
