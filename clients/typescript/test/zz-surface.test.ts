/**
 * Runs last (vitest.config.ts orders files by path): every method of the surface exists, and the suite
 * called each one successfully (test/support/client.ts records a call once it resolved).
 */
import { describe, expect, test } from 'vitest';
import { Combo, OPERATIONS } from '../src/index';
import { exercised, member, SURFACE } from './support/client';

describe('the surface', () => {
  test('every operation of the document is a method of the client, placed as clients/codegen/operations.ts says', () => {
    const client = new Combo({ baseURL: 'http://127.0.0.1:1', apiKey: 'unused' });
    expect(new Set(SURFACE).size).toBe(SURFACE.length);
    const missing = SURFACE.filter((dotted) => {
      const { owner, name } = member(client, dotted);
      return typeof owner?.[name] !== 'function';
    });
    expect(missing).toEqual([]);
    expect(OPERATIONS.filter((op) => op.handWritten).map((op) => `${op.resource}.${op.method}`)).toEqual([
      'completions.create',
      'runs.events',
      'inbound.send',
      'inbound.sendGeneric',
    ]);
  });

  test('the tests called every method, and each call succeeded', () => {
    expect(SURFACE.filter((dotted) => !exercised.has(dotted))).toEqual([]);
  });
});
