"""The ``cclab`` command. One module per subcommand; this file only registers them on `app`.

To add a command group, write ``cclab/cli/<name>.py`` defining a ``typer.Typer`` (or a function) and add one
``app.add_typer(...)`` (or ``app.command(...)``) line below.
"""

import typer

from cclab.cli import emulate, fidelity, plot, reproduce, run, scenarios, sweep, validate

app = typer.Typer(
    name="cclab",
    help="cclab: a congestion-control laboratory (deterministic simulator, TOML scenarios).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.command("run")(run.run)
app.command("validate")(validate.validate)
app.command("scenarios")(scenarios.scenarios)
app.command("plot")(plot.plot)
app.command("sweep")(sweep.sweep)
app.command("reproduce")(reproduce.reproduce)
app.command("emulate")(emulate.emulate)
app.command("fidelity")(fidelity.fidelity)


def main() -> None:
    """Entry point of the ``cclab`` console script."""
    app(prog_name="cclab")
