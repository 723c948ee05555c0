"""The conformance runner: scenarios in, events out."""
