/**
 * The Webhooks section (its own routes under /webhooks/*): subscriptions and each one's page, the
 * delivery log and each delivery's attempts, the dead-letter queue, and replays by time range.
 */
import { Route, Routes } from 'react-router';
import { NotFound } from '../NotFound';
import { DeadLetters } from './DeadLetters';
import { DeliveryDetail } from './DeliveryDetail';
import { DeliveryLog } from './Deliveries';
import { ReplayProgress, ReplayStart } from './Replays';
import { SubscriptionDetail } from './SubscriptionDetail';
import { Subscriptions } from './Subscriptions';
import './webhooks.css';

export function WebhooksSection() {
  return (
    <Routes>
      <Route index element={<Subscriptions />} />
      <Route path="subscriptions/:subscriptionId" element={<SubscriptionDetail />} />
      <Route path="deliveries" element={<DeliveryLog />} />
      <Route path="deliveries/:deliveryId" element={<DeliveryDetail />} />
      <Route path="dead-letters" element={<DeadLetters />} />
      <Route path="replays" element={<ReplayStart />} />
      <Route path="replays/:replayId" element={<ReplayProgress />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
