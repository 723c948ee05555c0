"""Test-suite configuration: ``pytester`` drives the plugin's own tests."""

pytest_plugins = ["pytester"]
