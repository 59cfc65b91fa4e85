"""The ``cclab`` command. One module per subcommand; this file only registers them on `app`.

To add a command, write ``cclab/cli/<name>.py`` defining its function and add one line to ``COMMANDS``. Command
modules do without ``from __future__ import annotations``: typer reads a command's signature before it parses,
and string annotations it evaluates twice (``inspect.signature(eval_str=True)``, then ``get_type_hints``), which
was 12 M instructions, 4 % of a one-packet ``cclab run`` (issue #14).
"""

import sys
from importlib import import_module
from typing import Annotated

import typer

#: The commands, each the function of that name in the module of that name under ``cclab.cli``. A run of one
#: command imports and registers only that command: typer inspects every registered command's signature before it
#: parses anything, and the eleven modules with their imports were an eighth of a one-packet ``cclab run``'s
#: instructions (issue #14). Help, version and unknown commands register them all.
COMMANDS = (
    "run",
    "validate",
    "scenarios",
    "plot",
    "sweep",
    "reproduce",
    "compare",
    "report",
    "doctor",
    "emulate",
    "fidelity",
)


def _version(value: bool) -> None:
    if value:
        from cclab import __version__

        typer.echo(f"cclab {__version__}")
        raise typer.Exit()


def build_app(only: str | None = None) -> typer.Typer:
    """The ``cclab`` application with every command, or with command `only` alone."""
    app = typer.Typer(
        name="cclab",
        help="cclab: a congestion-control laboratory (deterministic simulator, TOML scenarios).",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )

    @app.callback()
    def _root(
        version: Annotated[
            bool,
            typer.Option(
                "--version",
                "-V",
                callback=_version,
                is_eager=True,
                help="Print the cclab version and exit.",
                metavar="",
            ),
        ] = False,
    ) -> None:
        """cclab: a congestion-control laboratory (deterministic simulator, TOML scenarios)."""

    for name in COMMANDS:
        if only is None or name == only:
            app.command(name)(getattr(import_module(f"cclab.cli.{name}"), name))
    return app


def __getattr__(name: str) -> typer.Typer:
    # ``from cclab.cli import app`` (tests, embedding) gets the full application, built once.
    if name == "app":
        app = build_app()
        globals()["app"] = app
        return app
    raise AttributeError(name)


def main() -> None:
    """Entry point of the ``cclab`` console script."""
    command = sys.argv[1] if len(sys.argv) > 1 else None
    build_app(command if command in COMMANDS else None)(prog_name="cclab")
