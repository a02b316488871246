/** The confirmation of a deleted agent, naming what went with it. */
import type { DeleteBlockers } from '../../api/agents';

export function deletedMessage(name: string, cascaded: DeleteBlockers | undefined): string {
  if (!cascaded) return `Agent "${name}" deleted`;
  const parts = [
    cascaded.cronIds.length > 0 && `${cascaded.cronIds.length} cron job${cascaded.cronIds.length === 1 ? '' : 's'}`,
    cascaded.triggerIds.length > 0 && `${cascaded.triggerIds.length} event trigger${cascaded.triggerIds.length === 1 ? '' : 's'}`,
  ].filter(Boolean);
  return `Agent "${name}" deleted, with ${parts.join(' and ')}`;
}
