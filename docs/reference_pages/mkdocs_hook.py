"""The site's build hook (``hooks:`` in ``mkdocs.yml``).

- ``on_files``: adds the generated reference pages (:mod:`docs.reference_pages`) to the
  site; they are never files in the repository, so they cannot fall behind the code.
- ``on_page_markdown``: a link from a page to a file of the repository outside ``docs/``
  (``../README.md``, ``../ARCHITECTURE.md``) leads to that file in the repository when
  ``repo_url`` is set, else becomes its text and path; a link to a file that does not
  exist is left alone, for ``--strict`` to refuse.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # mkdocs loads this file by its path, not as a module
    sys.path.insert(0, str(ROOT))

from docs.reference_pages import render_all  # noqa: E402

_LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\(([^)\s#]+)(#[^)\s]*)?\)")
_FENCE = re.compile(r"(?ms)^(```|~~~).*?^\1")


def on_files(files: Any, config: Any) -> Any:
    """Add the generated reference pages."""
    from mkdocs.structure.files import File

    for path, markdown in render_all().items():
        uri = path.removeprefix("docs/")
        files.append(File.generated(config, uri, content=markdown))
    return files


def outside_link(
    page_path: Path, docs_dir: Path, target: str, text: str, repo_url: str
) -> str | None:
    """The replacement of a link from ``page_path`` to ``target``, or ``None`` to keep it."""
    if "://" in target or target.startswith(("/", "mailto:")):
        return None
    resolved = (page_path.parent / target).resolve()
    if resolved.is_relative_to(docs_dir) or not resolved.is_relative_to(ROOT):
        return None
    if not resolved.exists():
        return None  # a broken link: mkdocs --strict names it
    in_repo = resolved.relative_to(ROOT).as_posix()
    if repo_url:
        return f"[{text}]({repo_url.rstrip('/')}/blob/HEAD/{in_repo})"
    return text if in_repo in text else f"{text} (`{in_repo}`)"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Turn links to repository files outside ``docs/`` into links the site can keep."""
    if page.file.abs_src_path is None:
        return markdown  # a generated page links only within the site
    docs_dir = Path(config["docs_dir"]).resolve()
    page_path = Path(page.file.abs_src_path).resolve()
    repo_url = config.get("repo_url") or ""

    def replace(found: re.Match[str]) -> str:
        text, target = found.group(1), found.group(2)
        new = outside_link(page_path, docs_dir, target, text, repo_url)
        return found.group() if new is None else new

    pieces, last = [], 0
    for fence in _FENCE.finditer(markdown):  # code blocks stay as written
        pieces += [_LINK.sub(replace, markdown[last : fence.start()]), fence.group()]
        last = fence.end()
    pieces.append(_LINK.sub(replace, markdown[last:]))
    return "".join(pieces)
