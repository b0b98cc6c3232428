import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/aws/dynamo/keys.ts';
import { DynamoWebhookStore, endpointToItem } from '../../functions/adapters/aws/dynamo/webhooks.ts';
import { recountWebhookEndpoints } from '../../functions/core/admin/admin.ts';
import { mutatePost, PublishingEngine, startRound } from '../../functions/core/publishing/engine.ts';
import type { NetworkClient, RemoteBlock } from '../../functions/ports/network-client.ts';
import { freshWorkspace } from '../support/accounts.ts';
import type { Receiver } from '../support/https-receiver.ts';
import { type Gate, gate, liveXClientPerTest } from '../support/interleave.ts';
import { eventsOfPost, offEndpoint } from '../support/outbox.ts';
import { publishNow } from '../support/publishing.ts';
import { startReceiverRuntime } from '../support/receiver-runtime.ts';
import type { TestRuntime } from '../support/runtime.ts';

/**
 * The outbox keeps no event while its workspace has no webhook endpoint: a per-workspace count of
 * endpoints, kept by the transactions that create and delete them, and checked by the commit that
 * leaves the events out. These check the count (routes, workspaces from before it) and the races
 * between a commit and an endpoint's creation or deletion.
 */

let rt: TestRuntime;
let receiver: Receiver;
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ rt, receiver, stop } = await startReceiverRuntime({
    env: {
      NETWORK_TIMEOUT_MS: '1000',
      PUBLISH_RETRY_BASE_SECONDS: '0.2',
      WEBHOOK_RETRY_BASE_SECONDS: '0.2',
    },
  }));
});
afterAll(async () => {
  await stop?.();
});

const deps = () => rt.container.deps;
const useClient = liveXClientPerTest(() => rt);

/** The workspace's count of endpoints as stored; null when there is none (a workspace from before it). */
const countOf = async (workspaceId: string): Promise<number | null> => {
  const { table } = deps();
  const out = await table.doc.send(
    new GetCommand({ TableName: table.tableName, Key: keys.webhookCount(workspaceId), ConsistentRead: true }),
  );
  return out.Item ? (out.Item.endpoints as number) : null;
};

/** Makes the workspace look like one made before the count existed. */
const forgetCount = async (workspaceId: string) => {
  const { table } = deps();
  await table.doc.send(
    new DeleteCommand({ TableName: table.tableName, Key: keys.webhookCount(workspaceId) }),
  );
};

const createEndpoint = async (key: string, path: string) => {
  const res = await rt.api('/webhooks', {
    method: 'POST',
    key,
    body: { url: receiver.url(path), events: ['post.published', 'post.failed'] },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.endpoint.id as string;
};

const deleteEndpoint = (key: string, id: string) => rt.api(`/webhooks/${id}`, { method: 'DELETE', key });

const endpointsOf = async (workspaceId: string) => (await deps().webhooks.listEndpoints(workspaceId)).length;

describe('the count of a workspace’s webhook endpoints', () => {
  it('is 0 for a new workspace and follows the routes; failed creates and deletes change nothing', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    expect(await countOf(ws.workspaceId)).toBe(0);
    const first = await createEndpoint(ws.key, '/count-1');
    expect(await countOf(ws.workspaceId)).toBe(1);
    const second = await createEndpoint(ws.key, '/count-2');
    expect(await countOf(ws.workspaceId)).toBe(2);

    // Refused creates: not https, and a test key.
    const plain = await rt.api('/webhooks', {
      method: 'POST',
      key: ws.key,
      body: { url: 'http://example.com/hook', events: ['post.published'] },
    });
    expect(plain.status).toBe(400);
    expect(await countOf(ws.workspaceId)).toBe(2);
    // A create whose transaction fails (the endpoint exists already) counts nothing.
    const again = offEndpoint(ws.accountId, ws.workspaceId);
    await deps().webhooks.createEndpoint(again, 2);
    expect(await countOf(ws.workspaceId)).toBe(3);
    await expect(deps().webhooks.createEndpoint(again, 3)).rejects.toThrow();
    expect(await countOf(ws.workspaceId)).toBe(3);
    expect(await deps().webhooks.deleteEndpoint(ws.workspaceId, again.webhookId)).toBe(true);
    expect(await countOf(ws.workspaceId)).toBe(2);

    expect((await deleteEndpoint(ws.key, first)).status).toBe(200);
    expect(await countOf(ws.workspaceId)).toBe(1);
    // Deleting it again, or an endpoint that never existed: 404, the count stays.
    expect((await deleteEndpoint(ws.key, first)).status).toBe(404);
    expect((await deleteEndpoint(ws.key, 'wh_doesnotexist')).status).toBe(404);
    expect(await countOf(ws.workspaceId)).toBe(1);
    expect((await deleteEndpoint(ws.key, second)).status).toBe(200);
    expect(await countOf(ws.workspaceId)).toBe(0);
    expect(await endpointsOf(ws.workspaceId)).toBe(0);
  });

  it('counts the endpoints a workspace from before the count has when it gets another, never fewer', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    await createEndpoint(ws.key, '/old-1');
    await createEndpoint(ws.key, '/old-2');
    await forgetCount(ws.workspaceId);
    await createEndpoint(ws.key, '/old-3');
    expect(await countOf(ws.workspaceId)).toBe(3);

    // Two creates that both listed the same 3 endpoints before either wrote: the first makes the
    // count, the second adds to it (its listing is not used again).
    await forgetCount(ws.workspaceId);
    await Promise.all([
      deps().webhooks.createEndpoint(offEndpoint(ws.accountId, ws.workspaceId), 3),
      deps().webhooks.createEndpoint(offEndpoint(ws.accountId, ws.workspaceId), 3),
    ]);
    expect(await endpointsOf(ws.workspaceId)).toBe(5);
    expect(await countOf(ws.workspaceId)).toBe(5);
  });

  it('a delete in a workspace from before the count leaves it uncounted (unknown, events kept)', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const id = await createEndpoint(ws.key, '/uncounted');
    await forgetCount(ws.workspaceId);
    expect((await deleteEndpoint(ws.key, id)).status).toBe(200);
    expect(await countOf(ws.workspaceId)).toBeNull();
    expect(await endpointsOf(ws.workspaceId)).toBe(0);
  });

  it('the dispatcher’s count of 0 is refused when an endpoint was created after its read found none', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    await forgetCount(ws.workspaceId);
    const { webhooks } = deps();
    expect(await webhooks.listEndpoints(ws.workspaceId)).toEqual([]);
    await webhooks.createEndpoint(offEndpoint(ws.accountId, ws.workspaceId), 0);
    expect(await webhooks.countNoEndpoints(ws.workspaceId)).toBe(false);
    expect(await countOf(ws.workspaceId)).toBe(1);
  });
});

describe('events and endpoints', () => {
  it('a workspace with no endpoint keeps no event; one from before the count keeps them until the dispatcher counts it', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const none = await publishNow(rt, ws.key, ws.channels.x, `no endpoint ${Date.now()}`);
    expect(none.status).toBe('published');
    expect(await eventsOfPost(rt, none.id)).toEqual([]);

    await forgetCount(ws.workspaceId);
    const old = await publishNow(rt, ws.key, ws.channels.x, `before the count ${Date.now()}`);
    expect((await eventsOfPost(rt, old.id)).map((e) => e.type)).toEqual(['post.published']);
    // The dispatcher finds no endpoint for it: the workspace is counted (0) and the event leaves the outbox.
    await expect.poll(() => countOf(ws.workspaceId), { timeout: 10_000 }).toBe(0);
    await expect
      .poll(async () => (await eventsOfPost(rt, old.id)).some((e) => e.pending), { timeout: 10_000 })
      .toBe(false);
    const later = await publishNow(rt, ws.key, ws.channels.x, `counted ${Date.now()}`);
    expect(later.status).toBe('published');
    expect(await eventsOfPost(rt, later.id)).toEqual([]);
  });

  it('a channel that needs reconnecting in a workspace with no endpoint is marked; neither event is kept', async () => {
    const ws = await freshWorkspace(rt, ['bluesky']);
    const post = await publishNow(rt, ws.key, ws.channels.bluesky, `reconnect ${Date.now()} sim:reconnect`);
    expect(post.status).toBe('failed');
    const channel = await rt.api(`/channels/${ws.channels.bluesky}`, { key: ws.key });
    expect(channel.body.status).toBe('needs_reconnect');
    expect(await eventsOfPost(rt, post.id)).toEqual([]);
  });

  it('an endpoint created after an event happened does not receive it', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const before = await publishNow(rt, ws.key, ws.channels.x, `before the endpoint ${Date.now()}`);
    await createEndpoint(ws.key, '/after');
    const after = await publishNow(rt, ws.key, ws.channels.x, `after the endpoint ${Date.now()}`);
    await receiver.waitFor(
      (all) => all.some((r) => r.path === '/after' && r.body?.data?.post?.id === after.id),
      15_000,
      'the event of the post published after the endpoint',
    );
    expect(receiver.received.filter((r) => r.body?.data?.post?.id === before.id)).toEqual([]);
  });

  /** A scripted X whose publish waits at `held` before it answers (the job has read its channels and the count). */
  const heldX = (held: Gate) => {
    let sends = 0;
    const client: NetworkClient = {
      platform: 'x',
      consistencyWindowSeconds: 0,
      async publish(): Promise<RemoteBlock> {
        sends++;
        await held.hold();
        return {
          remoteId: `xo${Date.now()}${sends}`,
          remoteUrl: `https://x.example/status/o${sends}`,
          meta: {},
        };
      },
      edit: async () => undefined,
      delete: async () => undefined,
    };
    return client;
  };

  /** A live draft on X made publishing, with no job queued: the test runs the engine itself. */
  const publishingDraft = async (key: string, channelId: string) => {
    const created = await rt.api('/posts', {
      method: 'POST',
      key,
      body: { intent: 'draft', channels: [{ channelId, blocks: [{ content: `race ${Date.now()}` }] }] },
    });
    expect(created.status, created.text).toBe(201);
    const postId = created.body.id as string;
    await mutatePost(deps(), postId, (post) => ({ next: startRound(post, new Date()) }));
    return postId;
  };

  it('an endpoint created between the job’s read and its commit gets the event', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const held = gate();
    useClient(heldX(held));
    const postId = await publishingDraft(ws.key, ws.channels.x);
    const job = new PublishingEngine(deps()).handle({ postId, kind: 'run', round: 1 });
    await held.reached;
    // The job read a count of 0; the endpoint is created before it commits.
    await createEndpoint(ws.key, '/race-create');
    held.release();
    await job;
    const post = await deps().posts.get(postId);
    expect(post?.status).toBe('published');
    expect((await eventsOfPost(rt, postId)).map((e) => e.type)).toEqual(['post.published']);
    await receiver.waitFor(
      (all) => all.some((r) => r.path === '/race-create' && r.body?.data?.post?.id === postId),
      15_000,
      'the event of the race',
    );
    expect(receiver.received.filter((r) => r.path === '/race-create')).toHaveLength(1);
  });

  it('an endpoint deleted between the job’s read and its commit is harmless: the event is kept and leaves the outbox undelivered', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const id = await createEndpoint(ws.key, '/race-delete');
    const held = gate();
    useClient(heldX(held));
    const postId = await publishingDraft(ws.key, ws.channels.x);
    const job = new PublishingEngine(deps()).handle({ postId, kind: 'run', round: 1 });
    await held.reached;
    expect((await deleteEndpoint(ws.key, id)).status).toBe(200);
    held.release();
    await job;
    expect((await deps().posts.get(postId))?.status).toBe('published');
    expect((await eventsOfPost(rt, postId)).map((e) => e.type)).toEqual(['post.published']);
    await expect
      .poll(async () => (await eventsOfPost(rt, postId)).some((e) => e.pending), { timeout: 10_000 })
      .toBe(false);
    expect(receiver.received.filter((r) => r.path === '/race-delete')).toEqual([]);
    expect(await countOf(ws.workspaceId)).toBe(0);
  });
});

describe('recounting a workspace’s endpoints (the operator’s repair)', () => {
  /** An endpoint written as the version before the count wrote it: without the count. */
  const uncounted = async (accountId: string, workspaceId: string) => {
    const { table } = deps();
    await table.doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: endpointToItem(offEndpoint(accountId, workspaceId)),
      }),
    );
  };

  it('sets the count to the endpoints: one never counted, one too low, one too high, and every workspace with an endpoint', async () => {
    const { webhooks } = deps();
    const never = await freshWorkspace(rt, ['x']);
    await forgetCount(never.workspaceId);
    await uncounted(never.accountId, never.workspaceId);
    await uncounted(never.accountId, never.workspaceId);
    const low = await freshWorkspace(rt, ['x']);
    await uncounted(low.accountId, low.workspaceId);
    const high = await freshWorkspace(rt, ['x']);
    await forgetCount(high.workspaceId);
    // A create whose list of existing endpoints raced a delete: the count starts one too high.
    await webhooks.createEndpoint(offEndpoint(high.accountId, high.workspaceId), 2);
    expect([
      await countOf(never.workspaceId),
      await countOf(low.workspaceId),
      await countOf(high.workspaceId),
    ]).toEqual([null, 0, 3]);

    const all = await recountWebhookEndpoints(deps(), {});
    const ours = all.filter((r) => [never, low, high].some((w) => w.workspaceId === r.workspaceId));
    expect(ours.sort((a, b) => a.workspaceId.localeCompare(b.workspaceId))).toEqual(
      [
        { workspaceId: never.workspaceId, before: null, after: 2 },
        { workspaceId: low.workspaceId, before: 0, after: 1 },
        { workspaceId: high.workspaceId, before: 3, after: 1 },
      ].sort((a, b) => a.workspaceId.localeCompare(b.workspaceId)),
    );
    expect([
      await countOf(never.workspaceId),
      await countOf(low.workspaceId),
      await countOf(high.workspaceId),
    ]).toEqual([2, 1, 1]);
    // Counted right now: the routes keep it so, and a recount changes nothing.
    const id = await createEndpoint(low.key, '/recounted');
    expect(await countOf(low.workspaceId)).toBe(2);
    expect((await deleteEndpoint(low.key, id)).status).toBe(200);
    expect(await webhooks.recountEndpoints(low.workspaceId)).toEqual({ before: 1, after: 1 });
  });

  it('reads again when an endpoint is deleted before its list and another created before its write (the count then looks unchanged)', async () => {
    const { table, webhooks } = deps();
    const ws = await freshWorkspace(rt, ['x']);
    await uncounted(ws.accountId, ws.workspaceId);
    const doomed = offEndpoint(ws.accountId, ws.workspaceId);
    await webhooks.createEndpoint(doomed, 1);
    expect(await countOf(ws.workspaceId)).toBe(1);
    // The recount reads the count (1), then the routes delete an endpoint (0) before it lists the
    // endpoints, and create another (1 again) before it writes: the count it read is back.
    let lists = 0;
    let writes = 0;
    const doc = new Proxy(table.doc, {
      get(target, prop, receiver) {
        if (prop !== 'send') return Reflect.get(target, prop, receiver);
        return async (command: { input: { Item?: { SK?: string }; TableName?: string } }) => {
          if (command instanceof QueryCommand && ++lists === 1) {
            expect(await webhooks.deleteEndpoint(ws.workspaceId, doomed.webhookId)).toBe(true);
          }
          if (command instanceof PutCommand && command.input.Item?.SK === 'WEBHOOKCOUNT' && ++writes === 1) {
            await webhooks.createEndpoint(offEndpoint(ws.accountId, ws.workspaceId), 0);
          }
          return target.send(command as never);
        };
      },
    });
    const recount = await new DynamoWebhookStore({ ...table, doc }).recountEndpoints(ws.workspaceId);
    // The first write was refused (the count had changed twice, though it read the same) and the
    // recount read everything again.
    expect(writes).toBe(2);
    const endpoints = await endpointsOf(ws.workspaceId);
    expect(endpoints).toBe(2);
    expect(recount).toEqual({ before: 1, after: 2 });
    expect(await countOf(ws.workspaceId)).toBe(2);
  });
});
