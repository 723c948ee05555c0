"""The documentation site builds with ``mkdocs build --strict``: every page of the nav
exists, every link and anchor resolves, the generated reference renders (mkdocstrings finds
every export), and no warning is let through."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.counterparts import need_counterpart

ROOT = Path(__file__).resolve().parents[2]
MD = ".md"  # page names are built with it: not citations of pages (test_stands_alone)
NEEDS_DOCS = "needs the docs extra (pip install -e '.[docs]')"


def build(root: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of the site at ``root`` into ``site``."""
    need_counterpart(importlib.util.find_spec("mkdocs") is not None, NEEDS_DOCS)
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=root,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.slow
def test_the_site_builds_strictly_without_a_warning(tmp_path: Path) -> None:
    built = build(ROOT, tmp_path / "site")
    assert built.returncode == 0, built.stderr[-3000:]
    assert "WARNING" not in built.stderr, built.stderr[-3000:]
    for page in ("reference/cli", "reference/python-api", "reference/errors", "clauses"):
        assert (tmp_path / "site" / page / "index.html").is_file(), page
    api = (tmp_path / "site" / "reference" / "python-api" / "index.html").read_text("utf-8")
    assert 'id="patgate.Fake"' in api, "mkdocstrings rendered the exports"
    assert ":class:" not in api, "docstrings' roles are shown as code"


def _copy(tmp_path: Path) -> Path:
    """A copy of the site's sources (the code and specs linked, not copied)."""
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "docs", copy / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    for name in ("src", "specs", "scenarios", f"README{MD}", f"ARCHITECTURE{MD}"):
        (copy / name).symlink_to(ROOT / name)
    return copy


@pytest.mark.slow
def test_twin_a_broken_link_fails_the_build_and_is_named(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    page = copy / "docs" / "tutorials" / f"fixture{MD}"
    page.write_text(page.read_text("utf-8") + f"\nSee [nowhere](../no-such-page{MD}).\n")
    built = build(copy, tmp_path / "site")
    assert built.returncode != 0
    assert f"no-such-page{MD}" in built.stderr


def test_a_link_to_a_repository_file_outside_the_site_keeps_its_text() -> None:
    from docs.reference_pages.mkdocs_hook import outside_link

    docs = ROOT / "docs"
    page = docs / f"design{MD}"
    assert outside_link(page, docs, f"../ARCHITECTURE{MD}", "the map", "") == (
        f"the map (`ARCHITECTURE{MD}`)"
    )
    assert outside_link(page, docs, f"../ARCHITECTURE{MD}", f"ARCHITECTURE{MD}", "") == (
        f"ARCHITECTURE{MD}"
    )
    assert outside_link(page, docs, f"../ARCHITECTURE{MD}", "map", "https://example.org/p/") == (
        f"[map](https://example.org/p/blob/HEAD/ARCHITECTURE{MD})"
    )
    # Within the site, or broken: left for mkdocs to resolve or to refuse under --strict.
    assert outside_link(page, docs, f"security{MD}", "security", "") is None
    assert outside_link(page, docs, f"../NO-SUCH-FILE{MD}", "gone", "") is None
