"""The pytest plugin's parts: scenarios as test items, their xdist workers, behaviour coverage.
The plugin's entry point, ``patgate.pytest_plugin``, stays light and imports these lazily."""
