"""Inbound webhook calls, signed with an integration's secret (no API key): for integrators and tests."""

from __future__ import annotations

from typing import Any, Mapping, cast

from .. import webhooks
from .._generated import models
from .._resource import AsyncAPIResource, SyncAPIResource
from .._types import RequestOptions, path_segment

Payload = Mapping[str, Any] | bytes


def _signed_call(
    path: str, payload: Payload, integration_id: str, secret: str, event_id: str | None, options: RequestOptions | None
) -> dict[str, Any]:
    """The arguments of the signed POST: the body as signed, the signature headers, no API key."""
    body, headers = webhooks.sign(payload, secret, event_id=event_id)
    opts: RequestOptions = {**(options or {})}
    opts["extra_headers"] = {**headers, **opts.get("extra_headers", {})}
    query = {"integration_id": integration_id}
    return {"path": path, "query": query, "content": body, "anonymous": True, "cast_to": models.InboundWebhookAccepted, "options": opts}


def _channel_path(channel: str) -> str:
    return f"/v1/webhook/{path_segment(channel)}"


def _generic_path(trigger_id: str) -> str:
    return f"/v1/webhook/generic/{path_segment(trigger_id)}"


class Inbound(SyncAPIResource):
    def send(
        self,
        channel: str,
        payload: Payload,
        *,
        integration_id: str,
        secret: str,
        event_id: str | None = None,
        options: RequestOptions | None = None,
    ) -> models.InboundWebhookAccepted:
        """Sends a channel's event (e.g. `git-b` with a GitHub payload) as that integration, signed with its secret."""
        call = _signed_call(_channel_path(channel), payload, integration_id, secret, event_id, options)
        return cast(models.InboundWebhookAccepted, self._request("POST", **call))

    def send_generic(
        self,
        trigger_id: str,
        payload: Payload,
        *,
        integration_id: str,
        secret: str,
        event_id: str | None = None,
        options: RequestOptions | None = None,
    ) -> models.InboundWebhookAccepted:
        """Sends a free-form event to one event trigger, through the tenant's `generic` integration."""
        call = _signed_call(_generic_path(trigger_id), payload, integration_id, secret, event_id, options)
        return cast(models.InboundWebhookAccepted, self._request("POST", **call))


class AsyncInbound(AsyncAPIResource):
    async def send(
        self,
        channel: str,
        payload: Payload,
        *,
        integration_id: str,
        secret: str,
        event_id: str | None = None,
        options: RequestOptions | None = None,
    ) -> models.InboundWebhookAccepted:
        """See Inbound.send."""
        call = _signed_call(_channel_path(channel), payload, integration_id, secret, event_id, options)
        return cast(models.InboundWebhookAccepted, await self._request("POST", **call))

    async def send_generic(
        self,
        trigger_id: str,
        payload: Payload,
        *,
        integration_id: str,
        secret: str,
        event_id: str | None = None,
        options: RequestOptions | None = None,
    ) -> models.InboundWebhookAccepted:
        """See Inbound.send_generic."""
        call = _signed_call(_generic_path(trigger_id), payload, integration_id, secret, event_id, options)
        return cast(models.InboundWebhookAccepted, await self._request("POST", **call))
