"""What a run reports: events, outcomes, waivers.

``events`` are the values a run yields (what every reporter reads, and nothing else of the
runner); ``outcomes`` turns scenario results into rule verdicts, tallies and the exit code;
``waivers`` reads a ``--waivers`` file and marks the failures it accepts as waived. No
module here sends a request or knows a target.
"""
