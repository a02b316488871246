/** The Webhooks section (its own routes under /webhooks/*). Not built yet: shows what it will hold. */
import { sectionAt } from '../../nav';
import { Coming } from '../Coming';

export function WebhooksSection() {
  return <Coming section={sectionAt('/webhooks')} />;
}
