"""The management page of one fake, built from the fake's control operations.

The composition above the wire app (:class:`patgate.Fake`) mounts the page into the app
under ``{base_url}/ui`` (``WireApp.mount_subtree``) and calls :func:`management_page` when
a request first reaches it, so the wire app knows nothing of the page and a fake nobody
browses never imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from patgate.ui.access import UiAccess
from patgate.ui.operations import UiOperations
from patgate.ui.site import ManagementUi

if TYPE_CHECKING:
    from patgate.wire.control_service import ControlService
    from patgate.wire.urls import FakeUrls

__all__ = ["management_page"]


def management_page(urls: FakeUrls, control: ControlService, secret: str) -> ManagementUi:
    """The page served under ``urls.ui_url``, acting through ``control`` (the fake's control
    operations) and opened by ``secret`` (the page's key, :mod:`patgate.ui.access`)."""
    access = UiAccess(secret, (urls.base_url, urls.auth_url, urls.graphql_url))
    return ManagementUi(UiOperations.through(control), urls.ui_url, access)
