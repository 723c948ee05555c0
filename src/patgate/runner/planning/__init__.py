"""Planning a run: which scenarios may run on this target, and which may run side by side.

``admission`` decides, before a scenario starts, whether it runs here (a live target's
``--allow-writes`` and ``--max-wait``, a production deployment, the target keys it needs)
and what a missing key costs. ``scheduler`` runs the admitted scenarios on ``--concurrency``
worker threads: each scenario gets a claim derived from its loaded model (how many of a
principal's PAT slots it may hold at once, whether it needs the target alone), and a
scenario starts while the claims of the running ones leave room for it. Nothing here sends
a request.
"""
