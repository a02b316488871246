import type { Db } from 'mongodb';
import type { CostSummary } from '../common/schemas/costs';
import { isDuplicateKey } from './mongo';

interface SettingsDoc {
  _id: string;
  /** null: the tenant turned the threshold off (the installation default does not apply). */
  threshold_tokens: number | null;
  updated_at: Date;
}

/** A tenant's threshold in force, and where it comes from. */
export interface Threshold {
  tokens: number | null;
  source: CostSummary['threshold_source'];
}

export interface CostSettingsOptions {
  /** Threshold of tenants that set none (COST_THRESHOLD_TOKENS); absent: no threshold. */
  defaultThresholdTokens?: number;
}

/** Tenants' cost thresholds (collection `cost_settings`, `_id` = tenant id), over the installation default. */
export function createCostSettings(db: Db, options: CostSettingsOptions = {}) {
  const settings = db.collection<SettingsDoc>('cost_settings');
  return {
    async thresholdOf(tenantId: string): Promise<Threshold> {
      const doc = await settings.findOne({ _id: tenantId });
      if (doc) return doc.threshold_tokens === null ? { tokens: null, source: 'none' } : { tokens: doc.threshold_tokens, source: 'tenant' };
      return options.defaultThresholdTokens
        ? { tokens: options.defaultThresholdTokens, source: 'default' }
        : { tokens: null, source: 'none' };
    },

    /** Sets (or with null turns off) the tenant's threshold. */
    async setThreshold(tenantId: string, thresholdTokens: number | null): Promise<void> {
      const write = () =>
        settings.updateOne({ _id: tenantId }, { $set: { threshold_tokens: thresholdTokens, updated_at: new Date() } }, { upsert: true });
      // Two first-time upserts of one tenant race to insert; the loser's update then finds the document.
      await write().catch((err: unknown) => {
        if (isDuplicateKey(err)) return write();
        throw err;
      });
    },

    /** Forgets the tenant's own threshold: the installation default applies again. */
    async clearThreshold(tenantId: string): Promise<void> {
      await settings.deleteOne({ _id: tenantId });
    },
  };
}

export type CostSettings = ReturnType<typeof createCostSettings>;
