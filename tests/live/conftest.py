"""A live target in another process for every test that asks: ``patgate serve``."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from .support import Served, patgate_command, stop


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """``patgate serve --port 0 --world w.json`` in another process, for one test.

    Scope: function. Type: :class:`Served`. Default: the default world, on 127.0.0.1, its
    target file without the control keys (a live deployment offers no control; they are in
    ``Served.control`` for a test that sets the stage).
    """
    world_file = tmp_path / "w.json"
    process = subprocess.Popen(
        [*patgate_command(), "serve", "--port", "0", "--world", str(world_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("patgate serve: listening on http://127.0.0.1:"), line
        # Like a real deployment: no control API in the target file, so waits take real time.
        world = json.loads(world_file.read_text(encoding="utf-8"))
        control = {key: world.pop(key) for key in ("control_url", "control_token") if key in world}
        world_file.write_text(json.dumps(world), encoding="utf-8")
        yield Served(process, line.rsplit(" ", 1)[1].strip(), world_file, tmp_path, control)
    finally:
        stop(process)
