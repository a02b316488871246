from __future__ import annotations

import pytest

import combo
from conftest import unique


def test_agents_crud_and_every_page(client: combo.Combo) -> None:
    names = [unique("paged") for _ in range(3)]
    created = [client.agents.create(name=n, instructions="Be brief.", metadata={"team": "qa"}) for n in names]
    assert [a.name for a in created] == names
    assert created[0].metadata == {"team": "qa"}

    first = client.agents.list(page_size=2)
    assert len(first.items) == 2 and first.page == 1 and first.total >= 3
    assert first.has_next_page()
    second = first.next_page()
    assert second.page == 2
    # Iterating a page walks every page from it on.
    ids = [a.agent_id for a in client.agents.list(page_size=2)]
    assert len(ids) == len(set(ids)) == first.total
    assert {a.agent_id for a in created} <= set(ids)
    # Narrowed on the server by a part of the name, ignoring case.
    assert {a.agent_id for a in client.agents.list(name=names[0].upper())} == {created[0].agent_id}

    got = client.agents.get(created[0].agent_id)
    assert got.name == names[0]
    updated = client.agents.update(created[0].agent_id, description="updated", model={"temperature": 0.2})
    assert updated.description == "updated"
    for a in created:
        assert client.agents.delete(a.agent_id, cascade=True).deleted is True
    with pytest.raises(combo.NotFoundError):
        client.agents.get(created[0].agent_id)


def test_sessions_and_messages(client: combo.Combo, agent: combo.Agent) -> None:
    session = client.sessions.create(agent.agent_id, metadata={"case": "py"})
    assert session.agent_id == agent.agent_id
    assert session.session_id in [s.session_id for s in client.sessions.list(agent.agent_id)]
    # The tenant-wide list, narrowed to the agent.
    assert session.session_id in [s.session_id for s in client.sessions.list_all(agent_id=agent.agent_id, status="active")]
    message = client.sessions.messages.create(session.session_id, content="a note", role="user")
    assert client.sessions.messages.get(session.session_id, message.message_id).content == "a note"
    assert [m.content for m in client.sessions.messages.list(session.session_id)] == ["a note"]
    archived = client.sessions.archive(session.session_id)
    assert archived.status == "archived"
    assert client.sessions.get(session.session_id).status == "archived"
    # A completion on an archived session is a conflict (10005).
    with pytest.raises(combo.ConflictError) as conflict:
        client.completions.create(agent.agent_id, session_id=session.session_id, question="hi")
    assert conflict.value.code == 10005 and conflict.value.status == 409
    assert client.sessions.delete(session.session_id).deleted is True


def test_errors_are_typed_by_code(client: combo.Combo, base_url: str) -> None:
    with pytest.raises(combo.NotFoundError) as missing:
        client.agents.get("agt_doesnotexist")
    error = missing.value
    assert (error.code, error.status) == (10004, 404)
    assert error.trace_id and error.trace_id.startswith("trc_")
    assert isinstance(error, combo.APIError) and isinstance(error, combo.ComboError)

    with pytest.raises(combo.ValidationError) as invalid:
        client.agents.create(name="")
    assert invalid.value.code == 10001 and invalid.value.field and "name" in invalid.value.field

    with combo.Combo(base_url=base_url, api_key="combo_wrong_key") as stranger, pytest.raises(combo.AuthenticationError) as denied:
        stranger.agents.list()
    assert denied.value.code == 10002 and denied.value.status == 401


def test_raw_response_keeps_headers(client: combo.Combo, agent: combo.Agent) -> None:
    raw = client.agents.with_raw_response.get(agent.agent_id)
    assert raw.status_code == 200
    assert raw.trace_id and raw.trace_id.startswith("trc_")
    assert raw.rate_limit.limit and raw.rate_limit.remaining is not None
    assert raw.parse().agent_id == agent.agent_id
    # A page too.
    page = client.sessions.with_raw_response.list(agent.agent_id, page_size=1).parse()
    assert isinstance(page, combo.SyncPage)


def test_idempotency_key_replays_the_first_response(client: combo.Combo) -> None:
    key = unique("idem")
    first = client.agents.with_raw_response.create(name=unique("once"), options={"idempotency_key": key})
    again = client.agents.with_raw_response.create(name=first.parse().name, options={"idempotency_key": key})
    assert again.idempotent_replayed and again.parse().agent_id == first.parse().agent_id
    client.agents.delete(first.parse().agent_id)


@pytest.mark.anyio
async def test_async_client(aclient: combo.AsyncCombo) -> None:
    async with aclient:
        agent = await aclient.agents.create(name=unique("async"))
        page = await aclient.agents.list(page_size=1)
        seen = [a.agent_id async for a in page]
        assert agent.agent_id in seen
        with pytest.raises(combo.NotFoundError):
            await aclient.sessions.get("ses_doesnotexist")
        raw = await aclient.agents.with_raw_response.delete(agent.agent_id)
        assert raw.parse().deleted is True and raw.trace_id
