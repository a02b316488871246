from __future__ import annotations

import io
from pathlib import Path

import pytest

import combo
from conftest import unique

MANUAL = b"# Device manual\n\nTo reset the device, hold the power button for ten seconds until the light blinks.\n"


def test_catalogs(client: combo.Combo) -> None:
    assert "naive" in [p.parser_id for p in client.parsers.list().items]
    assert client.embedding_models.list().items
    assert client.scenarios.list().items
    assert client.processors.list().items


def test_upload_wait_search(client: combo.Combo, tmp_path: Path) -> None:
    kb = client.knowledge_bases.create(name=unique("manuals"), description="device manuals")
    assert client.knowledge_bases.get(kb.kb_id).name == kb.name
    assert client.knowledge_bases.update(kb.kb_id, description="updated").description == "updated"
    assert kb.kb_id in [k.kb_id for k in client.knowledge_bases.list()]

    progress: list[tuple[int, int]] = []
    from_bytes = client.documents.upload(
        kb_id=kb.kb_id, file=("manual.md", MANUAL), parser_id="naive", on_progress=lambda s, t: progress.append((s, t))
    )
    assert from_bytes.status == "parsing"
    assert progress[0] == (0, len(MANUAL)) and progress[-1] == (len(MANUAL), len(MANUAL))

    path = tmp_path / "notes.txt"
    path.write_bytes(b"Warranty: two years from the date of purchase.\n")
    from_path = client.documents.upload(kb_id=kb.kb_id, file=path)
    from_file = client.documents.upload(kb_id=kb.kb_id, file=io.BytesIO(b"Colours: black and white.\n"))
    assert from_path.name == "notes.txt"

    parses: list[str] = []
    ready = client.documents.wait(from_bytes.doc_id, timeout=120, on_progress=lambda d: parses.append(d.status))
    assert ready.status == "ready" and ready.chunk_count >= 1
    assert parses[-1] == "ready"
    for doc in (from_path, from_file):
        assert client.documents.wait(doc.doc_id, timeout=120).status == "ready"
    assert {d.doc_id for d in client.documents.list(kb.kb_id)} == {from_bytes.doc_id, from_path.doc_id, from_file.doc_id}

    chunks = list(client.documents.list_chunks(from_bytes.doc_id, page_size=1))
    assert len(chunks) == ready.chunk_count and [c.position for c in chunks] == list(range(len(chunks)))
    hits = client.chunks.search(question="how do I reset the device", kb_ids=[kb.kb_id], top_k=3)
    assert hits.chunks and hits.chunks[0].doc_id == from_bytes.doc_id

    reparsed = client.documents.reparse(from_path.doc_id)
    assert reparsed.parse == 2
    assert client.documents.wait(from_path.doc_id, timeout=120).status == "ready"
    assert client.documents.delete(from_file.doc_id).deleted is True
    assert client.knowledge_bases.delete(kb.kb_id).deleted is True


def test_files(client: combo.Combo) -> None:
    uploaded = client.files.upload(file=("brief.txt", b"The brief says: ship on Friday."))
    assert client.files.get(uploaded.file_id).name == "brief.txt"
    assert client.files.delete(uploaded.file_id).deleted is True
    with pytest.raises(combo.NotFoundError):
        client.files.get(uploaded.file_id)


@pytest.mark.anyio
async def test_async_upload(aclient: combo.AsyncCombo) -> None:
    async with aclient:
        kb = await aclient.knowledge_bases.create(name=unique("async-kb"))
        sent: list[int] = []
        doc = await aclient.documents.upload(kb_id=kb.kb_id, file=("a.txt", b"async upload text"), on_progress=lambda s, _t: sent.append(s))
        assert sent[-1] == len(b"async upload text")
        assert (await aclient.documents.wait(doc.doc_id, timeout=120)).status == "ready"
        await aclient.knowledge_bases.delete(kb.kb_id)
