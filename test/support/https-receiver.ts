import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throw-away CA and a certificate it signed for localhost / 127.0.0.1 / ::1 (made with openssl). */
export interface TestCertificates {
  dir: string;
  /** PEM file of the CA: what NODE_EXTRA_CA_CERTS / WEBHOOK_EXTRA_CA_CERTS point at. */
  caFile: string;
  key: string;
  cert: string;
  remove(): void;
}

export const makeCertificates = (): TestCertificates => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-tls-'));
  const openssl = (args: string[]) => {
    try {
      execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    } catch (error) {
      throw new Error(`openssl is needed to make the test certificates: ${(error as Error).message}`);
    }
  };
  openssl(
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2'].concat([
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-subj',
      '/CN=Herald test CA',
    ]),
  );
  writeFileSync(
    join(dir, 'ext.cnf'),
    'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'server.key'].concat(
      ['-out', 'server.csr', '-subj', '/CN=localhost'],
    ),
  );
  openssl(
    ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial'].concat([
      '-days',
      '2',
      '-out',
      'server.pem',
      '-extfile',
      'ext.cnf',
    ]),
  );
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    key: readFileSync(join(dir, 'server.key'), 'utf8'),
    cert: readFileSync(join(dir, 'server.pem'), 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
};

export interface ReceivedDelivery {
  path: string;
  headers: IncomingMessage['headers'];
  raw: string;
  body: any;
  at: number;
}

/** What the receiver answers: a status (and headers), or `hang` to never answer. */
export type Answer = { status: number; headers?: Record<string, string> } | 'hang';

/**
 * An HTTPS webhook receiver on 127.0.0.1. Every request is recorded; `answer` decides the reply
 * per request (default 200).
 */
export const startReceiver = async (
  certs: Pick<TestCertificates, 'key' | 'cert'>,
  answer: (request: ReceivedDelivery, index: number) => Answer = () => ({ status: 200 }),
) => {
  const received: ReceivedDelivery[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer({ key: certs.key, cert: certs.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {
        // recorded as raw text
      }
      const entry: ReceivedDelivery = {
        path: req.url ?? '/',
        headers: req.headers,
        raw,
        body,
        at: Date.now(),
      };
      received.push(entry);
      const reply = current(entry, received.length - 1);
      if (reply === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(reply.status, reply.headers ?? {});
      res.end('ok');
    });
  });
  let current = answer;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path = '/hooks') => `https://127.0.0.1:${port}${path}`,
    received,
    /** Requests for one event id, in arrival order. */
    forEvent: (eventId: string) => received.filter((r) => r.headers['x-herald-event-id'] === eventId),
    setAnswer: (next: typeof answer) => {
      current = next;
    },
    /** Polls until `predicate` holds over what was received. */
    waitFor: async (
      predicate: (all: ReceivedDelivery[]) => boolean,
      timeoutMs = 15_000,
      what = 'deliveries',
    ) => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline)
          throw new Error(`Timed out waiting for ${what}; received ${received.length}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return received;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
