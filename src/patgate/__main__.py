"""``python -m patgate`` is the ``patgate`` command."""

import sys

from patgate.cli import main

sys.exit(main())
