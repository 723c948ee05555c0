"""One table of hostile files, run through every loader of a file a user or a pull request
supplies (scenarios, waivers, profile, world file, faults, the served fake's state and its
journal) and through every command-line flag that takes one.

Each is refused as a usage error naming the file (exit code 2, one line on stderr, no
traceback), quickly and in bounded memory: an alias bomb of under 600 bytes, ``/dev/zero``,
a pipe nobody writes to, a file far over every cap, 100,000 levels of nesting, a
``!!python/object`` tag, bytes that are not UTF-8, an empty file and a folder.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from patgate.cli import main
from patgate.commands.serve import load_faults
from patgate.commands.serve_state import open_state
from patgate.errors import UsageError
from patgate.fake.profile import load_profile
from patgate.guards.supplied_files import FileRefused, load_yaml, read_supplied
from patgate.guards.yaml_source import read_documents
from patgate.runner.connection.config import read_world_file
from patgate.runner.results.waivers import load_waivers
from patgate.scenario import load_catalogue
from patgate.scenario.loader import load_file
from patgate.wire.urls import FakeUrls

URLS = FakeUrls.same_origin("http://127.0.0.1:9")
ALIAS_BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "\n".join(
    f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]"
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True)
)
OVER_EVERY_CAP = 2 * 1024**3
"""A sparse file of 2 GiB: over every cap (the state's, 1 GiB, included), on no disk."""
SECONDS = 5.0
"""Each case, refused, takes less than this."""
PEAK_BYTES = 100 * 1024 * 1024
"""Each case, refused, allocates less than this at its peak (the alias bomb, expanded,
takes gigabytes; ``/dev/zero`` read to the end never stops)."""


def _write(text: str | bytes) -> Callable[[Path], Path]:
    def place(path: Path) -> Path:
        data = text.encode("utf-8") if isinstance(text, str) else text
        path.write_bytes(data)
        return path

    return place


def _oversized(path: Path) -> Path:
    with path.open("wb") as handle:
        handle.truncate(OVER_EVERY_CAP)
    return path


def _dev_zero(path: Path) -> Path:
    if path.name.endswith(".journal"):  # the journal is at a name beside the state file
        path.symlink_to("/dev/zero")
        return path
    return Path("/dev/zero")


def _pipe(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _folder(path: Path) -> Path:
    path.mkdir()
    return path


CASES: dict[str, tuple[Callable[[Path], Path], str, str]] = {
    # case: (how the file is made, what a YAML loader says, what a JSON loader says)
    "alias-bomb": (_write(ALIAS_BOMB), "YAML anchors (&a) are not accepted", "not valid JSON"),
    "dev-zero": (_dev_zero, "is larger than", "is larger than"),
    "pipe-no-writer": (_pipe, "", "not valid JSON"),
    "oversized": (_oversized, "is larger than", "is larger than"),
    "deep-nesting": (
        _write("[" * 100_000 + "]" * 100_000),
        "nested deeper than",
        "nested deeper than",
    ),
    "python-tag": (
        _write("!!python/object/apply:os.system ['echo owned']\n"),
        "the tag !!python/object/apply:os.system is not accepted",
        "not valid JSON",
    ),
    "not-utf8": (_write(b"id: caf\xe9\n"), "not UTF-8 text", "not UTF-8 text"),
    "empty": (_write(""), "", "not valid JSON"),
    "folder": (_folder, "it is a folder", "it is a folder"),
}


def _saved_state(folder: Path) -> Path:
    path = folder / "state.json"
    open_state(path, URLS, seed=0, log_size=None).close()
    return path


def _open_state(path: Path) -> None:
    open_state(path, URLS, seed=0, log_size=None).close()


def _open_journal(path: Path) -> None:
    _open_state(path.with_name("state.json"))


LOADERS: dict[str, tuple[str, str, Callable[[Path], Any]]] = {
    # loader: (the file's name, YAML or JSON, how it is loaded)
    "scenario": ("hostile.yaml", "yaml", load_file),
    "waivers": ("waivers.yaml", "yaml", lambda path: load_waivers(path, load_catalogue())),
    "profile": ("profile.yaml", "yaml", load_profile),
    "world-yaml": ("world.yaml", "yaml", read_world_file),
    "world-json": ("world.json", "json", read_world_file),
    "faults": ("faults.json", "json", load_faults),
    "state": ("state.json", "json", _open_state),
    "journal": ("state.json.journal", "json", _open_journal),
}

SPECIAL: dict[tuple[str, str], str] = {
    # The state and its journal are files patgate writes itself: nothing but a regular file.
    ("state", "dev-zero"): "is not a regular file",
    ("state", "pipe-no-writer"): "is not a regular file",
    ("journal", "dev-zero"): "is a symbolic link",
    ("journal", "pipe-no-writer"): "is not a regular file",
    ("world-yaml", "empty"): "must hold a mapping",
    ("world-yaml", "pipe-no-writer"): "must hold a mapping",
    ("scenario", "empty"): "holds no scenario",
    ("scenario", "pipe-no-writer"): "holds no scenario",
    ("waivers", "empty"): "a waiver file is a mapping",
    ("waivers", "pipe-no-writer"): "a waiver file is a mapping",
    ("profile", "empty"): "a profile is one mapping",
    ("profile", "pipe-no-writer"): "a profile is one mapping",
}


def _expected(loader: str, case: str) -> str:
    kind = LOADERS[loader][1]
    return SPECIAL.get((loader, case)) or CASES[case][1 if kind == "yaml" else 2]


def _hostile(tmp_path: Path, loader: str, case: str) -> Path:
    name = LOADERS[loader][0]
    if loader == "journal":
        _saved_state(tmp_path)
    path = CASES[case][0](tmp_path / name)
    if loader == "journal" and path.is_file() and not path.is_symlink():
        # A damaged last line is a write cut short, dropped on purpose: one more follows.
        with path.open("ab") as handle:
            handle.write(b'\n{"seq":1}\n')
    return path


@contextlib.contextmanager
def _bounded() -> Iterator[None]:
    """The block takes less than :data:`SECONDS` and :data:`PEAK_BYTES`."""
    tracemalloc.start()
    started = time.monotonic()
    try:
        yield
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert time.monotonic() - started < SECONDS
    assert peak < PEAK_BYTES, f"{peak} bytes at the peak"


TABLE = [
    (loader, case)
    for loader in LOADERS
    for case in CASES
    if (loader, case) != ("journal", "empty")  # a journal with nothing to replay yet
]


@pytest.fixture(scope="module", autouse=True)
def _warm(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Import every command once, untraced: the bounds are on reading a file, not on the
    first import of a module (tracing makes it several times slower)."""
    missing = str(tmp_path_factory.mktemp("warm") / "absent.yaml")
    for flag, (_, command) in FLAGS.items():
        if not flag.startswith("serve"):
            _patgate(command(Path(missing).parent, Path(missing)))
    for _, _, load in LOADERS.values():
        with contextlib.suppress(UsageError):
            load(Path(missing))


@pytest.mark.parametrize(("loader", "case"), TABLE, ids=[f"{lo}-{c}" for lo, c in TABLE])
def test_every_loader_refuses_every_hostile_file_naming_it(
    tmp_path: Path, loader: str, case: str
) -> None:
    path = _hostile(tmp_path, loader, case)
    with _bounded(), pytest.raises(UsageError) as refused:
        LOADERS[loader][2](path)
    message = str(refused.value)
    assert str(path) in message
    assert _expected(loader, case) in message
    assert "\n" not in message


def _patgate(args: list[str]) -> tuple[int, str, str]:
    """``patgate ARGS`` in this process; a server that starts anyway is stopped in 10 s."""
    out, err = io.StringIO(), io.StringIO()
    stopper = threading.Timer(10.0, lambda: os.kill(os.getpid(), 15))
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        if args[0] == "serve":
            stopper.start()
        try:
            code = main(args)
        finally:
            stopper.cancel()
    return code, out.getvalue(), err.getvalue()


ONE_SCENARIO = """\
id: one
title: One client token
rules: [CONTENT-CLIENT-TOKEN]
steps:
  - name: get a client token
    token:
      client_id: ${client_id}
      client_secret: ${client_secret}
      grant_type: client_credentials
    expect:
      - status: 200
"""


def _one_scenario(folder: Path) -> str:
    """One small scenario file: a run reads its waivers once its scenarios are loaded."""
    path = folder / "one-scenario.yaml"
    path.write_text(ONE_SCENARIO, encoding="utf-8")
    return str(path)


def _world(folder: Path) -> Path:
    path = folder / "target.json"
    path.write_text(json.dumps({"base_url": "http://127.0.0.1:9"}), encoding="utf-8")
    return path


FLAGS: dict[str, tuple[str, Callable[[Path, Path], list[str]]]] = {
    # flag: (the loader of its file, the command line)
    "run --scenarios": ("scenario", lambda _, p: ["run", "--scenarios", str(p)]),
    "run --waivers": (
        "waivers",
        lambda tmp, p: ["run", "--scenarios", _one_scenario(tmp), "--waivers", str(p)],
    ),
    "run --profile": ("profile", lambda _, p: ["run", "--profile", str(p)]),
    "run --world yaml": ("world-yaml", lambda _, p: ["run", "--world", str(p)]),
    "run --world json": ("world-json", lambda _, p: ["run", "--world", str(p)]),
    "compare --profile": (
        "profile",
        lambda tmp, p: ["compare", "--world", str(_world(tmp)), "--profile", str(p)],
    ),
    "serve --profile": ("profile", lambda _, p: ["serve", "--port", "0", "--profile", str(p)]),
    "serve --faults": ("faults", lambda _, p: ["serve", "--port", "0", "--faults", str(p)]),
    "serve --state": ("state", lambda _, p: ["serve", "--port", "0", "--state", str(p)]),
    "serve --state journal": (
        "journal",
        lambda _, p: ["serve", "--port", "0", "--state", str(p.with_name("state.json"))],
    ),
}

COMMAND_TABLE = [
    (flag, case)
    for flag in FLAGS
    for case in CASES
    # A folder given to --scenarios is a folder of scenario files, not a hostile file.
    if (flag, case) not in (("run --scenarios", "folder"), ("serve --state journal", "empty"))
]


@pytest.mark.parametrize(
    ("flag", "case"), COMMAND_TABLE, ids=[f"{f}-{c}" for f, c in COMMAND_TABLE]
)
def test_every_flag_refuses_every_hostile_file_with_exit_2_and_one_line(
    tmp_path: Path, flag: str, case: str
) -> None:
    loader, command = FLAGS[flag]
    path = _hostile(tmp_path, loader, case)
    with _bounded():
        code, out, err = _patgate(command(tmp_path, path))
    assert code == 2, out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(path) in lines[0]
    assert _expected(loader, case) in lines[0]
    assert "Traceback" not in out + err


# -- the discipline itself, where each guard is checked alone -------------------------------


def test_the_alias_bomb_is_small() -> None:
    assert len(ALIAS_BOMB.encode()) < 600


def test_a_writer_s_data_through_a_pipe_is_read_up_to_the_cap(tmp_path: Path) -> None:
    pipe = _pipe(tmp_path / "pipe.yaml")

    def write() -> None:
        with contextlib.suppress(BrokenPipeError), pipe.open("wb") as handle:
            for _ in range(64):
                handle.write(b"#" * 65536)  # 4 MiB in all, then more than the cap of 1 MiB

    writer = threading.Thread(target=write)
    writer.start()
    time.sleep(0.2)  # the writer waits in its open: the reader sees it, and waits for data
    try:
        with pytest.raises(FileRefused, match="is larger than 1 MiB"):
            read_supplied(pipe, limit=1024 * 1024)
    finally:
        writer.join(timeout=5)


def test_a_pipe_of_plain_yaml_is_read(tmp_path: Path) -> None:
    pipe = _pipe(tmp_path / "pipe.yaml")
    writer = threading.Thread(target=lambda: pipe.write_text("a: [1, 2]\n", encoding="utf-8"))
    writer.start()
    time.sleep(0.2)
    try:
        assert [doc.data for doc in load_yaml(pipe)] == [{"a": [1, 2]}]
    finally:
        writer.join(timeout=5)


@pytest.mark.parametrize(
    "text",
    ["a: !!str 1\n", "a: !!int '2'\n", "a: !!float 1\nb: !!bool yes\nc: !!null ''\n", "a: '!'"],
)
def test_the_plain_yaml_tags_are_accepted(tmp_path: Path, text: str) -> None:
    path = tmp_path / "plain.yaml"
    path.write_text(text, encoding="utf-8")
    assert len(load_yaml(path)) == 1


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("a: 1\nb: !local x\n", 2, "the tag !local is not accepted"),
        ("a: 1\nb: !!set {x}\n", 2, "the tag !!set is not accepted"),
        ("a: 1\nb:\n  c: *x\n", 3, "YAML aliases (*x) are not accepted"),
        ("a: 1\nb: &x [1]\n", 2, "YAML anchors (&x) are not accepted"),
        ("a: 1\n\nb: caf\xe9\n", 3, "not UTF-8"),
    ],
)
def test_a_refusal_names_the_line(tmp_path: Path, text: str, line: int, problem: str) -> None:
    path = tmp_path / "named.yaml"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(FileRefused) as refused:
        load_yaml(path)
    assert str(refused.value).startswith(f"{path}:{line}: ")
    assert problem in str(refused.value)


def test_a_regular_file_over_the_cap_is_refused_from_its_size_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import patgate.guards.supplied_files as supplied_files

    path = tmp_path / "big.yaml"
    path.write_bytes(b"#" * 1025)

    def never(*_: object) -> bytes:
        raise AssertionError("read")

    monkeypatch.setattr(supplied_files, "_read_at_most", never)
    with pytest.raises(FileRefused, match=r"big\.yaml: is larger than 1024 bytes"):
        read_supplied(path, limit=1024)


def test_the_line_keeping_reader_refuses_an_alias_of_a_collection_on_its_own() -> None:
    # A second guard: whatever text reaches it, the reader does not walk a shared subtree
    # once per path to it (the alias bomb's billions of steps).
    with pytest.raises(UsageError, match=r"bomb\.yaml:1: YAML aliases are not accepted"):
        read_documents(ALIAS_BOMB, "bomb.yaml")
    with pytest.raises(UsageError, match=r"map\.yaml:2: YAML aliases are not accepted"):
        read_documents("top:\n  a: &x {k: {v: 1}}\n  b: *x\n", "map.yaml")
    assert read_documents("a: &x 1\nb: *x\n", "scalar.yaml")[0].data == {"a": 1, "b": 1}


def _limit_memory() -> None:
    import resource

    # One GiB of address space: the alias bomb, once expanded, needs more; a refusal less.
    resource.setrlimit(resource.RLIMIT_AS, (1024**3, 1024**3))


@pytest.mark.parametrize("case", ["alias-bomb", "dev-zero"])
def test_the_red_team_s_waivers_files_exit_2_in_a_real_process(tmp_path: Path, case: str) -> None:
    import subprocess
    import sys

    path = CASES[case][0](tmp_path / "waivers.yaml")
    scenario = _one_scenario(tmp_path)
    command = [sys.executable, "-m", "patgate", "run", "--scenarios", scenario, "--waivers"]
    command.append(str(path))
    started = time.monotonic()
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=60, preexec_fn=_limit_memory
    )
    assert time.monotonic() - started < 20, "the red team saw 20 s and 1 GB before this"
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert f"--waivers: {path}" in result.stderr
    assert "Traceback" not in result.stdout + result.stderr
