"""The clients: `Combo` (sync) and `AsyncCombo`, each with every resource of the service."""

from __future__ import annotations

import httpx

from . import webhooks as _webhooks
from ._base_client import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, AsyncAPIClient, SyncAPIClient
from ._generated import models
from ._generated import resources as generated
from .resources.completions import AsyncCompletions, Completions
from .resources.documents import AsyncDocuments, Documents
from .resources.inbound import AsyncInbound, Inbound
from .resources.runs import AsyncRuns, Runs

DEFAULT_MAX_STREAM_RESUMES = 5


class Webhooks(generated.Webhooks):
    """Outbound webhooks: subscriptions, deliveries, dead letters, replays; and `verify` for your receiver."""

    @staticmethod
    def verify(
        payload: bytes | str, headers: _webhooks.Headers, secret: str | list[str], *, tolerance: float = _webhooks.DEFAULT_TOLERANCE_SECONDS
    ) -> models.Event:
        """See combo.webhooks.verify."""
        return _webhooks.verify(payload, headers, secret, tolerance=tolerance)


class AsyncWebhooks(generated.AsyncWebhooks):
    @staticmethod
    def verify(
        payload: bytes | str, headers: _webhooks.Headers, secret: str | list[str], *, tolerance: float = _webhooks.DEFAULT_TOLERANCE_SECONDS
    ) -> models.Event:
        """See combo.webhooks.verify."""
        return _webhooks.verify(payload, headers, secret, tolerance=tolerance)


class Combo(SyncAPIClient):
    """A client of the service.

    `base_url` (or COMBO_BASE_URL, else http://127.0.0.1:9380), with or without /v1; `api_key` (or
    COMBO_API_KEY); `timeout` in seconds an attempt may wait on the network, to connect and for each
    read or write (None: no limit); `max_retries` for network errors, 429, 500 and 503 (and
    502/504 on reads and search); `max_stream_resumes` for dropped event streams.
    """

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_stream_resumes: int = DEFAULT_MAX_STREAM_RESUMES,
        default_headers: dict[str, str] | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        super().__init__(
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            default_headers=default_headers,
            max_stream_resumes=max_stream_resumes,
            http_client=http_client,
        )
        self.agents = generated.Agents(self)
        self.sessions = generated.Sessions(self)
        self.completions = Completions(self)
        self.runs = Runs(self)
        self.scenarios = generated.Scenarios(self)
        self.processors = generated.Processors(self)
        self.auth = generated.Auth(self)
        self.api_keys = generated.ApiKeys(self)
        self.events = generated.Events(self)
        self.webhooks = Webhooks(self)
        self.inbound = Inbound(self)
        self.integrations = generated.Integrations(self)
        self.model_providers = generated.ModelProviders(self)
        self.cron_jobs = generated.CronJobs(self)
        self.event_triggers = generated.EventTriggers(self)
        self.parsers = generated.Parsers(self)
        self.embedding_models = generated.EmbeddingModels(self)
        self.knowledge_bases = generated.KnowledgeBases(self)
        self.documents = Documents(self)
        self.chunks = generated.Chunks(self)
        self.skills = generated.Skills(self)
        self.files = generated.Files(self)
        self.costs = generated.Costs(self)
        self.service = generated.Service(self)


class AsyncCombo(AsyncAPIClient):
    """The async client: the same resources, each method awaited (`async with AsyncCombo() as client`)."""

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_stream_resumes: int = DEFAULT_MAX_STREAM_RESUMES,
        default_headers: dict[str, str] | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        super().__init__(
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            default_headers=default_headers,
            max_stream_resumes=max_stream_resumes,
            http_client=http_client,
        )
        self.agents = generated.AsyncAgents(self)
        self.sessions = generated.AsyncSessions(self)
        self.completions = AsyncCompletions(self)
        self.runs = AsyncRuns(self)
        self.scenarios = generated.AsyncScenarios(self)
        self.processors = generated.AsyncProcessors(self)
        self.auth = generated.AsyncAuth(self)
        self.api_keys = generated.AsyncApiKeys(self)
        self.events = generated.AsyncEvents(self)
        self.webhooks = AsyncWebhooks(self)
        self.inbound = AsyncInbound(self)
        self.integrations = generated.AsyncIntegrations(self)
        self.model_providers = generated.AsyncModelProviders(self)
        self.cron_jobs = generated.AsyncCronJobs(self)
        self.event_triggers = generated.AsyncEventTriggers(self)
        self.parsers = generated.AsyncParsers(self)
        self.embedding_models = generated.AsyncEmbeddingModels(self)
        self.knowledge_bases = generated.AsyncKnowledgeBases(self)
        self.documents = AsyncDocuments(self)
        self.chunks = generated.AsyncChunks(self)
        self.skills = generated.AsyncSkills(self)
        self.files = generated.AsyncFiles(self)
        self.costs = generated.AsyncCosts(self)
        self.service = generated.AsyncService(self)
