"""``cclab validate``: parse and check a scenario without running it."""

from pathlib import Path
from typing import Annotated

import typer

from cclab import api
from cclab.cli._common import SetOption, user_errors
from cclab.cli._render import say


def validate(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.", metavar="SCENARIO.toml")],
    set_: SetOption = None,
) -> None:
    """Check SCENARIO.toml (with overrides): print "ok", or the error naming file and key (exit 2)."""
    with user_errors():
        api.load(scenario, set_ or [])
    say("ok")
