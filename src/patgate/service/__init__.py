"""The vendor service's addresses: its paths and the keys that describe a deployment."""
