"""The repository stands alone: every document it cites is in it, and every cited section exists.

Code, tests, specs and docs explain themselves by citing ``docs/design.md``,
``docs/facts.md`` and ``docs/security.md``. A maintainer can check a status or a rule only
if those citations resolve, so this module scans every tracked text file for:

- a path ending in ``.md`` that names no file of the repository;
- a document outside the repository (the shared folder one level up, or the upper-case
  design, facts and security notes it was once written from);
- ``docs/<page>.md, "Section"`` and ``page.md#anchor`` whose section does not exist;
- ``FACTS <heading>``, ``SECURITY <letter>.<item>`` and ``(security <letter><item>)`` whose
  heading or item does not exist;
- security item numbers used by the catalogue tests (row ids such as ``A3-...``, test
  names such as ``test_A13_...``, ``item 25``) that ``docs/security.md`` lacks.

Each check is a function of a folder and its files, so the twin tests below plant a bad
citation in a copy and see it reported.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SKIPPED_DIRS = frozenset(
    {".git", ".venv", ".cache", "node_modules", "__pycache__", "build", "dist", "reports"}
)

# Patterns are written so that their own source text does not match them.
FOREIGN = re.compile(r"(?:\.\.|/work)/shared\b|\b(?:DESIGN|FACTS|SECURITY|STYLE|PERFORMANCE)\.md\b")
MD_PATH = re.compile(r"(?<![\w./:-])([\w./-]*[\w-]\.md)(?![\w-])")
MD_ANCHOR = re.compile(r"(?<![\w./:-])([\w./-]*[\w-]\.md)#([\w-]+)")
SECTION = re.compile(r"\b(docs/(?:design|facts|security)\.md),?[ \t]*(?:\n[ \t#]*)?\"([^\"\n]+)\"")
FACTS_CITATION = re.compile(r"\"FACTS ([^\"\n]+)\"")
SECURITY_CITATION = re.compile(r"\bSECURITY ([A-Z])(?:\.(\d{1,2})(?:\s*-\s*(\d{1,2}))?)?\b")
SECURITY_ITEM = re.compile(r"\b([A-M])\.(\d{1,3})\b")
ROW_ID = re.compile(r"[\"']([A-M])(\d{1,2})-[\w-]+[\"']")
TEST_NAME = re.compile(r"\btest_([A-M])(\d{1,2})_")
ITEM_WORD = re.compile(r"\b[Ii]tems? (\d{1,3})\b")
SECURITY_ASIDE = re.compile(r"\(security\s+([^)]*)\)")
ASIDE_ITEM = re.compile(r"\b([A-M])(\d{1,3})\b")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)
CATALOGUE_SECTION = re.compile(r"^## ([A-M])\. ", re.MULTILINE)
CATALOGUE_ITEM = re.compile(r"^(\d{1,3})\. ", re.MULTILINE)


@dataclass(frozen=True)
class Tree:
    """A folder and the text of the files to scan, by path relative to it."""

    root: Path
    texts: dict[str, str]
    generated: dict[str, str] = field(default_factory=dict)
    """Pages the documentation site generates at its build (``docs/reference/...``), which
    exist only there: path -> their Markdown."""

    @classmethod
    def of(cls, root: Path, paths: Iterable[str]) -> Tree:
        """Read ``paths`` under ``root``, leaving out binary and non-UTF-8 files."""
        texts: dict[str, str] = {}
        for relative in paths:
            path = root / relative
            if not path.is_file():
                continue
            data = path.read_bytes()
            if b"\0" in data:
                continue
            try:
                texts[relative] = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
        return cls(root, texts)

    def exists(self, relative: str) -> bool:
        return relative in self.generated or (self.root / relative).is_file()

    def text(self, relative: str) -> str:
        if relative in self.generated:
            return self.generated[relative]
        return (self.root / relative).read_text(encoding="utf-8")


def walked_files(root: Path) -> list[str]:
    """Every file under ``root`` outside version-control, cache and build folders."""
    found = []
    for path in root.rglob("*"):
        parts = path.relative_to(root).parts
        if path.is_file() and not SKIPPED_DIRS.intersection(parts):
            found.append(path.relative_to(root).as_posix())
    return sorted(found)


def repository_files(root: Path) -> list[str]:
    """The files git tracks, plus new ones it does not ignore; a plain walk without git."""
    try:
        listing = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return walked_files(root)
    return sorted(name for name in listing.decode("utf-8").split("\0") if name)


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def slug(heading: str) -> str:
    """The anchor a Markdown renderer gives a heading (lower case, punctuation dropped)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings(text: str) -> list[str]:
    """The headings of a Markdown text, outside fenced code blocks."""
    outside = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    return [match.group(1).strip() for match in HEADING.finditer(outside)]


def catalogue_items(text: str) -> dict[str, set[int]]:
    """``docs/security.md``'s item numbers by section letter."""
    items: dict[str, set[int]] = {}
    starts = list(CATALOGUE_SECTION.finditer(text))
    for index, start in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(text)
        body = text[start.end() : end]
        items[start.group(1)] = {int(m.group(1)) for m in CATALOGUE_ITEM.finditer(body)}
    return items


def _resolve(tree: Tree, citing: str, cited: str) -> str | None:
    """The repository path a cited ``.md`` path names, relative to the root or the citer
    (or, in the documentation site's configuration, to ``docs/``; in the generator of its
    reference pages, to ``docs/`` or to the generated pages' folder)."""
    bases = [Path(), Path(citing).parent]
    if citing == "mkdocs.yml":
        bases.append(Path("docs"))
    if citing.startswith(SITE_SOURCES):
        bases += [Path("docs"), Path("docs/reference")]
    for base in bases:
        candidate = (base / cited).as_posix()
        parts: list[str] = []
        for part in candidate.split("/"):
            if part == "..":
                if not parts:
                    break
                parts.pop()
            elif part not in ("", "."):
                parts.append(part)
        else:
            if tree.exists("/".join(parts)):
                return "/".join(parts)
    return None


# -- the checks: each yields "path:line: problem" -----------------------------------------------


def foreign_citations(tree: Tree) -> Iterator[str]:
    """Citations of documents that live outside the repository."""
    for path, text in tree.texts.items():
        for match in FOREIGN.finditer(text):
            line = line_of(text, match.start())
            yield f"{path}:{line}: cites {match.group(0)!r}, not in the repo"


def missing_documents(tree: Tree) -> Iterator[str]:
    """``.md`` paths that name no file of the repository."""
    for path, text in tree.texts.items():
        for match in MD_PATH.finditer(text):
            if _resolve(tree, path, match.group(1)) is None:
                line = line_of(text, match.start())
                yield f"{path}:{line}: cites {match.group(1)!r}, which does not exist"


def missing_sections(tree: Tree) -> Iterator[str]:
    """``docs/page.md, "Section"``, ``page.md#anchor`` and ``"FACTS Heading"`` that resolve
    to no heading."""
    for path, text in tree.texts.items():
        for match in SECTION.finditer(text):
            page, section = match.group(1), match.group(2)
            if tree.exists(page) and section not in headings(tree.text(page)):
                line = line_of(text, match.start())
                yield f"{path}:{line}: {page} has no section {section!r}"
        for match in MD_ANCHOR.finditer(text):
            page = _resolve(tree, path, match.group(1))
            if page is not None and match.group(2) not in map(slug, headings(tree.text(page))):
                line = line_of(text, match.start())
                yield f"{path}:{line}: {page} has no anchor #{match.group(2)}"
        for match in FACTS_CITATION.finditer(text):
            facts = "docs/facts.md"
            if not tree.exists(facts) or match.group(1) not in headings(tree.text(facts)):
                line = line_of(text, match.start())
                yield f"{path}:{line}: {facts} has no section {match.group(1)!r}"


def _cites_catalogue(path: str, text: str) -> bool:
    return path.startswith("tests/security/") or "docs/security.md" in text or "SECURITY " in text


def missing_security_items(tree: Tree) -> Iterator[str]:
    """Security items cited by letter and number that the catalogue does not hold."""
    catalogue = "docs/security.md"
    items = catalogue_items(tree.text(catalogue)) if tree.exists(catalogue) else {}
    everything = set().union(*items.values()) if items else set()

    def check(path: str, text: str, offset: int, letter: str, number: int | None) -> Iterator[str]:
        if letter not in items:
            yield f"{path}:{line_of(text, offset)}: {catalogue} has no section {letter}"
        elif number is not None and number not in items[letter]:
            yield f"{path}:{line_of(text, offset)}: {catalogue} has no item {number} in {letter}"

    for path, text in tree.texts.items():
        if path == catalogue:
            continue
        for match in SECURITY_CITATION.finditer(text):
            letter, first, last = match.groups()
            for number in {first, last} - {None}:
                yield from check(path, text, match.start(), letter, int(number))
            if first is None:
                yield from check(path, text, match.start(), letter, None)
        for aside in SECURITY_ASIDE.finditer(text):
            for match in ASIDE_ITEM.finditer(aside.group(1)):
                letter, number = match.groups()
                yield from check(path, text, aside.start(), letter, int(number))
        if not (path.startswith("tests/") and _cites_catalogue(path, text)):
            continue
        for pattern in (SECURITY_ITEM, ROW_ID, TEST_NAME):
            for match in pattern.finditer(text):
                letter, number = match.groups()
                yield from check(path, text, match.start(), letter, int(number))
        for match in ITEM_WORD.finditer(text):
            if int(match.group(1)) not in everything:
                line = line_of(text, match.start())
                yield f"{path}:{line}: {catalogue} has no item {match.group(1)}"


def problems(tree: Tree) -> list[str]:
    """Every broken citation in ``tree``."""
    checks = (foreign_citations, missing_documents, missing_sections, missing_security_items)
    return sorted(problem for check in checks for problem in check(tree))


# -- the repository ----------------------------------------------------------------------------


SITE_SOURCES = "docs/reference_pages/"
"""The generator of the site's reference pages: it cites pages as the site names them."""

SELF = Path(__file__).resolve().relative_to(REPO).as_posix()
"""This file: its planted citations below are test data, not documentation."""


@functools.cache
def _generated_pages() -> dict[str, str]:
    from docs.reference_pages import render_all

    return render_all()


def with_generated_pages(tree: Tree) -> Tree:
    """``tree`` with the documentation site's generated pages (``docs/reference/...``)."""
    tree.generated.update(_generated_pages())
    return tree


@pytest.fixture(scope="module")
def repository() -> Tree:
    return with_generated_pages(
        Tree.of(REPO, [path for path in repository_files(REPO) if path != SELF])
    )


def test_the_scan_sees_the_documents_and_their_citers(repository: Tree) -> None:
    for page in ("docs/design.md", "docs/facts.md", "docs/security.md", "docs/README.md"):
        assert page in repository.texts, page
    citers = [path for path, text in repository.texts.items() if SECTION.search(text)]
    assert "src/patgate/service/target_contract.py" in repository.texts
    assert len(citers) >= 5, citers


def test_no_file_cites_a_document_outside_the_repository(repository: Tree) -> None:
    assert list(foreign_citations(repository)) == []


def test_every_cited_markdown_file_exists(repository: Tree) -> None:
    assert list(missing_documents(repository)) == []


def test_every_cited_section_exists(repository: Tree) -> None:
    assert list(missing_sections(repository)) == []


def test_every_security_item_the_tests_use_exists(repository: Tree) -> None:
    assert list(missing_security_items(repository)) == []


def test_the_catalogue_numbers_items_once_and_in_order() -> None:
    text = (REPO / "docs" / "security.md").read_text(encoding="utf-8")
    items = catalogue_items(text)
    assert list(items) == list("ABCDEFGHIJKLM")
    numbers = [n for letter in items for n in sorted(items[letter])]
    assert numbers == list(range(1, len(numbers) + 1))
    assert sum(len(found) for found in items.values()) == len(numbers)


def test_the_coverage_table_and_the_rows_agree_with_the_catalogue() -> None:
    from tests.security import test_coverage

    text = (REPO / "docs" / "security.md").read_text(encoding="utf-8")
    items = catalogue_items(text)
    for letter, numbers in test_coverage.SECTIONS.items():
        assert set(numbers) == items[letter], letter
    named = set(test_coverage.LIVE_ONLY) | set(test_coverage.BY_TEST)
    named |= set(test_coverage.IN_WIRE_TABLE)
    assert named <= set().union(*items.values())
    for module in test_coverage.MODULES:
        for row in module.ROWS:
            assert row.item in items[row.id[0]], row.id


def test_design_keeps_the_sections_code_cites() -> None:
    titles = headings((REPO / "docs" / "design.md").read_text(encoding="utf-8"))
    for title in ("The target contract", "Gate vs advisory", "The fake's choices"):
        assert title in titles


# -- twins: a planted bad citation is reported ---------------------------------------------------

# Built from pieces, so not even this file's text names a document from outside.
UPPER_FACTS = "FACTS" + ".md"
SHARED = ".." + "/shared/notes.txt"


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A folder with the repository's documents and one clean citing file."""
    shutil.copytree(REPO / "docs", tmp_path / "docs")
    for page in ("README.md", "ARCHITECTURE.md", "CHANGELOG.md"):
        shutil.copy(REPO / page, tmp_path / page)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "clean.py").write_text(
        '"""See docs/design.md, "Gate vs advisory" and docs/security.md (item 25)."""\n'
        'SECTIONS = ["FACTS Errors", "SECURITY G.56", "SECURITY F.47-50"]\n'
    )
    return tmp_path


def _scan(root: Path) -> list[str]:
    return problems(with_generated_pages(Tree.of(root, walked_files(root))))


def test_twin_the_clean_copy_has_no_problem(copy: Path) -> None:
    assert _scan(copy) == []


@pytest.mark.parametrize(
    ("relative", "text", "reported"),
    [
        ("README.md", f"Background: {UPPER_FACTS}.\n", "not in the repo"),
        ("src/a.py", f"# read {SHARED}\n", "not in the repo"),
        ("src/a.py", '"""Why: docs/nowhere' + '.md."""\n', "does not exist"),
        ("docs/extra.md", "See [the design](../design" + ".md).\n", "does not exist"),
        ("src/a.py", '"""(docs/design.md, "No such section")."""\n', "no section 'No such"),
        ("src/a.py", '# docs/design.md\n# "Gate versus advisory"\n', "no section 'Gate versus"),
        ("docs/extra.md", "[x](design.md#no-such-anchor)\n", "no anchor #no-such-anchor"),
        ("specs/r.yaml", 'sections: ["FACTS Rumours"]\n', "no section 'Rumours'"),
        ("src/a.py", "# (SECURITY G.99)\n", "no item 99 in G"),
        ("src/a.py", "# (SECURITY F.47-53)\n", "no item 53 in F"),
        ("src/a.py", "# (SECURITY Z.1)\n", "has no section Z"),
        ("docs/extra.md", "A choice (security D32,\n  D99).\n", "no item 99 in D"),
        ("tests/security/t.py", 'row("G3-misfiled", 3)\n', "no item 3 in G"),
        ("tests/security/t.py", "def test_H66_lost(): ...\n", "no item 66 in H"),
        ("tests/security/t.py", '"""Covers item 999."""\n', "no item 999"),
    ],
)
def test_twin_a_planted_citation_is_reported(
    copy: Path, relative: str, text: str, reported: str
) -> None:
    target = copy / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    found = _scan(copy)
    assert any(relative in problem and reported in problem for problem in found), found


def test_twin_a_removed_section_breaks_its_citers(copy: Path) -> None:
    design = copy / "docs" / "design.md"
    design.write_text(design.read_text().replace("## Gate vs advisory", "## Levels"))
    found = _scan(copy)
    assert any("src/clean.py" in p and "no section 'Gate vs advisory'" in p for p in found)


def test_twin_a_renumbered_catalogue_breaks_the_tests_that_cite_it(copy: Path) -> None:
    security = copy / "docs" / "security.md"
    security.write_text(security.read_text().replace("\n56. **F/L**", "\n156. **F/L**"))
    found = _scan(copy)
    assert any("src/clean.py" in p and "no item 56 in G" in p for p in found), found


def test_repository_files_falls_back_to_a_walk_outside_git(copy: Path) -> None:
    listed = repository_files(copy)
    assert "docs/design.md" in listed
    assert "src/clean.py" in listed
