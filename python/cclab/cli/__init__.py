"""The ``cclab`` command. One module per subcommand; this file only registers them on `app`.

To add a command group, write ``cclab/cli/<name>.py`` defining a ``typer.Typer`` (or a function) and add one
``app.add_typer(...)`` (or ``app.command(...)``) line below.
"""

from typing import Annotated

import typer

from cclab.cli import compare, doctor, emulate, fidelity, plot, report, reproduce, run, scenarios, sweep, validate

app = typer.Typer(
    name="cclab",
    help="cclab: a congestion-control laboratory (deterministic simulator, TOML scenarios).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from cclab import __version__

        typer.echo(f"cclab {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", "-V", callback=_version, is_eager=True, help="Print the cclab version and exit.", metavar=""
        ),
    ] = False,
) -> None:
    """cclab: a congestion-control laboratory (deterministic simulator, TOML scenarios)."""


app.command("run")(run.run)
app.command("validate")(validate.validate)
app.command("scenarios")(scenarios.scenarios)
app.command("plot")(plot.plot)
app.command("sweep")(sweep.sweep)
app.command("reproduce")(reproduce.reproduce)
app.command("compare")(compare.compare)
app.command("report")(report.report)
app.command("doctor")(doctor.doctor)
app.command("emulate")(emulate.emulate)
app.command("fidelity")(fidelity.fidelity)


def main() -> None:
    """Entry point of the ``cclab`` console script."""
    app(prog_name="cclab")
