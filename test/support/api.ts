import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { SignJWT } from 'jose';
import { createApp } from '../../api/app';
import { type ApiRuntime, createServices, type ServiceOptions } from '../../api/services-factory';
import type { Config } from '../../common/config';
import { randomToken } from '../../common/ids';
import { createLogger } from '../../common/logger';
import { TEST_JWT_SECRET, testConfig } from './config';
import { checkResponse } from './openapi-check';

interface CallOptions {
  key?: string;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

interface CallResult {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  text: string;
}

export interface TestApi {
  url: string;
  services: ApiRuntime;
  config: Config;
  /** An admin key of the `default` tenant (the bootstrap key). */
  adminKey: string;
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  /** multipart/form-data POST: text fields plus an optional file part named `file`. */
  upload(
    path: string,
    key: string,
    fields: Record<string, string>,
    file?: { name: string; bytes: Buffer; type?: string },
  ): Promise<CallResult>;
  close(opts?: { keepDatabase?: boolean }): Promise<void>;
}

export const newKeyText = () => `combo_${randomToken(8)}_${randomToken(32)}`;

/**
 * Starts the real Koa app on a free port, on the real stack, with its own database. Every JSON
 * response is checked against the served OpenAPI document (a mismatch fails the calling test).
 */
export async function startTestApi(
  overrides: Record<string, string> = {},
  options: ServiceOptions & {
    /** The built console to serve at /console (default: CONSOLE_TEST_BUILD_DIR, else dist/console). */ consoleDir?: string;
  } = {},
): Promise<TestApi> {
  const adminKey = overrides.BOOTSTRAP_API_KEY ?? newKeyText();
  const config = testConfig({ BOOTSTRAP_API_KEY: adminKey, ...overrides });
  const services = await createServices(config, createLogger('silent', 'test'), options);
  const server: Server = createApp(services, { consoleDir: options.consoleDir ?? process.env.CONSOLE_TEST_BUILD_DIR }).listen(
    0,
    '127.0.0.1',
  );
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    services,
    config,
    adminKey,
    async call(method, path, { key, body, rawBody, headers = {} } = {}) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: rawBody ?? (body !== undefined ? JSON.stringify(body) : undefined),
      });
      const text = await res.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      await checkResponse(url, { method, path, status: res.status, contentType: res.headers.get('content-type'), body: json });
      return { status: res.status, headers: res.headers, json, text };
    },
    async upload(path, key, fields, file) {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      if (file) form.append('file', new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.name);
      const res = await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
      const text = await res.text();
      const json = text ? JSON.parse(text) : undefined;
      await checkResponse(url, { method: 'POST', path, status: res.status, contentType: res.headers.get('content-type'), body: json });
      return { status: res.status, headers: res.headers, json, text };
    },
    async close({ keepDatabase = false } = {}) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // Its last rate counts are published now, before the database is dropped (not into a new one after).
      await services.rateLimiter.close();
      if (!keepDatabase) {
        await services.mongo.db.dropDatabase();
        // Deleting by wildcard is refused (destructive_requires_name): name each of the test's indices.
        // (A test may point the API at an Elasticsearch that is down on purpose: nothing to clean then.)
        const indices = await services.es.indices
          .get({ index: `${config.ELASTICSEARCH_INDEX_PREFIX}-*`, allow_no_indices: true })
          .catch(() => ({}));
        if (Object.keys(indices).length > 0) await services.es.indices.delete({ index: Object.keys(indices) });
      }
      await services.close();
    },
  };
}

/** A console token as the web front end would send it. */
export function consoleToken(claims: { tenant_id: string; sub: string; roles?: string[] }, expiresIn = '10m'): Promise<string> {
  return new SignJWT({ tenant_id: claims.tenant_id, roles: claims.roles ?? [] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));
}
