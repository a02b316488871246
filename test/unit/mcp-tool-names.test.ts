import { loadConfig } from '../../common/config';
import { mcpUrlAllowsPrivate } from '../../common/net/private-hosts';
import { createAgentBody } from '../../common/schemas/agents';
import { MCP_SERVER_NAME, MCP_TOOL_NAME, mcpModelToolName, mcpServersInput, splitMcpToolName } from '../../common/schemas/mcp-servers';
import { modelToolName } from '../../common/schemas/skills';
import { mcpServersFor } from '../../completion/plan-run';
import { testEnvironment } from '../support/config';

const server = (overrides: Record<string, unknown> = {}) => ({
  name: 'stock',
  url: 'https://mcp.example.com/mcp',
  allowed_tools: ['echo'],
  ...overrides,
});
const SKILL_NAME = /^[a-z][a-z0-9_-]{1,39}$/;
const SKILL_TOOL = /^[a-z][a-z0-9_]{0,39}$/;

describe('MCP tool names', () => {
  it('names a tool <server>__<tool> and splits it back at the first "__"', () => {
    expect(mcpModelToolName('stock', 'get_level')).toBe('stock__get_level');
    expect(splitMcpToolName('stock__get__level')).toEqual({ server: 'stock', tool: 'get__level' });
    expect(splitMcpToolName('current_time')).toBeNull();
    expect(splitMcpToolName('__x')).toBeNull();
  });

  it('never gives an MCP tool a skill tool name unless the server is named as the skill', () => {
    // Every pair of names from these sets that spell the same model name has skill name = server name.
    const skills = ['ab', 'ab_', 'ab-c', 'a_b', 'stock', 'stock_', 'st', 'x1', 'stock-a'].filter(
      (n) => SKILL_NAME.test(n) && !n.includes('__'),
    );
    const skillTools = ['x', 'x__y', '_x', 'get', 'a_', 'stock'].filter((t) => SKILL_TOOL.test(t));
    const servers = ['ab', 'ab-c', 'stock', 'st', 'x1', 'stock-a', 'ab_', 'a_b', 'ab-'].filter((n) => MCP_SERVER_NAME.test(n));
    const mcpTools = ['x', 'x__y', '_x', 'Get', 'get', 'a-b', 'y', 'stock'].filter((t) => MCP_TOOL_NAME.test(t));
    expect(servers).not.toContain('ab_');
    expect(mcpTools).not.toContain('_x');
    for (const skill of skills)
      for (const skillTool of skillTools)
        for (const srv of servers)
          for (const tool of mcpTools)
            if (modelToolName(skill, skillTool) === mcpModelToolName(srv, tool)) expect({ skill, srv }).toEqual({ skill: srv, srv });
  });

  it('drops from a run the servers named as an active skill, and all of them when the route calls no model', () => {
    const agent = { mcp_servers: [{ name: 'stock' }, { name: 'weather' }] } as Parameters<typeof mcpServersFor>[0];
    const route = { scenario: 'agent', processor: 'llm', mode: 'default', text: '@agent@llm@default@', usesModel: true };
    expect(mcpServersFor(agent, [{ name: 'weather' }], route)).toEqual(['stock']);
    expect(mcpServersFor(agent, [], { ...route, usesModel: false })).toEqual([]);
  });
});

describe('the mcp_servers field', () => {
  it('defaults to none and accepts a server with headers, allowed tools and a deadline', () => {
    expect(createAgentBody.parse({ name: 'a' }).mcp_servers).toEqual([]);
    const parsed = mcpServersInput.parse([server({ headers: { Authorization: 'Bearer x' }, timeout_ms: 500 })]);
    expect(parsed[0]).toMatchObject({ name: 'stock', headers: { Authorization: 'Bearer x' }, timeout_ms: 500 });
  });

  it('refuses names, tools, headers and URLs it cannot use', () => {
    const refused = (servers: unknown[]) => !mcpServersInput.safeParse(servers).success;
    expect(refused([server({ name: 'a_b' })])).toBe(true);
    expect(refused([server({ name: 'ab-' })])).toBe(true);
    expect(refused([server({ name: 'Stock' })])).toBe(true);
    expect(refused([server(), server()])).toBe(true);
    expect(refused([server({ allowed_tools: [] })])).toBe(true);
    expect(refused([server({ allowed_tools: ['_x'] })])).toBe(true);
    expect(refused([server({ allowed_tools: ['get.level'] })])).toBe(true);
    expect(refused([server({ name: 'a'.repeat(32), allowed_tools: ['b'.repeat(31)] })])).toBe(true);
    expect(refused([server({ name: 'a'.repeat(32), allowed_tools: ['b'.repeat(30)] })])).toBe(false);
    expect(refused([server({ headers: { 'Mcp-Session-Id': 'x' } })])).toBe(true);
    expect(refused([server({ headers: { a: '1', A: '2' } })])).toBe(true);
    expect(refused([server({ url: 'ftp://mcp.example.com' })])).toBe(true);
    expect(refused([server({ url: 'https://u:p@mcp.example.com' })])).toBe(true);
    expect(refused([server({ timeout_ms: 50 })])).toBe(true);
    expect(refused([server({ extra: 1 })])).toBe(true);
  });

  it('names MCP tools in approval.tools as <server>__<tool>', () => {
    const approval = (tool: string) => createAgentBody.safeParse({ name: 'a', approval: { tools: [tool] } }).success;
    expect(approval('stock__GetLevel')).toBe(true);
    expect(approval('stock__get-level')).toBe(true);
    expect(approval('current_time')).toBe(true);
    expect(approval('stock__')).toBe(false);
    expect(approval('Stock__x')).toBe(false);
  });
});

describe('the private hosts MCP servers may reach (MCP_PRIVATE_HOSTS)', () => {
  const settings = (hosts: string, allowAll = false) => {
    const config = loadConfig(testEnvironment({ ALLOW_PRIVATE_URLS: String(allowAll), MCP_PRIVATE_HOSTS: hosts }));
    return { ALLOW_PRIVATE_URLS: config.ALLOW_PRIVATE_URLS, MCP_PRIVATE_HOSTS: config.MCP_PRIVATE_HOSTS };
  };

  it('allows listed hosts (on the listed port) or all with ALLOW_PRIVATE_URLS, and refuses a bad entry', () => {
    const s = settings('mcp-sidecar,127.0.0.1:8931');
    expect(mcpUrlAllowsPrivate('http://mcp-sidecar:9000/mcp', s)).toBe(true);
    expect(mcpUrlAllowsPrivate('http://127.0.0.1:8931/mcp', s)).toBe(true);
    expect(mcpUrlAllowsPrivate('http://127.0.0.1:8932/mcp', s)).toBe(false);
    expect(mcpUrlAllowsPrivate('http://10.0.0.1/mcp', s)).toBe(false);
    expect(mcpUrlAllowsPrivate('http://10.0.0.1/mcp', settings('', true))).toBe(true);
    expect(mcpUrlAllowsPrivate('not a url', s)).toBe(false);
    expect(() => settings('http://x')).toThrow(/MCP_PRIVATE_HOSTS/);
  });
});
