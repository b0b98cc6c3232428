import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoPostStore } from '../../functions/adapters/aws/dynamo/posts.ts';
import { mutatePost, PublishingEngine, startRound } from '../../functions/core/publishing/engine.ts';
import type { PostRecord } from '../../functions/domain/post.ts';
import type { ChannelStore } from '../../functions/ports/channels.ts';
import type { PostStore } from '../../functions/ports/posts.ts';
import { type JobReads, jobReadsOf, runJob } from '../../functions/ports/publishing.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * A `run` job whose message names its post's workspace and channels reads the post, those channels
 * and the workspace's endpoint count in one request, instead of the post first and the rest after.
 * A message that names too little (or nothing, or something malformed) costs the second read only.
 */

let rt: TestRuntime;

beforeAll(async () => {
  rt = await sharedTestRuntime();
});
afterAll(async () => {
  await rt?.destroy();
});

const deps = () => rt.container.deps;

/** The table's client, counting the requests sent through it. */
const counting = () => {
  const { table } = deps();
  const sent: string[] = [];
  const doc = new Proxy(table.doc, {
    get(target, prop, receiver) {
      if (prop === 'send')
        return (command: { constructor: { name: string } }) => {
          sent.push(command.constructor.name);
          return target.send(command as never);
        };
      return Reflect.get(target, prop, receiver);
    },
  }) as DynamoDBDocumentClient;
  return { store: new DynamoPostStore({ ...table, doc }), sent };
};

/** A live draft on X and Bluesky (in sandbox mode: its sends go to the sandbox), made publishing. */
const publishingDraft = async () => {
  const ws = await freshWorkspace(rt, ['x', 'bluesky'], 'test');
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: {
      intent: 'draft',
      channels: (['x', 'bluesky'] as const).map((p) => ({
        channelId: ws.channels[p],
        blocks: [{ content: `reads ${p}` }],
      })),
    },
  });
  expect(created.status, created.text).toBe(201);
  const postId = created.body.id as string;
  const { post } = await mutatePost(deps(), postId, (current) => ({ next: startRound(current, new Date()) }));
  return { ws, postId, post };
};

/** An engine whose post and channel stores record the reads it makes. */
const recordingEngine = () => {
  const posts = deps().posts;
  const channels = deps().channels;
  const calls = { get: 0, getForJob: 0, channels: [] as string[][] };
  const recordingPosts: PostStore = {
    ...posts,
    create: (...args) => posts.create(...args),
    replace: (...args) => posts.replace(...args),
    delete: (post) => posts.delete(post),
    list: (query) => posts.list(query),
    get: (postId) => {
      calls.get++;
      return posts.get(postId);
    },
    getForJob: (postId, reads) => {
      calls.getForJob++;
      return posts.getForJob(postId, reads);
    },
  };
  const recordingChannels: ChannelStore = {
    ...channels,
    getChannelsForJob: (workspaceId, channelIds) => {
      calls.channels.push(channelIds);
      return channels.getChannelsForJob(workspaceId, channelIds);
    },
  };
  const engine = new PublishingEngine({ ...deps(), posts: recordingPosts, channels: recordingChannels });
  return { engine, calls };
};

describe('the post store’s read for a job', () => {
  it('reads the post, the named channels and the endpoint count in one request, as get and getChannelsForJob read them', async () => {
    const { ws, postId } = await publishingDraft();
    const { store, sent } = counting();
    const reads: JobReads = {
      workspaceId: ws.workspaceId,
      channelIds: [ws.channels.x, ws.channels.bluesky, 'ch_gone', ws.channels.x],
    };
    const read = await store.getForJob(postId, reads);
    expect(sent).toEqual(['BatchGetCommand']);
    expect(read.post).toEqual(await deps().posts.get(postId));
    const separately = await deps().channels.getChannelsForJob(ws.workspaceId, reads.channelIds);
    expect(read.channels).toEqual(separately.channels);
    expect([...read.channels.keys()].sort()).toEqual([ws.channels.x, ws.channels.bluesky].sort());
    expect(read.endpoints).toBe(0);
    expect(read.endpoints).toBe(separately.endpoints);
  });

  it('reads a post whose texts overflowed into chunks whole, and answers null for a post that is gone', async () => {
    const { ws, post } = await publishingDraft();
    // Two blocks of 200 KB each: the main item would pass 300 KB, so the texts move to chunks.
    const long = (c: string) => c.repeat(200 * 1024);
    const big: PostRecord = {
      ...post,
      postId: `${post.postId}big`,
      version: 1,
      channels: post.channels.map((channel, i) => ({
        ...channel,
        blocks: [
          {
            ...(channel.blocks[0] as PostRecord['channels'][number]['blocks'][number]),
            content: long(`${i}`),
          },
        ],
      })),
    };
    await deps().posts.create(big, {
      accountId: post.accountId,
      period: '2026-11',
      limit: null,
      count: false,
    });
    const { store } = counting();
    const reads = { workspaceId: ws.workspaceId, channelIds: [ws.channels.x] };
    const read = await store.getForJob(big.postId, reads);
    expect(read.post?.textChunks).toBeGreaterThan(0);
    expect(read.post?.channels.map((c) => c.blocks[0]?.content)).toEqual([long('0'), long('1')]);
    expect(read.channels.has(ws.channels.x)).toBe(true);

    const gone = await store.getForJob('post_neverwas', reads);
    expect(gone.post).toBeNull();
    expect(gone.channels.has(ws.channels.x)).toBe(true);
  });
});

describe('a run job that names its channels', () => {
  it('reads its post and channels in one request, and publishes', async () => {
    const { postId, post } = await publishingDraft();
    const job = runJob(post);
    expect(job.reads?.channelIds.sort()).toEqual(post.channels.map((c) => c.channelId).sort());
    const { engine, calls } = recordingEngine();
    await engine.handle(job);
    expect(calls).toEqual({ get: 0, getForJob: 1, channels: [] });
    expect((await deps().posts.get(postId))?.status).toBe('published');
  });

  it('reads the channels after the post when its message does not name every channel left, or names another workspace', async () => {
    const first = await publishingDraft();
    const { engine, calls } = recordingEngine();
    const missing = runJob(first.post);
    await engine.handle({
      ...missing,
      reads: { ...(missing.reads as JobReads), channelIds: [first.ws.channels.x] },
    });
    expect(calls.getForJob).toBe(1);
    expect(calls.channels.map((ids) => [...ids].sort())).toEqual([
      [first.ws.channels.x, first.ws.channels.bluesky].sort(),
    ]);
    expect((await deps().posts.get(first.postId))?.status).toBe('published');

    const second = await publishingDraft();
    const other = runJob(second.post);
    await engine.handle({
      ...other,
      reads: { ...(other.reads as JobReads), workspaceId: first.ws.workspaceId },
    });
    expect(calls.channels).toHaveLength(2);
    expect((await deps().posts.get(second.postId))?.status).toBe('published');
  });

  it('without names, reads the post and then its channels, as before', async () => {
    const { postId } = await publishingDraft();
    const { engine, calls } = recordingEngine();
    await engine.handle({ postId, kind: 'run', round: 1 });
    expect(calls.get).toBe(1);
    expect(calls.getForJob).toBe(0);
    expect(calls.channels).toHaveLength(1);
    expect((await deps().posts.get(postId))?.status).toBe('published');
  });
});

describe('the names a message carries', () => {
  it('are only the channels left to publish, and a malformed set is left out', () => {
    const job = runJob({
      postId: 'post_1',
      workspaceId: 'ws_1',
      round: 2,
      channels: [
        { channelId: 'ch_a', status: 'published' },
        { channelId: 'ch_b', status: 'publishing' },
        { channelId: 'ch_c', status: 'failed' },
        { channelId: 'ch_d', status: 'publishing' },
      ],
    });
    expect(job).toEqual({
      postId: 'post_1',
      kind: 'run',
      round: 2,
      reads: { workspaceId: 'ws_1', channelIds: ['ch_b', 'ch_d'] },
    });
    expect(jobReadsOf(job.reads)).toEqual(job.reads);
    for (const bad of [
      null,
      'ws_1',
      { workspaceId: 1, channelIds: [] },
      { workspaceId: 'ws_1' },
      { workspaceId: 'ws_1', channelIds: ['a', 2] },
    ]) {
      expect(jobReadsOf(bad)).toBeUndefined();
    }
  });
});
