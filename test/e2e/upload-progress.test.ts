import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutatePost, PublishingEngine, startRound } from '../../functions/core/publishing/engine.ts';
import {
  type LookupBlockInput,
  type NetworkClient,
  NetworkError,
  type PublishBlockInput,
} from '../../functions/ports/network-client.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { liveXClientPerTest } from '../support/interleave.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * A resumable upload that spans worker invocations: the network client saves its session and
 * offset with the block's claim (`input.progress`), and the next message continues it. Driven
 * through the local runtime's own queue and worker, with a scripted client in place of X's.
 */

let rt: TestRuntime;
const LEASE_SECONDS = 3;

beforeAll(async () => {
  rt = await startTestRuntime({
    env: {
      NETWORK_TIMEOUT_MS: '1000',
      PUBLISH_RETRY_BASE_SECONDS: '0.2',
      PUBLISH_LEASE_SECONDS: String(LEASE_SECONDS),
    },
  });
});
afterAll(async () => {
  await rt?.destroy();
});

const deps = () => rt.container.deps;
const useClient = liveXClientPerTest(() => rt);

/** A scripted network that uploads one chunk per call, in `chunks` chunks, to one session per video. */
const resumableNetwork = (chunks: number, options: { hangAfterFirstChunk?: boolean } = {}) => {
  const sessions: string[] = [];
  const calls: { saved: Record<string, unknown> | null; deadline: Date | undefined }[] = [];
  const lookups: LookupBlockInput[] = [];
  const completed = new Set<string>();
  let hung = false;
  const client: NetworkClient = {
    platform: 'x',
    consistencyWindowSeconds: 0,
    async publish(input: PublishBlockInput) {
      const progress = input.progress;
      if (!progress) throw new Error('no progress port');
      calls.push({ saved: progress.saved, deadline: input.deadline });
      let state = progress.saved as { session: string; offset: number } | null;
      if (!state) {
        const session = `session-${sessions.length + 1}`;
        sessions.push(session);
        state = { session, offset: 0 };
        await progress.save(state);
      }
      state = { ...state, offset: state.offset + 1 };
      await progress.save(state);
      if (options.hangAfterFirstChunk && !hung) {
        // The worker dies here: its call never returns.
        hung = true;
        return new Promise(() => undefined);
      }
      if (state.offset < chunks) {
        throw new NetworkError('transient', 'Upload continues in the next invocation.', {
          continueLater: true,
        });
      }
      completed.add(state.session);
      return { remoteId: state.session, remoteUrl: `https://video.example/${state.session}`, meta: {} };
    },
    async lookup(input) {
      lookups.push(input);
      const saved = input.saved as { session: string } | null | undefined;
      return saved && completed.has(saved.session)
        ? { remoteId: saved.session, remoteUrl: `https://video.example/${saved.session}`, meta: {} }
        : null;
    },
    edit: async () => undefined,
    delete: async () => undefined,
  };
  return { client, sessions, calls, lookups };
};

const createPost = async (intent: 'now' | 'draft') => {
  const ws = await freshWorkspace(rt, ['x']);
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: { intent, channels: [{ channelId: ws.channels.x, blocks: [{ content: `video ${Date.now()}` }] }] },
  });
  expect(created.status, created.text).toBe(201);
  return { ws, postId: created.body.id as string };
};

describe('uploads that span worker invocations', () => {
  it('continues a saved upload in the next message, one session, without spending attempts', async () => {
    const network = resumableNetwork(4);
    useClient(network.client);
    const { ws, postId } = await createPost('now');
    const post = await waitForPost(rt, postId, ws.key);
    expect(post.status).toBe('published');
    expect(post.channels[0].blocks[0].remoteUrl).toBe('https://video.example/session-1');
    expect(network.sessions).toEqual(['session-1']);
    // Each call began where the previous one saved its place.
    expect(network.calls.map((c) => (c.saved as { offset: number } | null)?.offset ?? null)).toEqual([
      null,
      1,
      2,
      3,
    ]);
    // The worker handed its invocation's end to every call.
    for (const call of network.calls) expect(call.deadline).toBeInstanceOf(Date);
    const stored = await deps().posts.get(postId);
    expect(stored?.channels[0]?.attempts ?? 0).toBe(0);
  });

  it('after a worker dies mid-upload, the next one looks up with the saved session, then resumes it', async () => {
    const network = resumableNetwork(2, { hangAfterFirstChunk: true });
    useClient(network.client);
    const { ws, postId } = await createPost('draft');
    const d = deps();
    await mutatePost(d, postId, (post) => ({ next: startRound(post, new Date()) }));
    // Only this worker runs the round at first; it dies after saving its first chunk.
    void new PublishingEngine(d).handle({ postId, kind: 'run', round: 1 });
    const until = Date.now() + 10_000;
    while (network.calls.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    // After the lease (extended by each save), a healthy worker takes over.
    await new Promise((r) => setTimeout(r, LEASE_SECONDS * 1000 + 500));
    await new PublishingEngine(d).handle({ postId, kind: 'run', round: 1 });
    const post = await waitForPost(rt, postId, ws.key);
    expect(post.status).toBe('published');
    expect(network.sessions).toEqual(['session-1']);
    // The lookup was given the saved session (not finished, so not found), then the upload resumed.
    expect(network.lookups[0]?.saved).toEqual({ session: 'session-1', offset: 1 });
    expect(network.calls.map((c) => (c.saved as { offset: number } | null)?.offset ?? null)).toEqual([
      null,
      1,
    ]);
  });

  it('a worker whose claim was taken over stops at its next save', async () => {
    const { postId } = await createPost('draft');
    const d = deps();
    const claim = {
      postId,
      channelId: 'ch_x',
      block: 0,
      state: 'sending' as const,
      owner: 'first',
      leaseUntil: new Date(Date.now() - 1000).toISOString(),
      since: new Date().toISOString(),
    };
    const acquired = await d.claims.acquire(claim);
    expect(acquired.acquired).toBe(true);
    expect(
      await d.claims.saveProgress(claim, { offset: 1 }, new Date(Date.now() + 60_000).toISOString()),
    ).toBe(true);
    const second = { ...claim, owner: 'second', leaseUntil: new Date(Date.now() + 60_000).toISOString() };
    expect(
      await d.claims.takeOver({ ...claim, leaseUntil: new Date(Date.now() + 60_000).toISOString() }, second),
    ).toBe(false);
    // The stored lease is the one the save extended: read it back and take it over as a new worker would.
    const current = await d.claims.acquire({ ...claim, owner: 'probe' });
    expect(current.acquired).toBe(false);
    if (current.acquired) return;
    expect(current.current.progress).toEqual({ offset: 1 });
    expect(await d.claims.takeOver(current.current, { ...current.current, owner: 'second' })).toBe(true);
    // The first owner's next save is refused: it must stop sending.
    expect(
      await d.claims.saveProgress(claim, { offset: 2 }, new Date(Date.now() + 60_000).toISOString()),
    ).toBe(false);
  });
});
