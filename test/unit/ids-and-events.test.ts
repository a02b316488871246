import { newId, randomToken } from '../../common/ids';
import { eventIdFor, newEvent } from '../../common/events';

describe('ids', () => {
  it('are prefixed, of fixed length and drawn from base62', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => newId('agt')));
    expect(ids.size).toBe(2000);
    for (const id of ids) expect(id).toMatch(/^agt_[0-9A-Za-z]{20}$/);
    expect(randomToken(32)).toHaveLength(32);
  });
});

describe('event ids', () => {
  it('are derived from the fact, so one fact is one event', () => {
    expect(eventIdFor('session.archived', 'ses_1')).toBe(eventIdFor('session.archived', 'ses_1'));
    expect(eventIdFor('session.archived', 'ses_1')).not.toBe(eventIdFor('session.created', 'ses_1'));
    expect(eventIdFor('session.archived', 'ses_1')).not.toBe(eventIdFor('session.archived', 'ses_2'));
  });

  it('carry the delivery envelope fields', () => {
    const at = new Date('2026-11-23T08:00:00Z');
    expect(newEvent('session.archived', 't1', 'ses_1', { session_id: 'ses_1' }, at)).toEqual({
      event_id: eventIdFor('session.archived', 'ses_1'),
      event: 'session.archived',
      tenant_id: 't1',
      timestamp: '2026-11-23T08:00:00.000Z',
      data: { session_id: 'ses_1' },
    });
  });
});
