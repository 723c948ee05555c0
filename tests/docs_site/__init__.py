"""The documentation site: its generated reference pages, its build, and the examples its
pages (and README.md) show, run."""
