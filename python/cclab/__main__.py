"""``python -m cclab``: the same as the ``cclab`` command."""

from cclab.cli import main

main()
