"""Subcommands of the ``patgate`` command, one module each."""
