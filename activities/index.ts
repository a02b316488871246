import type { Db } from 'mongodb';
import { createEventLog } from '../stores/event-log';
import type { SecretBox } from '../stores/secret-box';
import { createWebhookStore } from '../stores/webhooks';
import { createMongoActivities } from './mongo';
import { createWebhookActivities } from './webhooks';

export interface ActivityDeps {
  db: Db;
  secrets: SecretBox;
  allowPrivateUrls: boolean;
  /** How long a subscription's URL and secret are reused (default 2 s). */
  webhookTargetCacheMs?: number;
}

/** All activities, one factory per external system, merged for the worker. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createMongoActivities({ db: deps.db }),
    ...createWebhookActivities({
      webhooks: createWebhookStore(deps.db, deps.secrets),
      eventLog: createEventLog(deps.db),
      allowPrivateUrls: deps.allowPrivateUrls,
      targetCacheMs: deps.webhookTargetCacheMs,
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
