import { deletedResult, namedPageQuery } from '../../common/schemas/common';
import { activateSkillBody, installSkillBody, skill, skillActivation, skillPage, skillParams } from '../../common/schemas/skills';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Skills';

export const skillRoutes = ({ skills, commands }: Services) => {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/skills',
      operationId: 'listSkills',
      tag,
      summary: "List the tenant's installed skills, newest first",
      query: namedPageQuery,
      response: skillPage,
      handler: ({ principal, query }) => skills.list(principal.tenantId, query),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/skills/install',
      operationId: 'installSkill',
      tag,
      access: 'admin',
      summary: 'Install a skill from its manifest',
      description:
        'A skill is instructions for the system prompt plus HTTP tools the model may call, active on the sessions it is ' +
        "activated on. Every field is validated (each tool's `parameters` is compiled as a JSON Schema); a bad manifest " +
        'is 10001 naming the field, e.g. `body.manifest.tools.0.parameters`. The same name and version installed twice ' +
        'is 10005.',
      body: installSkillBody,
      response: skill,
      handler: ({ principal, body }) => commands.skills.install(principal.tenantId, body.manifest),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/skills/{skill_id}',
      operationId: 'getSkill',
      tag,
      summary: 'Get one skill with its tools',
      params: skillParams,
      response: skill,
      handler: ({ principal, params }) => skills.get(principal.tenantId, params.skill_id),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/skills/{skill_id}',
      operationId: 'deleteSkill',
      tag,
      access: 'admin',
      summary: 'Uninstall a skill',
      description: 'Sessions on which it is active stop using it from their next model call.',
      params: skillParams,
      response: deletedResult,
      handler: async ({ principal, params }) => {
        await skills.delete(principal.tenantId, params.skill_id);
        return { deleted: true as const };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/skills/{skill_id}/activate',
      operationId: 'activateSkill',
      tag,
      summary: 'Activate a skill on a session',
      description:
        "From the next completion on, the session's model sees the skill's instructions and its tools (named " +
        '`<skill name>__<tool name>`). Activating again changes nothing; activating another version of a skill ' +
        'replaces the version active on the session. The session must be active (archived: 10005).',
      params: skillParams,
      body: activateSkillBody,
      response: skillActivation,
      handler: ({ principal, params, body }) => commands.skills.activate(principal.tenantId, params.skill_id, body.session_id),
    }),
  ];
};
