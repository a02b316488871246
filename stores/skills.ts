import type { Db } from 'mongodb';
import { conflict, notFound } from '../common/errors';
import { newId } from '../common/ids';
import type { Skill, SkillManifest, SkillTool } from '../common/schemas/skills';
import { isDuplicateKey } from './mongo';
import { findPage, type NamedPageRequest, tenantNamed } from './pagination';

interface SkillDoc {
  _id: string;
  tenant_id: string;
  name: string;
  version: string;
  description: string;
  instructions: string;
  tools: SkillTool[];
  created_at: Date;
}

/** Keyed by session id, so a completion finds a session's skills with one read by `_id`. */
interface SessionSkillsDoc {
  _id: string;
  tenant_id: string;
  /** In activation order. May name skills deleted since; readers skip those. */
  skill_ids: string[];
}

/** What the completion path works with: the skill as the API shows it. */
export type SkillRecord = Skill;

const presentSkill = (d: SkillDoc): Skill => ({
  skill_id: d._id,
  name: d.name,
  version: d.version,
  description: d.description,
  instructions: d.instructions,
  tools: d.tools,
  created_at: d.created_at.toISOString(),
});

export function createSkillStore(db: Db) {
  const skills = db.collection<SkillDoc>('skills');
  const sessionSkills = db.collection<SessionSkillsDoc>('session_skills');

  async function getDoc(tenantId: string, skillId: string): Promise<SkillDoc> {
    const doc = await skills.findOne({ _id: skillId, tenant_id: tenantId });
    if (!doc) throw notFound('skill', skillId);
    return doc;
  }

  /** One read by `_id` each (fast on FerretDB, unlike `$in`); ids of deleted skills are skipped. */
  async function docsByIds(tenantId: string, ids: readonly string[]): Promise<SkillDoc[]> {
    const docs = await Promise.all(ids.map((id) => skills.findOne({ _id: id, tenant_id: tenantId })));
    return docs.filter((d): d is SkillDoc => d !== null);
  }

  return {
    skills,
    sessionSkills,

    /** Name+version is unique per tenant (unique index in ensureIndexes): a second install is 10005. */
    async install(tenantId: string, manifest: SkillManifest): Promise<Skill> {
      const doc: SkillDoc = {
        _id: newId('skl'),
        tenant_id: tenantId,
        name: manifest.name,
        version: manifest.version,
        description: manifest.description,
        instructions: manifest.instructions,
        tools: manifest.tools,
        created_at: new Date(),
      };
      try {
        await skills.insertOne(doc);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const existing = await skills.findOne(
          { tenant_id: tenantId, name: manifest.name, version: manifest.version },
          { projection: { _id: 1 } },
        );
        throw conflict(`skill ${manifest.name} ${manifest.version} is already installed`, {
          name: manifest.name,
          version: manifest.version,
          ...(existing ? { skill_id: existing._id } : {}),
        });
      }
      return presentSkill(doc);
    },

    list: (tenantId: string, query: NamedPageRequest) => findPage(skills, tenantNamed(tenantId, query), query, presentSkill),

    get: async (tenantId: string, skillId: string) => presentSkill(await getDoc(tenantId, skillId)),

    /**
     * Sessions that had the skill active stop seeing it at once (readers skip missing skills); their
     * lists lose the id on their next activation.
     */
    async delete(tenantId: string, skillId: string): Promise<void> {
      const { deletedCount } = await skills.deleteOne({ _id: skillId, tenant_id: tenantId });
      if (deletedCount === 0) throw notFound('skill', skillId);
    },

    /**
     * Idempotent. Activating one version of a skill replaces any other version of the same name on
     * the session (their tools would share names). The caller checks that the session is active.
     * Returns the session's active skill ids in activation order.
     */
    async activate(tenantId: string, skillId: string, sessionId: string): Promise<string[]> {
      const target = await getDoc(tenantId, skillId);
      const current = await sessionSkills.findOne({ _id: sessionId, tenant_id: tenantId });
      const currentIds = current?.skill_ids ?? [];
      const live = new Map((await docsByIds(tenantId, currentIds)).map((d) => [d._id, d]));
      const dropped = currentIds.filter((id) => id !== skillId && (!live.has(id) || live.get(id)!.name === target.name));
      // $pullAll, not a conditional $pull (FerretDB ignores the latter); separate from $addToSet, since
      // one update may not change the same field twice.
      if (dropped.length > 0) await sessionSkills.updateOne({ _id: sessionId, tenant_id: tenantId }, { $pullAll: { skill_ids: dropped } });
      const after = await sessionSkills.findOneAndUpdate(
        { _id: sessionId, tenant_id: tenantId },
        { $addToSet: { skill_ids: skillId } },
        // The upsert takes _id and tenant_id from the filter.
        { upsert: true, returnDocument: 'after' },
      );
      return after?.skill_ids ?? [skillId];
    },

    /**
     * The skills active on a session, in activation order: one read of the session's list, then one
     * read by `_id` per skill. Should two versions of a name be active (concurrent activations), the
     * later one wins.
     */
    async activeForSession(tenantId: string, sessionId: string): Promise<SkillRecord[]> {
      const doc = await sessionSkills.findOne({ _id: sessionId, tenant_id: tenantId });
      if (!doc || doc.skill_ids.length === 0) return [];
      const byName = new Map<string, SkillDoc>();
      for (const d of await docsByIds(tenantId, doc.skill_ids)) {
        byName.delete(d.name);
        byName.set(d.name, d);
      }
      return [...byName.values()].map(presentSkill);
    },

    /** Skills by id (e.g. an agent's own list), in the order given; unknown ids are skipped. */
    byIds: async (tenantId: string, ids: readonly string[]): Promise<SkillRecord[]> => (await docsByIds(tenantId, ids)).map(presentSkill),

    /** Whether some installed version of the skill named `skillName` has a tool `toolName`. */
    async offersTool(tenantId: string, skillName: string, toolName: string): Promise<boolean> {
      const versions = await skills.find({ tenant_id: tenantId, name: skillName }, { projection: { tools: 1 } }).toArray();
      return versions.some((v) => v.tools.some((t) => t.name === toolName));
    },

    /** Forgets a session's activations (when the session is deleted). */
    async forgetSession(tenantId: string, sessionId: string): Promise<void> {
      await sessionSkills.deleteOne({ _id: sessionId, tenant_id: tenantId });
    },
  };
}

export type SkillStore = ReturnType<typeof createSkillStore>;
