"""``python -m codegraph`` runs the CLI."""

from codegraph.cli import main

main()
