import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';

/**
 * A test CA and, signed by it, a server certificate for `altName` (`DNS:temporal.test`, `IP:127.0.0.1`)
 * and a client certificate, made with openssl.
 */
export function makeCertificates(altName: string) {
  const dir = mkdtempSync(join(tmpdir(), 'tls-stand-in-'));
  const path = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=combo test CA',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
  );
  const sign = (name: string, subject: string, extensions: string) => {
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', subject, '-keyout', `${name}.key`, '-out', `${name}.csr`);
    writeFileSync(path(`${name}.ext`), extensions);
    openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.crt`,
    );
  };
  sign('server', '/CN=combo test server', `subjectAltName=${altName}\nextendedKeyUsage=serverAuth\n`);
  sign('client', '/CN=combo-client', 'extendedKeyUsage=clientAuth\n');
  return {
    caPath: path('ca.crt'),
    clientCertPath: path('client.crt'),
    clientKeyPath: path('client.key'),
    server: { cert: readFileSync(path('server.crt')), key: readFileSync(path('server.key')), ca: readFileSync(path('ca.crt')) },
  };
}

type ServerCredentials = ReturnType<typeof makeCertificates>['server'];

/**
 * A TLS front for a plain-text gRPC server (the local Temporal): it asks for a client certificate
 * signed by the test CA, refuses connections without one, records each client's certificate name
 * and passes the bytes through (HTTP/2 is the same over TLS as in plain text after the handshake).
 */
export async function startMutualTlsFront(credentials: ServerCredentials, target: string) {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const clientNames: string[] = [];
  const server = createTlsServer(
    { ...credentials, requestCert: true, rejectUnauthorized: true, ALPNProtocols: ['h2'] },
    (socket: TLSSocket) => {
      clientNames.push(String(socket.getPeerCertificate().subject?.CN));
      const upstream = connect(port, host);
      socket.pipe(upstream).pipe(socket);
      const end = () => {
        socket.destroy();
        upstream.destroy();
      };
      socket.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    clientNames,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An https front for a plain-text HTTP server (the local Elasticsearch) that records each request's Authorization header. */
export async function startHttpsFront(credentials: ServerCredentials, targetUrl: string) {
  const target = new URL(targetUrl);
  const authorizations: Array<string | undefined> = [];
  const server = createHttpsServer({ cert: credentials.cert, key: credentials.key }, (req, res) => {
    authorizations.push(req.headers.authorization);
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
