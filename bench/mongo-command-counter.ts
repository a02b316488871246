import { createServer, type Server, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** OP_MSG, the opcode of every command a current MongoDB driver sends (no compression configured). */
const OP_MSG = 2013;
/** Commands that read documents. */
const READS = new Set(['find', 'getMore', 'aggregate', 'count', 'distinct']);

/**
 * A TCP proxy in front of the MongoDB-protocol store that counts the commands one process sends
 * (by name), read off each message's framing: the process under test connects through it, so its
 * own reads are counted apart from every other client of the shared store, with no code of its own.
 */
export async function startMongoCommandCounter(target: { host: string; port: number }) {
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const countMessages = () => {
    let pending: Buffer = Buffer.alloc(0);
    return (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 4) {
        const length = pending.readInt32LE(0);
        if (pending.length < length) break;
        // Header (16 bytes), flag bits (4), then section kind 0 (1) and its document: the first
        // element's name is the command's.
        if (pending.readInt32LE(12) === OP_MSG && pending[20] === 0) {
          const nameStart = 21 + 4 + 1;
          const name = pending.toString('latin1', nameStart, pending.indexOf(0, nameStart));
          counts.set(name, (counts.get(name) ?? 0) + 1);
        }
        pending = pending.subarray(length);
      }
    };
  };
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const count = countMessages();
    client.on('data', (chunk: Buffer) => {
      count(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    /** Commands counted so far, by name. */
    snapshot: () => new Map(counts),
    /** Reads (find, getMore, aggregate, ...) between two snapshots. */
    readsBetween: (before: Map<string, number>, after: Map<string, number>) =>
      [...after].filter(([name]) => READS.has(name)).reduce((sum, [name, n]) => sum + n - (before.get(name) ?? 0), 0),
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}
