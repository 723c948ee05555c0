from __future__ import annotations

import inspect

import patgate.errors
from patgate.errors import DomainError, Forbidden, NotFound, Unauthenticated
from patgate.wire import STATUS_BY_ERROR, status_of


def test_every_domain_error_class_has_a_status() -> None:
    classes = {
        cls
        for _, cls in inspect.getmembers(patgate.errors, inspect.isclass)
        if issubclass(cls, DomainError) and cls is not DomainError
    }
    assert classes <= set(STATUS_BY_ERROR)
    assert all(400 <= status < 500 for status in STATUS_BY_ERROR.values())


def test_statuses_follow_the_design() -> None:
    assert status_of(Unauthenticated("x")) == 401
    assert status_of(Forbidden("x")) == 403
    assert status_of(NotFound("x")) == 404


def test_a_subclass_takes_its_nearest_listed_base() -> None:
    class Suspended(Forbidden):
        pass

    class Odd(DomainError):
        pass

    assert status_of(Suspended("x")) == 403
    assert status_of(Odd("x")) == 400
