import type { Db } from 'mongodb';
import type { CostSummary } from '../common/schemas/costs';
import { isDuplicateKey } from './mongo';

/**
 * A tenant's own thresholds. Per unit: null turns it off for the tenant (the installation default
 * does not apply); absent, the installation default applies (a tenant that set only the other
 * unit; documents written before money thresholds have no `threshold_amount`).
 */
interface SettingsDoc {
  _id: string;
  threshold_tokens?: number | null;
  threshold_amount?: number | null;
  updated_at: Date;
}

type ThresholdSource = CostSummary['threshold_source'];

/** A tenant's thresholds in force, and where each comes from. */
export interface Threshold {
  tokens: number | null;
  source: ThresholdSource;
  amount: number | null;
  amountSource: ThresholdSource;
}

/** What PUT /v1/costs/threshold sets: each unit given is set (null: off), each left out stays as it was. */
export interface ThresholdChange {
  tokens?: number | null;
  amount?: number | null;
}

export interface CostSettingsOptions {
  /** Threshold of tenants that set none (COST_THRESHOLD_TOKENS); absent: no threshold. */
  defaultThresholdTokens?: number;
  /** Money threshold of tenants that set none (COST_THRESHOLD_AMOUNT); absent: none. */
  defaultThresholdAmount?: number;
}

/** One unit's threshold: the tenant's own (a number, or null for off) over the installation default. */
function inForce(own: number | null | undefined, installation: number | undefined): { value: number | null; source: ThresholdSource } {
  if (own === null) return { value: null, source: 'none' };
  if (own !== undefined) return { value: own, source: 'tenant' };
  return installation ? { value: installation, source: 'default' } : { value: null, source: 'none' };
}

/** Tenants' cost thresholds (collection `cost_settings`, `_id` = tenant id), over the installation defaults. */
export function createCostSettings(db: Db, options: CostSettingsOptions = {}) {
  const settings = db.collection<SettingsDoc>('cost_settings');
  return {
    async thresholdOf(tenantId: string): Promise<Threshold> {
      const doc = await settings.findOne({ _id: tenantId });
      const tokens = inForce(doc?.threshold_tokens, options.defaultThresholdTokens);
      const amount = inForce(doc?.threshold_amount, options.defaultThresholdAmount);
      return { tokens: tokens.value, source: tokens.source, amount: amount.value, amountSource: amount.source };
    },

    /** Sets (or with null turns off) the units given of the tenant's threshold; the others stay as they were. */
    async setThreshold(tenantId: string, change: ThresholdChange): Promise<void> {
      const set = {
        ...(change.tokens !== undefined ? { threshold_tokens: change.tokens } : {}),
        ...(change.amount !== undefined ? { threshold_amount: change.amount } : {}),
        updated_at: new Date(),
      };
      const write = () => settings.updateOne({ _id: tenantId }, { $set: set }, { upsert: true });
      // Two first-time upserts of one tenant race to insert; the loser's update then finds the document.
      await write().catch((err: unknown) => {
        if (isDuplicateKey(err)) return write();
        throw err;
      });
    },

    /** Forgets the tenant's own thresholds (both units): the installation defaults apply again. */
    async clearThreshold(tenantId: string): Promise<void> {
      await settings.deleteOne({ _id: tenantId });
    },
  };
}

export type CostSettings = ReturnType<typeof createCostSettings>;
