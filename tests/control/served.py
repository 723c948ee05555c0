"""Start ``patgate serve`` in a separate process for the control tests, and stop it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def patgate_command() -> list[str]:
    """The ``patgate`` script beside this interpreter, or ``python -m patgate``."""
    script = shutil.which("patgate", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "patgate"]


@contextmanager
def served(world_file: Path, *args: str) -> Iterator[dict[str, Any]]:
    """Serve on a free loopback port; yields the target file's contents. Stops by SIGTERM."""
    process = subprocess.Popen(
        [*patgate_command(), "serve", "--port", "0", "--world", str(world_file), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("patgate serve: listening on http://"), line + (
            process.stderr.read() if process.stderr and process.poll() is not None else ""
        )
        yield json.loads(world_file.read_text(encoding="utf-8"))
    finally:
        if process.poll() is None:
            process.terminate()  # the process started here, by its handle
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
