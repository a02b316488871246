import type { Config } from '../common/config';
import { invalid } from '../common/errors';
import { assertPublicHttpUrl, UnsafeUrlError } from '../common/net/url-guard';
import type { Skill, SkillManifest } from '../common/schemas/skills';
import type { SessionStore } from '../stores/sessions';
import type { SkillStore } from '../stores/skills';

/** Skills: installed only with tools that call public addresses; activated only on an active session. */
export function createSkillCommands({
  skills,
  sessions,
  config,
}: {
  skills: SkillStore;
  sessions: Pick<SessionStore, 'getActive'>;
  config: Pick<Config, 'ALLOW_PRIVATE_URLS'>;
}) {
  /** The schema checked scheme and credentials; where the host points is checked here (DNS). */
  async function checkToolUrls(manifest: SkillManifest): Promise<void> {
    for (const [i, tool] of manifest.tools.entries()) {
      try {
        await assertPublicHttpUrl(tool.http.url, config.ALLOW_PRIVATE_URLS);
      } catch (err) {
        if (!(err instanceof UnsafeUrlError)) throw err;
        const field = `body.manifest.tools.${i}.http.url`;
        throw invalid(`${field}: ${err.message}`, { field });
      }
    }
  }

  return {
    async install(tenantId: string, manifest: SkillManifest): Promise<Skill> {
      await checkToolUrls(manifest);
      return skills.install(tenantId, manifest);
    },

    /** On the session from its next completion on (10005 when it is archived); answers the skills now active on it. */
    async activate(tenantId: string, skillId: string, sessionId: string) {
      await sessions.getActive(tenantId, sessionId);
      const active = await skills.activate(tenantId, skillId, sessionId);
      return { session_id: sessionId, skill_id: skillId, active_skill_ids: active };
    },
  };
}
