/**
 * Publish a post with the typed client, wait until it is live, then take it down again.
 *
 *   HERALD_URL=http://localhost:3000 HERALD_API_KEY=sk_live_... node --import tsx docs/examples/publish.ts
 *
 * HERALD_URL is the deployment's root (without /v1; http://localhost:3000 by default) and
 * HERALD_API_KEY a live key with write permission (`npm start` prints the demo ones). It posts to
 * the workspace's first connected X channel and prints one line per step.
 */
import { randomUUID } from 'node:crypto';
import { createHeraldClient, HeraldError, waitForPost } from '@herald/client';

const apiKey = process.env.HERALD_API_KEY;
if (!apiKey) throw new Error('Set HERALD_API_KEY to a live key (npm start prints the demo keys).');
const herald = createHeraldClient({ baseUrl: process.env.HERALD_URL ?? 'http://localhost:3000', apiKey });

// A real channel id, from the workspace's channels.
const channels = await herald.GET('/v1/channels');
if (channels.error) throw new HeraldError(channels.response.status, channels.error);
const x = channels.data.data.find((channel) => channel.platform === 'x' && channel.status === 'connected');
if (!x) throw new Error('This workspace has no connected X channel.');

// A text of its own each run: X refuses a post that repeats a recent one.
const content = `Hello from the typed client (${randomUUID().slice(0, 8)})`;
const created = await herald.POST('/v1/posts', {
  // The same key on a retry of this request returns the same post instead of a second one.
  params: { header: { 'Idempotency-Key': randomUUID() } },
  body: { intent: 'now', channels: [{ channelId: x.id, blocks: [{ content }] }] },
});
if (created.error) throw new HeraldError(created.response.status, created.error);
console.log(`created ${created.data.id} (${created.data.status}) on ${x.name}`);

// Polls until the post is published, partially published or failed.
const post = await waitForPost(herald, created.data.id, { timeoutMs: 60_000 });
for (const channel of post.channels) {
  const outcome = channel.status === 'published' ? channel.remoteUrl : channel.error;
  console.log(`${post.id} ${post.status}: ${channel.platform} ${channel.status} ${outcome}`);
}
if (post.status !== 'published') throw new Error(`${post.id} was not published: ${post.status}`);

// Clean up: retract deletes it on the network, and Herald drops a post with no channel left.
const retracted = await herald.POST('/v1/posts/{id}/retract', { params: { path: { id: post.id } } });
if (retracted.error) throw new HeraldError(retracted.response.status, retracted.error);
for (const left of retracted.data.remaining) console.log(`still on ${left.platform}: ${left.reason}`);
console.log(`retracted ${post.id} from ${retracted.data.removed.map((c) => c.platform).join(', ')}`);
