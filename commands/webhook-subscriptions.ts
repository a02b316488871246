import type { Config } from '../common/config';
import { invalid } from '../common/errors';
import { assertPublicHttpUrl, UnsafeUrlError } from '../common/net/url-guard';
import type { CreateSubscriptionBody, UpdateSubscriptionBody } from '../common/schemas/webhooks';
import type { PageRequest } from '../stores/pagination';
import type { WebhookStore } from '../stores/webhooks';

/** Webhook subscriptions: their URLs must point at public addresses (DNS checked here; again at each delivery's connect). */
export function createWebhookSubscriptionCommands({
  webhooks,
  config,
}: {
  webhooks: WebhookStore;
  config: Pick<Config, 'ALLOW_PRIVATE_URLS'>;
}) {
  async function checkUrl(url: string): Promise<void> {
    try {
      await assertPublicHttpUrl(url, config.ALLOW_PRIVATE_URLS);
    } catch (err) {
      if (err instanceof UnsafeUrlError) throw invalid(`body.url: ${err.message}`, { field: 'body.url' });
      throw err;
    }
  }

  return {
    async create(tenantId: string, body: CreateSubscriptionBody) {
      await checkUrl(body.url);
      return webhooks.createSubscription(tenantId, body);
    },

    async update(tenantId: string, subscriptionId: string, body: UpdateSubscriptionBody) {
      if (body.url) await checkUrl(body.url);
      return webhooks.updateSubscription(tenantId, subscriptionId, body);
    },

    /** One subscription's deliveries (10004 for a subscription the tenant does not have). */
    async deliveries(tenantId: string, subscriptionId: string, page: PageRequest) {
      await webhooks.getSubscription(tenantId, subscriptionId);
      return webhooks.listDeliveries(tenantId, { ...page, subscription_id: subscriptionId });
    },
  };
}
