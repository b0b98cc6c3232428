/**
 * Receive Herald's webhooks: an HTTPS server that verifies each delivery's signature, subscribed
 * to `post.published`; then a post is published and its event awaited. Everything it made (the
 * endpoint, the post) is removed at the end.
 *
 *   HERALD_URL=http://localhost:3000 HERALD_API_KEY=sk_live_... node --import tsx docs/examples/webhooks.ts
 *
 * Herald delivers over HTTPS only. Locally the runtime trusts the certificate it made for local
 * receivers (<DATA_DIR>/receiver-tls, DATA_DIR `.herald` by default, as for `npm start`) and
 * allows loopback addresses, so this server listens on 127.0.0.1 with that certificate. On AWS an
 * endpoint must be a public `https://` address with a certificate from a public CA.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  createHeraldClient,
  HeraldError,
  SIGNATURE_HEADER,
  verifyWebhook,
  type WebhookEvent,
} from '@herald/client';

/**
 * The heart of any receiver: check the signature on the raw body exactly as received (not parsed
 * and serialised again), answer at once (Herald waits 10 s at most), then work. `secrets` holds
 * the endpoint's secret, or the old and the new one for a few minutes after rolling it. Events may
 * come more than once: deduplicate on `event.id`.
 */
const onHeraldDelivery = (
  rawBody: Buffer,
  signatureHeader: string | undefined,
  secrets: string[],
  work: (event: WebhookEvent) => void,
): number => {
  if (!verifyWebhook(rawBody, signatureHeader, secrets)) return 400;
  setImmediate(() => work(JSON.parse(rawBody.toString('utf8')) as WebhookEvent));
  return 204;
};

const apiKey = process.env.HERALD_API_KEY;
if (!apiKey) throw new Error('Set HERALD_API_KEY to a live key (npm start prints the demo keys).');
const herald = createHeraldClient({ baseUrl: process.env.HERALD_URL ?? 'http://localhost:3000', apiKey });

const secrets: string[] = [];
const events: WebhookEvent[] = [];
const tls = join(process.env.DATA_DIR ?? '.herald', 'receiver-tls');
const server = createServer(
  { key: readFileSync(join(tls, 'key.pem')), cert: readFileSync(join(tls, 'cert.pem')) },
  (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const signatureHeader = req.headers[SIGNATURE_HEADER] as string | undefined;
      const status = onHeraldDelivery(rawBody, signatureHeader, secrets, (event) => events.push(event));
      res.writeHead(status).end();
      if (status !== 204) console.log(`refused a delivery whose signature does not verify`);
    });
  },
);
await new Promise<void>((listening, failed) => {
  server.once('error', failed);
  server.listen(0, '127.0.0.1', listening);
});
const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/herald`;

let endpointId: string | undefined;
let postId: string | undefined;
try {
  const hook = await herald.POST('/v1/webhooks', {
    params: { header: { 'Idempotency-Key': randomUUID() } },
    body: { url, description: 'docs/examples/webhooks.ts', events: ['post.published'] },
  });
  if (hook.error) throw new HeraldError(hook.response.status, hook.error);
  // The secret is in this answer only (and in a roll-secret's): keep it.
  secrets.push(hook.data.secret);
  endpointId = hook.data.endpoint.id;
  console.log(`receiving on ${url} as ${endpointId}`);

  const channels = await herald.GET('/v1/channels');
  if (channels.error) throw new HeraldError(channels.response.status, channels.error);
  const x = channels.data.data.find((channel) => channel.platform === 'x' && channel.status === 'connected');
  if (!x) throw new Error('This workspace has no connected X channel.');
  const created = await herald.POST('/v1/posts', {
    params: { header: { 'Idempotency-Key': randomUUID() } },
    body: {
      intent: 'now',
      channels: [{ channelId: x.id, blocks: [{ content: `Hello, webhooks (${randomUUID().slice(0, 8)})` }] }],
    },
  });
  if (created.error) throw new HeraldError(created.response.status, created.error);
  postId = created.data.id;

  const deadline = Date.now() + 60_000;
  const ours = () => events.find((e) => e.type === 'post.published' && e.data.post?.id === postId);
  while (!ours()) {
    if (Date.now() > deadline) throw new Error(`No post.published event for ${postId} within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const event = ours() as WebhookEvent;
  console.log(`verified ${event.type} ${event.id} for ${postId} on ${event.data.platform}`);
} finally {
  // Clean up whatever was made, even after an error.
  if (postId) {
    const retracted = await herald.POST('/v1/posts/{id}/retract', { params: { path: { id: postId } } });
    if (retracted.error) console.error(`could not retract ${postId}: ${retracted.error.error.message}`);
    else console.log(`retracted ${postId}`);
  }
  if (endpointId) {
    const deleted = await herald.DELETE('/v1/webhooks/{id}', { params: { path: { id: endpointId } } });
    if (deleted.error) console.error(`could not delete ${endpointId}: ${deleted.error.error.message}`);
    else console.log(`deleted ${endpointId}`);
  }
  server.close();
}
