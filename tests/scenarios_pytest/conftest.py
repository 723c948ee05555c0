"""pytester forgets the modules an inner session imported, and keeps those imported before.

The modules that bind executors to the scenario layer's registries are imported here, once,
outside the inner sessions: imported again inside one (while the registries they bind to
are kept), they would bind a second time and fail ("already has an executor"), as they did
when this folder ran on its own.
"""

import patgate.checks
import patgate.runner.execution.control_performer
import patgate.runner.execution.step_senders  # noqa: F401
