"""Custody of what a run creates: the ledger, the custodian, the leak watch.

The ``custodian`` is the only code that creates or deletes tokens, always through the
``ledger`` (an append-only file, or memory on the embedded fake, where each create is
written before it is sent and each delete after it is seen done), so a run that is cut
short can be finished by ``patgate cleanup``. ``leaks`` remembers every full PAT value the
run was given and looks through each later answer for them.
"""
