/**
 * `npm run receiver`: a webhook receiver for the local runtime. It serves HTTPS on 127.0.0.1 with
 * the certificate the runtime trusts (<DATA_DIR>/receiver-tls), subscribes itself to every event
 * with the demo live key (or HERALD_API_KEY), verifies each delivery's signature and prints it, and
 * removes its endpoint when stopped. With HERALD_WEBHOOK_SECRET (comma-separated for old and new)
 * it only verifies, for an endpoint registered by hand.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { watchParent } from '../functions/adapters/local/parent-watch.ts';
import { ensureReceiverTls } from '../functions/adapters/local/receiver-tls.ts';
import { RUNTIME_INFO_FILE, type SeedFile } from '../functions/adapters/local/runtime.ts';
import { EVENT_TYPES } from '../functions/ports/webhooks.ts';
import { SIGNATURE_HEADER, verifyWebhook } from '../functions/shared/verify-webhook.ts';

const USAGE = `Usage: npm run receiver [-- --port <n>] [--path /hooks]

Serves https://127.0.0.1:<port><path> (port: --port, else RECEIVER_PORT, else 8443; 0 picks a free
one) with the certificate the local runtime trusts, subscribes it to every event with the demo
live key from <DATA_DIR>/seed.json (or HERALD_API_KEY), prints each delivery whose signature
verifies, answers the others 400, and deletes the endpoint on Ctrl-C.
With HERALD_WEBHOOK_SECRET=whsec_...[,whsec_...] it registers nothing and only verifies.`;

/** Stopping waits this long for Herald to delete the endpoint, then says it could not. */
const DELETE_TIMEOUT_MS = 5_000;

const fail = (message: string): never => {
  console.error(`receiver: ${message}`);
  process.exit(1);
};

const args = (() => {
  try {
    return parseArgs({
      options: {
        port: { type: 'string' },
        path: { type: 'string', default: '/hooks' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
})();

interface Delivery {
  id?: string;
  type?: string;
  data?: { channelId?: string; platform?: string; post?: { id?: string }; postId?: string; error?: string };
}

/** One line a person can read: what happened, to which post and channel, on which attempt. */
const summary = (event: Delivery, attempt: string | undefined): string => {
  const data = event.data ?? {};
  const postId = data.post?.id ?? data.postId;
  return [
    `verified ${event.type} ${event.id}`,
    `attempt ${attempt ?? '?'}`,
    ...(postId ? [`post ${postId}`] : []),
    ...(data.channelId ? [`channel ${data.channelId}${data.platform ? ` (${data.platform})` : ''}`] : []),
    ...(data.error ? [`error: ${data.error}`] : []),
  ].join(' · ');
};

const main = async () => {
  if (args.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(args.port ?? process.env.RECEIVER_PORT ?? 8443);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number, got ${port}`);
  if (!args.path.startsWith('/')) fail('--path must start with /');
  const dataDir = resolve(process.env.DATA_DIR ?? '.herald');
  const tls =
    ensureReceiverTls(dataDir) ??
    fail(
      'openssl is needed to make the receiver certificate (apt-get install openssl, brew install openssl).',
    );
  const ownSecrets = (process.env.HERALD_WEBHOOK_SECRET ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const running = existsSync(join(dataDir, RUNTIME_INFO_FILE));
  if (ownSecrets.length === 0 && !running)
    fail(
      `the local runtime is not running (no ${join(dataDir, RUNTIME_INFO_FILE)}); start it with npm start.`,
    );
  if (tls.created && running)
    console.error(
      'receiver: made a new certificate; restart npm start once so that the running runtime trusts it.',
    );

  const secrets = [...ownSecrets];
  const server = createServer(
    { key: readFileSync(tls.keyFile), cert: readFileSync(tls.certFile) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        if (req.method !== 'POST' || !verifyWebhook(raw, req.headers[SIGNATURE_HEADER] as string, secrets)) {
          res.writeHead(400).end();
          console.log(`refused ${req.method} ${req.url}: the signature does not verify`);
          return;
        }
        // Answer first (Herald waits at most 10 s), then do the work.
        res.writeHead(204).end();
        let event: Delivery = {};
        try {
          event = JSON.parse(raw.toString('utf8')) as Delivery;
        } catch {
          // signed but not JSON: shown by its headers alone
        }
        console.log(summary(event, req.headers['x-herald-attempt'] as string | undefined));
      });
    },
  );
  await new Promise<void>((done, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => done());
  });
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}${args.path}`;

  let endpoint: { id: string; delete: () => Promise<string> } | undefined;
  if (ownSecrets.length === 0) {
    const seed = JSON.parse(readFileSync(join(dataDir, 'seed.json'), 'utf8')) as SeedFile;
    const headers = { 'x-api-key': process.env.HERALD_API_KEY || seed.keys.live };
    const res = await fetch(`${seed.baseUrl}/webhooks`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ url, description: 'npm run receiver', events: EVENT_TYPES }),
    });
    const body = (await res.json()) as {
      secret?: string;
      endpoint?: { id: string };
      error?: { code: string; message: string };
    };
    if (res.status !== 201 || !body.secret || !body.endpoint)
      fail(`Herald refused the endpoint: ${res.status} ${JSON.stringify(body.error ?? body)}`);
    secrets.push(body.secret as string);
    const id = body.endpoint?.id as string;
    endpoint = {
      id,
      /** What became of the endpoint, in one line: deleted, or why not. */
      delete: async () => {
        try {
          const answer = await fetch(`${seed.baseUrl}/webhooks/${id}`, {
            method: 'DELETE',
            headers,
            signal: AbortSignal.timeout(DELETE_TIMEOUT_MS),
          });
          if (answer.ok) return `Deleted the webhook endpoint ${id}.`;
          const refusal = ((await answer.json().catch(() => ({}))) as { error?: { message?: string } }).error;
          return `Could not delete the webhook endpoint ${id}: Herald answered ${answer.status}${refusal?.message ? ` (${refusal.message})` : ''}; delete it with DELETE /v1/webhooks/${id}.`;
        } catch (error) {
          const why =
            error instanceof Error
              ? error.cause instanceof Error
                ? error.cause.message
                : error.message
              : String(error);
          return `Could not delete the webhook endpoint ${id}: ${seed.baseUrl} did not answer (${why}); delete it with DELETE /v1/webhooks/${id} once Herald runs.`;
        }
      },
    };
  }

  let stopping = false;
  /** Ctrl-C, SIGINT or SIGTERM to npm or to node, SIGHUP, or npm gone: delete the endpoint, then stop. */
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    if (endpoint) console.log(await endpoint.delete());
    server.closeAllConnections();
    server.close(() => {
      console.log('Receiver stopped.');
      process.exit(0);
    });
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop());
  watchParent(() => void stop());
  console.log(
    endpoint
      ? `Receiving Herald webhooks on ${url} as ${endpoint.id} (${EVENT_TYPES.join(', ')}); Ctrl-C stops and deletes the endpoint.`
      : `Receiving Herald webhooks on ${url}, verified with HERALD_WEBHOOK_SECRET; Ctrl-C stops.`,
  );
};

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
