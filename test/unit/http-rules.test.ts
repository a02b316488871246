import Router from '@koa/router';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { AppError, ErrorCodes, httpStatusOf } from '../../common/errors';
import type { AppState } from '../../api/context';
import { rateFamilyOf } from '../../api/middleware/rate-limit';
import { defineRoute, mountRoute } from '../../api/route';

describe('the spec code table', () => {
  it('maps every code to its HTTP status', () => {
    expect(httpStatusOf).toEqual({
      0: 200,
      10001: 400,
      10002: 401,
      10003: 403,
      10004: 404,
      10005: 409,
      10006: 429,
      20001: 500,
      30001: 502,
      30002: 504,
    });
    expect(new AppError(ErrorCodes.TOOL_TIMEOUT, 'slow').httpStatus).toBe(504);
  });
});

describe('rate-limit families', () => {
  it.each([
    ['POST', '/v1/combo/agents/agt_1/completions', 'completions'],
    ['GET', '/v1/combo/agents/agt_1/completions', 'default'],
    ['POST', '/v1/document', 'uploads'],
    ['GET', '/v1/document/doc_1', 'default'],
    ['POST', '/v1/document/doc_1/reparse', 'uploads'],
    ['DELETE', '/v1/document/doc_1', 'default'],
    ['GET', '/v1/combo/agents', 'default'],
  ])('%s %s counts as %s', (method, path, family) => {
    expect(rateFamilyOf(method, path)).toBe(family);
  });
});

describe('deprecated interfaces', () => {
  it('announce themselves with X-Deprecated and the sunset date', async () => {
    const router = new Router<AppState>();
    const route = (deprecated?: { sunset: string }) =>
      defineRoute({
        method: 'get',
        path: deprecated ? '/old' : '/new',
        operationId: 'x',
        tag: 't',
        summary: 's',
        access: 'none',
        response: z.object({ fine: z.boolean() }),
        deprecated,
        handler: async () => ({ fine: true }),
      });
    mountRoute(router, route({ sunset: '2027-06-30' }));
    mountRoute(router, route());
    const app = new Koa<AppState>();
    app.use(router.routes());
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const old = await fetch(`${base}/old`);
      expect(old.headers.get('x-deprecated')).toBe('true');
      expect(old.headers.get('x-deprecated-sunset')).toBe('2027-06-30');
      expect(await old.json()).toEqual({ code: 0, data: { fine: true }, message: 'ok' });
      const current = await fetch(`${base}/new`);
      expect(current.headers.get('x-deprecated')).toBeNull();
    } finally {
      server.close();
    }
  });
});

describe('Idempotency-Key on routes that handle it themselves', () => {
  const post = (over: Partial<Parameters<typeof defineRoute>[0]>) =>
    defineRoute({
      method: 'post',
      path: '/runs',
      operationId: 'startRun',
      tag: 't',
      summary: 's',
      response: z.object({ key: z.string().nullable() }),
      handler: ({ idempotencyKey }) => ({ key: idempotencyKey ?? null }),
      ...over,
    });

  it('gives the validated key to the handler of an `idempotency: handler` route, which keeps nothing', async () => {
    const router = new Router<AppState>();
    mountRoute(router, post({ idempotency: 'handler' }));
    const app = new Koa<AppState>();
    app.use(async (ctx, next) => {
      ctx.state.principal = { tenantId: 't1', userId: 'key_1', ownerId: 'key_1', role: 'member', via: 'api_key', rateKey: 'key:key_1' };
      await next();
    });
    app.use(router.routes());
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/runs`;
    try {
      const keyed = await fetch(url, { method: 'POST', headers: { 'idempotency-key': 'run-1' } });
      expect(await keyed.json()).toEqual({ code: 0, data: { key: 'run-1' }, message: 'ok' });
      expect(await (await fetch(url, { method: 'POST' })).json()).toEqual({ code: 0, data: { key: null }, message: 'ok' });
    } finally {
      server.close();
    }
  });

  it('refuses to mount a POST that may answer other than JSON without it: such a reply cannot be kept for repeats', () => {
    expect(() => mountRoute(new Router<AppState>(), post({ response: 'raw', handler: () => undefined }))).toThrow(/idempotency: 'handler'/);
    expect(() => mountRoute(new Router<AppState>(), post({ response: 'raw', handler: () => undefined, access: 'none' }))).not.toThrow();
  });
});
