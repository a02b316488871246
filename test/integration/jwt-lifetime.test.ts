import { SignJWT } from 'jose';
import { startTestApi, type TestApi } from '../support/api';
import { TEST_JWT_SECRET } from '../support/config';

let api: TestApi;
let lenient: TestApi;

beforeAll(async () => {
  api = await startTestApi();
  lenient = await startTestApi({ JWT_REQUIRE_EXP: 'false', JWT_MAX_LIFETIME_S: '600' });
});
afterAll(async () => {
  await api?.close();
  await lenient?.close();
});

const now = () => Math.floor(Date.now() / 1000);
/** A console token with exactly the time claims given (none unless named). */
function token(times: { iat?: number; exp?: number }): Promise<string> {
  const jwt = new SignJWT({ tenant_id: 'default', roles: [], ...times }).setProtectedHeader({ alg: 'HS256' }).setSubject('user-1');
  return jwt.sign(new TextEncoder().encode(TEST_JWT_SECRET));
}
const agentsWith = (target: TestApi, key: string) => target.call('GET', '/v1/combo/agents', { key });

describe('console token lifetime', () => {
  it('refuses a token without exp by default (10002), and accepts it when JWT_REQUIRE_EXP=false', async () => {
    const noExp = await token({ iat: now() });
    const refused = await agentsWith(api, noExp);
    expect(refused.status).toBe(401);
    expect(refused.json).toMatchObject({ code: 10002, message: expect.stringContaining('exp') });
    expect((await agentsWith(lenient, noExp)).json.code).toBe(0);
  });

  it('accepts a token within the default 24 h lifetime and refuses a longer one', async () => {
    expect((await agentsWith(api, await token({ iat: now(), exp: now() + 3600 }))).json.code).toBe(0);
    const longLived = await agentsWith(api, await token({ iat: now(), exp: now() + 86_400 + 3600 }));
    expect(longLived.json).toMatchObject({ code: 10002, message: expect.stringContaining('86400') });
  });

  it('measures exp - iat, or exp - now without iat or with an iat in the future (JWT_MAX_LIFETIME_S)', async () => {
    // Issued 20 minutes ago, 5 minutes left: a 25-minute token, over the 10-minute ceiling.
    expect((await agentsWith(lenient, await token({ iat: now() - 1200, exp: now() + 300 }))).json.code).toBe(10002);
    expect((await agentsWith(lenient, await token({ iat: now() - 60, exp: now() + 300 }))).json.code).toBe(0);
    expect((await agentsWith(lenient, await token({ exp: now() + 300 }))).json.code).toBe(0);
    expect((await agentsWith(lenient, await token({ exp: now() + 3600 }))).json.code).toBe(10002);
    expect((await agentsWith(lenient, await token({ iat: now() + 3000, exp: now() + 3600 }))).json.code).toBe(10002);
  });
});
