import type { Db } from 'mongodb';
import type { CostTotals, RunCost } from '../common/cost-periods';
import { roundAmount } from '../common/run-spend';
import { isDuplicateKey } from './mongo';

/** Totals the ledger keeps since the split and the money were: older entries lack them. */
type StoredLater = 'input_tokens' | 'output_tokens' | 'amount';

/**
 * Entry `seq` of a tenant's period ledger, holding the period's running totals after its run
 * (`input_tokens`, `output_tokens` and `amount` absent on entries written before they were kept).
 * FerretDB v1 does not apply concurrent `$inc`s atomically (they lose counts), but an insert on a
 * taken `_id` always fails: so a run claims the next sequence number by inserting it, and a loser
 * moves on to the number after the winner's.
 */
interface LedgerDoc extends Omit<CostTotals, StoredLater>, Partial<Pick<CostTotals, StoredLater>> {
  _id: string;
  tenant_id: string;
  period: string;
  seq: number;
  trace_id: string;
  at: Date;
  /** The agent of the entry's run; absent on entries from before runs recorded their agent. */
  agent_id?: string | null;
}

/** The ledger's newest entry as last seen: where reads start probing, so it may lag but never lead. */
interface TotalsDoc extends Omit<CostTotals, StoredLater>, Partial<Pick<CostTotals, StoredLater>> {
  _id: string;
  tenant_id: string;
  period: string;
  seq: number;
  updated_at: Date;
}

/** A place in a period's ledger: its sequence number and the totals there. */
export type LedgerPosition = CostTotals & { seq: number };

/** Contention is between one tenant's concurrent runs; each lost race means another run got in. */
const MAX_CLAIMS = 1_000;

const totalsKey = (tenantId: string, period: string) => `${tenantId}:${period}`;
/** A place in the ledger; entries written before the split and the money were kept read them as 0. */
const positionOf = (d: Omit<LedgerPosition, 'input_tokens' | 'output_tokens' | 'amount'> & Partial<LedgerPosition>): LedgerPosition => ({
  seq: d.seq,
  tokens: d.tokens,
  duration_ms: d.duration_ms,
  runs: d.runs,
  input_tokens: d.input_tokens ?? 0,
  output_tokens: d.output_tokens ?? 0,
  amount: d.amount ?? 0,
});

/**
 * Per-tenant running totals per period (collections `cost_ledger` and its head, `cost_totals`).
 * Every read is by `_id`.
 */
export function createCostLedger(db: Db) {
  const ledger = db.collection<LedgerDoc>('cost_ledger');
  const totals = db.collection<TotalsDoc>('cost_totals');

  /** The newest ledger entry at or after `from`. */
  async function newestFrom(key: string, from: LedgerPosition): Promise<LedgerPosition> {
    let current = from;
    for (;;) {
      const next = await ledger.findOne({ _id: `${key}:${current.seq + 1}` });
      if (!next) return current;
      current = positionOf(next);
    }
  }

  /** Moves the head forward; a head already past this entry makes the upsert's insert fail, which is fine. */
  async function advanceHead(entry: LedgerDoc): Promise<void> {
    try {
      await totals.updateOne(
        { _id: totalsKey(entry.tenant_id, entry.period), seq: { $lt: entry.seq } },
        { $set: { tenant_id: entry.tenant_id, period: entry.period, ...positionOf(entry), updated_at: new Date() } },
        { upsert: true },
      );
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  return {
    /** The period's newest totals. */
    async newest(tenantId: string, period: string): Promise<LedgerPosition> {
      const key = totalsKey(tenantId, period);
      const head = await totals.findOne({ _id: key });
      return newestFrom(
        key,
        head ? positionOf(head) : { seq: 0, tokens: 0, duration_ms: 0, runs: 0, input_tokens: 0, output_tokens: 0, amount: 0 },
      );
    },

    /** Adds the run as the period's next entry (probing from `head`); the totals before and after it. */
    async append(run: RunCost, period: string, head: LedgerPosition): Promise<{ before: LedgerPosition; after: LedgerPosition }> {
      const key = totalsKey(run.tenantId, period);
      let before = head;
      for (let claims = 1; ; claims++) {
        const entry: LedgerDoc = {
          _id: `${key}:${before.seq + 1}`,
          tenant_id: run.tenantId,
          period,
          seq: before.seq + 1,
          trace_id: run.traceId,
          agent_id: run.agentId ?? null,
          tokens: before.tokens + run.tokens,
          duration_ms: before.duration_ms + run.durationMs,
          runs: before.runs + 1,
          input_tokens: before.input_tokens + (run.inputTokens ?? 0),
          output_tokens: before.output_tokens + (run.outputTokens ?? 0),
          amount: roundAmount(before.amount + (run.amount ?? 0)),
          at: run.at,
        };
        try {
          await ledger.insertOne(entry);
          await advanceHead(entry);
          return { before, after: positionOf(entry) };
        } catch (err) {
          if (!isDuplicateKey(err) || claims >= MAX_CLAIMS) throw err;
          before = await newestFrom(key, before);
        }
      }
    },
  };
}

export type CostLedger = ReturnType<typeof createCostLedger>;
