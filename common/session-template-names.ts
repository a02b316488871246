/** The session templates an agent task can open its session with (triggers/session-templates.ts builds them). */
export const SESSION_TEMPLATE_NAMES = ['default', 'code-review', 'import-requirements', 'import-bugs'] as const;
export type SessionTemplateName = (typeof SESSION_TEMPLATE_NAMES)[number];
