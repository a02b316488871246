"""Inbound webhook calls, signed with an integration's secret (no API key): for integrators and tests."""

from __future__ import annotations

from typing import Any, Mapping, cast

from .. import webhooks
from .._generated import models
from .._resource import AsyncAPIResource, SyncAPIResource
from .._types import RequestOptions, path_segment


def _signed(
    payload: Mapping[str, Any] | bytes, secret: str, event_id: str | None, options: RequestOptions | None
) -> tuple[bytes, RequestOptions]:
    body, headers = webhooks.sign(payload, secret, event_id=event_id)
    opts: RequestOptions = {**(options or {})}
    opts["extra_headers"] = {**headers, **opts.get("extra_headers", {})}
    return body, opts


class Inbound(SyncAPIResource):
    def send(
        self,
        channel: str,
        payload: Mapping[str, Any] | bytes,
        *,
        integration_id: str,
        secret: str,
        event_id: str | None = None,
        options: RequestOptions | None = None,
    ) -> models.InboundWebhookAccepted:
        """Sends a channel's event (e.g. `git-b` with a GitHub payload) as that integration, signed with its secret."""
        body, opts = _signed(payload, secret, event_id, options)
        return cast(
            models.InboundWebhookAccepted,
            self._request(
                "POST",
                f"/v1/webhook/{path_segment(channel)}",
                query={"integration_id": integration_id},
                content=body,
                anonymous=True,
                cast_to=models.InboundWebhookAccepted,
                options=opts,
            ),
        )

    def send_generic(
        self,
        trigger_id: str,
        payload: Mapping[str, Any] | bytes,
        *,
        integration_id: str,
        secret: str,
        event_id: str | None = None,
        options: RequestOptions | None = None,
    ) -> models.InboundWebhookAccepted:
        """Sends a free-form event to one event trigger, through the tenant's `generic` integration."""
        body, opts = _signed(payload, secret, event_id, options)
        return cast(
            models.InboundWebhookAccepted,
            self._request(
                "POST",
                f"/v1/webhook/generic/{path_segment(trigger_id)}",
                query={"integration_id": integration_id},
                content=body,
                anonymous=True,
                cast_to=models.InboundWebhookAccepted,
                options=opts,
            ),
        )


class AsyncInbound(AsyncAPIResource):
    async def send(
        self,
        channel: str,
        payload: Mapping[str, Any] | bytes,
        *,
        integration_id: str,
        secret: str,
        event_id: str | None = None,
        options: RequestOptions | None = None,
    ) -> models.InboundWebhookAccepted:
        """See Inbound.send."""
        body, opts = _signed(payload, secret, event_id, options)
        return cast(
            models.InboundWebhookAccepted,
            await self._request(
                "POST",
                f"/v1/webhook/{path_segment(channel)}",
                query={"integration_id": integration_id},
                content=body,
                anonymous=True,
                cast_to=models.InboundWebhookAccepted,
                options=opts,
            ),
        )

    async def send_generic(
        self,
        trigger_id: str,
        payload: Mapping[str, Any] | bytes,
        *,
        integration_id: str,
        secret: str,
        event_id: str | None = None,
        options: RequestOptions | None = None,
    ) -> models.InboundWebhookAccepted:
        """See Inbound.send_generic."""
        body, opts = _signed(payload, secret, event_id, options)
        return cast(
            models.InboundWebhookAccepted,
            await self._request(
                "POST",
                f"/v1/webhook/generic/{path_segment(trigger_id)}",
                query={"integration_id": integration_id},
                content=body,
                anonymous=True,
                cast_to=models.InboundWebhookAccepted,
                options=opts,
            ),
        )
