"""Runs last (pytest orders files by name): every operation of the document has its method on
both clients, and this suite called every one of them against the service."""

from __future__ import annotations

import inspect
from functools import reduce

import combo
from combo._generated.surface import OPERATIONS
from conftest import CALLED


def test_every_operation_has_a_method_on_both_clients() -> None:
    sync, asynchronous = combo.Combo(base_url="http://x", api_key="k"), combo.AsyncCombo(base_url="http://x", api_key="k")
    for operation_id, resource, method in OPERATIONS:
        for client in (sync, asynchronous):
            target = reduce(getattr, resource.split("."), client)
            assert callable(getattr(target, method, None)), f"{operation_id}: {type(client).__name__}.{resource}.{method} is missing"
        async_method = getattr(reduce(getattr, resource.split("."), asynchronous), method)
        # The async client's methods are coroutines, or answer an async stream or paginator.
        returns = str(inspect.signature(async_method).return_annotation)
        assert inspect.iscoroutinefunction(async_method) or "AsyncStream" in returns or "AsyncPaginator" in returns, operation_id


def test_the_suite_called_every_operation_successfully() -> None:
    missing = sorted(op for op, _r, _m in OPERATIONS if op not in CALLED)
    assert missing == [], f"operations no test called successfully: {missing}"
