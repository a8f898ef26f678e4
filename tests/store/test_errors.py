"""The store's one exception tree: every error it raises is a StoreError, so a front door that
translates StoreError at its edge translates them all; each keeps the base its own callers catch
it by (ValueError, OSError). A private exception (`_Released`) is a signal that never leaves
its module, not an error, and stays out of the tree."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import origin_store
from origin_store.errors import StoreError
from origin_store.ingest.rowlog import RowLogError
from origin_store.mirrors.spans import SpanError
from origin_store.replication.check import BatchRefused


def _store_exceptions() -> dict[str, type[BaseException]]:
    found = {}
    for info in pkgutil.walk_packages(origin_store.__path__, "origin_store."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == module.__name__
                and not name.startswith("_")
            ):
                found[f"{module.__name__}.{name}"] = value
    return found


def test_every_store_exception_is_a_store_error() -> None:
    found = _store_exceptions()
    assert "origin_store.mirrors.spans.SpanError" in found  # the walk reaches the modules
    outside = sorted(name for name, error in found.items() if not issubclass(error, StoreError))
    assert not outside, f"outside the StoreError tree: {outside}"


@pytest.mark.parametrize(
    ("error", "base"), [(SpanError, ValueError), (BatchRefused, ValueError), (RowLogError, OSError)]
)
def test_a_store_error_keeps_the_base_it_is_caught_by(
    error: type[Exception], base: type[Exception]
) -> None:
    raised = error("a: readable message")
    assert isinstance(raised, StoreError) and isinstance(raised, base)
    assert str(raised) == "a: readable message"
