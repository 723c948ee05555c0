"""Executing one scenario: its steps in order, its checks, its cleanup.

``scenario_execution`` walks a scenario's steps and binds what each produced;
``step_senders`` holds the executors of the step kinds (the HTTP, GraphQL and token calls a
step sends) and ``control_performer`` those of the control actions (what a ``control:`` step
asks of the fake's control plane). Both see the running scenario through the
``executing.Executing`` protocol, so they never import the execution that calls them.
"""
