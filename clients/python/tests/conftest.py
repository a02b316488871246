"""The suite runs against a live service: COMBO_BASE_URL and COMBO_API_KEY (an admin key of tenant `default`).

test/integration/official-clients.test.ts (the service's test suite) starts one with a scripted
model: it answers `Echo: <question>`; `[slow]` in the question streams the answer over ~3 s (and
the service answers JSON completions still running after 1.5 s with a 202), `[long]` over ~12 s
(a run still going when a cancel lands; the question needs 34 characters or more), `[tool:<name>]` calls
that tool once first, `[fail]` makes the model fail (30001). COMBO_SCRIPTED_MODEL_URL is that model's
OpenAI-compatible address, for a model provider to point at.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from pathlib import Path
from typing import Iterator

import httpx
import pytest

import combo

OPENAPI = json.loads((Path(__file__).parents[2] / "openapi.json").read_text())


def _templates() -> list[tuple[str, re.Pattern[str], str]]:
    routes = []
    for path, methods in OPENAPI["paths"].items():
        pattern = re.compile("^" + re.sub(r"\\\{[a-z_]+\\\}", "[^/]+", re.escape(path)) + "$")
        for method, op in methods.items():
            routes.append((method.upper(), pattern, op["operationId"]))
    # Literal paths win over templated ones (/v1/webhook/subscriptions over /v1/webhook/{channel}).
    return sorted(routes, key=lambda r: r[1].pattern.count("[^/]+"))


ROUTES = _templates()
CALLED: set[str] = set()


def record(response: httpx.Response) -> None:
    """Notes which operation a successful call was (the coverage test reads CALLED)."""
    if not response.is_success:
        return
    request = response.request
    for method, pattern, operation_id in ROUTES:
        if method == request.method and pattern.match(request.url.path):
            CALLED.add(operation_id)
            return


async def arecord(response: httpx.Response) -> None:
    record(response)


@pytest.fixture(scope="session")
def base_url() -> str:
    url = os.environ.get("COMBO_BASE_URL")
    if not url:
        pytest.fail("COMBO_BASE_URL and COMBO_API_KEY must name a running service (see tests/conftest.py)")
    return url


@pytest.fixture(scope="session")
def client(base_url: str) -> Iterator[combo.Combo]:
    with combo.Combo(base_url=base_url, http_client=httpx.Client(event_hooks={"response": [record]})) as c:
        yield c


@pytest.fixture
def aclient(base_url: str) -> combo.AsyncCombo:
    return combo.AsyncCombo(base_url=base_url, http_client=httpx.AsyncClient(event_hooks={"response": [arecord]}))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="session")
def agent(client: combo.Combo) -> combo.Agent:
    return client.agents.create(name=unique("py-agent"), instructions="Answer briefly.", tools=["current_time"])


@pytest.fixture
def session(client: combo.Combo, agent: combo.Agent) -> combo.Session:
    return client.sessions.create(agent.agent_id)
