"""Interception that waits for its library: start it once the process imports the library.

Importing requests costs ~40 ms, about what the rest of a first fake costs. A process that
has not imported it yet may never do so, so :class:`StartOnImport` leaves it alone: it
registers a callback with :func:`call_after_import`, and the interception starts inside the
``import`` statement that first loads the library, before that statement returns. Code
under test that imports requests while a fake is active is therefore intercepted as if the
library had been there all along.

The hook is a finder at the front of ``sys.meta_path`` while some callback waits, and only
then. For a watched module it returns the spec the other finders would have returned, with
the loader wrapped: the wrapper puts the real loader back on the module before running the
module's body (``__loader__`` and ``__spec__.loader`` stay what they would have been), then
runs the callbacks.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Protocol

__all__ = ["StartOnImport", "call_after_import"]

_lock = threading.RLock()
_waiting: dict[str, list[Callable[[], None]]] = {}


class _Interception(Protocol):
    def start(self) -> None: ...
    def stop(self) -> None: ...


class _AfterImportLoader(Loader):
    """Executes the module with its own loader, then calls what waits for it."""

    def __init__(self, loader: Loader) -> None:
        self._loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        _imported(module.__name__)


class _AfterImportFinder(MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in _waiting:
            return None
        for finder in list(sys.meta_path):
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec: ModuleSpec | None = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _AfterImportLoader(spec.loader)
                return spec
        return None


_finder = _AfterImportFinder()


def _imported(name: str) -> None:
    with _lock:
        callbacks = _waiting.pop(name, [])
        _drop_finder_if_idle()
    failure: BaseException | None = None
    for callback in callbacks:
        # One failing callback (a bug) must not leave the others waiting forever.
        try:
            callback()
        except BaseException as error:
            failure = failure or error
    if failure is not None:
        raise failure


def _drop_finder_if_idle() -> None:
    if not _waiting and _finder in sys.meta_path:
        sys.meta_path.remove(_finder)


def call_after_import(name: str, callback: Callable[[], None]) -> Callable[[], None]:
    """Call ``callback`` once module ``name`` is imported: now if it already is, else right
    after its first import has run its body. Returns a function cancelling a call not yet
    made (safe to call at any time)."""
    with _lock:
        if name in sys.modules:
            imported = True
        else:
            imported = False
            _waiting.setdefault(name, []).append(callback)
            if _finder not in sys.meta_path:
                sys.meta_path.insert(0, _finder)
    if imported:
        callback()

    def cancel() -> None:
        with _lock:
            waiting = _waiting.get(name, [])
            if callback in waiting:
                waiting.remove(callback)
                if not waiting:
                    del _waiting[name]
            _drop_finder_if_idle()

    return cancel


class StartOnImport:
    """Starts the interception ``make()`` builds once module ``library`` is imported.

    ``make`` is called inside the import, so it may import the library's adapter module.
    Stopping before the library was imported leaves nothing behind.
    """

    def __init__(self, library: str, make: Callable[[], _Interception]) -> None:
        self._library = library
        self._make = make
        self._interception: _Interception | None = None
        self._cancel: Callable[[], None] | None = None

    def start(self) -> None:
        """Start the interception now if the library is imported, else when it is."""
        if self._cancel is None:
            self._cancel = call_after_import(self._library, self._begin)

    def _begin(self) -> None:
        interception = self._make()
        interception.start()
        self._interception = interception

    def stop(self) -> None:
        """Stop the interception, or stop waiting for the library (safe to call twice)."""
        if self._cancel is not None:
            self._cancel()
            self._cancel = None
        if self._interception is not None:
            self._interception.stop()
            self._interception = None
