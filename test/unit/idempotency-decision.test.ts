import { ABANDONED_CLAIM_MS, decideOnKey, type KeyRecord } from '../../stores/idempotency-keys';

/** What a request with an Idempotency-Key does, given the key's record. */
describe('the decision on an idempotency key', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const record = (over: Partial<KeyRecord> = {}): KeyRecord => ({
    fingerprint: 'f1',
    state: 'done',
    created_at: ago(60_000),
    expires_at: new Date(now.getTime() + 3_600_000),
    ...over,
  });

  it('runs a key without a record, or whose window ended', () => {
    expect(decideOnKey(null, 'f1', now)).toBe('run');
    expect(decideOnKey(record({ expires_at: now }), 'f1', now)).toBe('run');
    expect(decideOnKey(record({ expires_at: now, fingerprint: 'other' }), 'f1', now)).toBe('run');
  });

  it('replays the kept response of the same request', () => {
    expect(decideOnKey(record(), 'f1', now)).toBe('replay');
  });

  it('refuses another request under the key, kept or still running', () => {
    expect(decideOnKey(record(), 'f2', now)).toBe('mismatch');
    expect(decideOnKey(record({ state: 'in_progress' }), 'f2', now)).toBe('mismatch');
  });

  it('tells a repeat to retry while the first request runs, and runs it again once that claim is abandoned', () => {
    expect(decideOnKey(record({ state: 'in_progress' }), 'f1', now)).toBe('in_progress');
    expect(decideOnKey(record({ state: 'in_progress', created_at: ago(ABANDONED_CLAIM_MS - 1) }), 'f1', now)).toBe('in_progress');
    expect(decideOnKey(record({ state: 'in_progress', created_at: ago(ABANDONED_CLAIM_MS) }), 'f1', now)).toBe('run');
    // A kept response stays for the whole window, however old.
    expect(decideOnKey(record({ created_at: ago(ABANDONED_CLAIM_MS * 10) }), 'f1', now)).toBe('replay');
  });
});
