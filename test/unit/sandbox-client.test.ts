import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SandboxNetworkClient, sandboxBlockForKey } from '../../functions/platforms/sandbox/client.ts';
import {
  NetworkError,
  type NetworkErrorKind,
  type PublishBlockInput,
  type RemoteBlock,
} from '../../functions/ports/network-client.ts';

const credentials = { accessToken: 'sk_test_token', remoteAccountId: 'acct' };

const input = (overrides: Partial<PublishBlockInput> = {}): PublishBlockInput => ({
  credentials,
  content: 'hello',
  media: [],
  title: null,
  postType: null,
  options: {},
  parent: null,
  idempotencyKey: 'post_1:ch_1:0',
  round: 1,
  ...overrides,
});

const lookupInput = (idempotencyKey: string, content: string) => ({
  credentials,
  idempotencyKey,
  content,
  parent: null,
  since: new Date(0),
});

/** The NetworkError a call throws (fails the test when it does not throw one). */
const caught = async (call: () => Promise<unknown>): Promise<NetworkError> => {
  try {
    await call();
  } catch (error) {
    expect(error).toBeInstanceOf(NetworkError);
    return error as NetworkError;
  }
  throw new Error('expected a NetworkError');
};

const expectKind = async (call: () => Promise<unknown>, kind: NetworkErrorKind) => {
  const error = await caught(call);
  expect(error.kind).toBe(kind);
  return error;
};

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('SandboxNetworkClient.publish', () => {
  it('returns a sandbox block with a random id and a sandbox URL', async () => {
    const client = new SandboxNetworkClient('threads');
    const a = await client.publish(input());
    const b = await client.publish(input({ idempotencyKey: 'other' }));
    expect(a.remoteId).toMatch(/^sandbox_threads_[0-9a-f]{20}$/);
    expect(a.remoteUrl).toBe(`https://sandbox.herald.invalid/threads/${a.remoteId}`);
    expect(a.meta).toEqual({});
    expect(b.remoteId).not.toBe(a.remoteId);
  });

  it('uses neither the network nor timers', async () => {
    const fetchSpy = vi.fn(() => Promise.reject(new Error('no network in the sandbox')));
    vi.stubGlobal('fetch', fetchSpy);
    vi.useFakeTimers();
    const client = new SandboxNetworkClient('facebook');
    // With fake timers a timer-based wait would never resolve and this test would time out.
    const block = await client.publish(input());
    await client.edit({ credentials, block, content: 'changed' });
    expect(await client.lookup(lookupInput('post_1:ch_1:0', 'hello'))).toEqual(block);
    await client.delete({ credentials, block });
    await expectKind(() => client.publish(input({ content: 'sim:flaky' })), 'transient');
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sim:fail is permanent on every round', async () => {
    const client = new SandboxNetworkClient('threads');
    for (const round of [1, 2, 3]) {
      const error = await expectKind(
        () => client.publish(input({ content: 'x sim:fail', round })),
        'permanent',
      );
      expect(error.message).toContain('sim:fail');
    }
  });

  it('sim:fail-once is permanent on round 1 only', async () => {
    const client = new SandboxNetworkClient('threads');
    await expectKind(() => client.publish(input({ content: 'sim:fail-once', round: 1 })), 'permanent');
    // Still round 1 (no publish retry yet): still refused; it is the round that decides.
    await expectKind(() => client.publish(input({ content: 'sim:fail-once', round: 1 })), 'permanent');
    const block = await client.publish(input({ content: 'sim:fail-once', round: 2 }));
    expect(block.remoteId).toMatch(/^sandbox_threads_/);
    // A fresh instance decides the same way: no state involved.
    await expect(
      new SandboxNetworkClient('threads').publish(input({ content: 'sim:fail-once', round: 2 })),
    ).resolves.toBeTruthy();
  });

  it('sim:flaky fails once per idempotencyKey on round 1, succeeds on the next call or round > 1', async () => {
    const client = new SandboxNetworkClient('threads');
    const error = await expectKind(() => client.publish(input({ content: 'sim:flaky' })), 'transient');
    expect(error.details).toEqual({ retryAfterSeconds: 1 });
    await expect(client.publish(input({ content: 'sim:flaky' }))).resolves.toMatchObject({
      remoteId: expect.stringMatching(/^sandbox_threads_/),
    });
    // Another key fails once on its own.
    await expectKind(
      () => client.publish(input({ content: 'sim:flaky', idempotencyKey: 'k2' })),
      'transient',
    );
    // A fresh instance on round 1 fails once more; on round 2 it succeeds straight away.
    await expectKind(
      () => new SandboxNetworkClient('threads').publish(input({ content: 'sim:flaky' })),
      'transient',
    );
    await expect(
      new SandboxNetworkClient('threads').publish(input({ content: 'sim:flaky', round: 2 })),
    ).resolves.toBeTruthy();
  });

  it('sim:reconnect asks for a reconnect on every round', async () => {
    const client = new SandboxNetworkClient('reddit');
    await expectKind(() => client.publish(input({ content: 'sim:reconnect' })), 'reconnect');
    await expectKind(() => client.publish(input({ content: 'sim:reconnect', round: 4 })), 'reconnect');
  });

  it('sim:timeout is transient with outcomeUnknown, and lookup finds the accepted block from any instance', async () => {
    const key = 'post_9:ch_2:1';
    const client = new SandboxNetworkClient('pinterest');
    const error = await expectKind(
      () => client.publish(input({ content: 'a sim:timeout', idempotencyKey: key })),
      'transient',
    );
    expect(error.details).toEqual({ outcomeUnknown: true });
    // Every send times out: the sandbox never answers a sim:timeout publish.
    await expectKind(
      () => client.publish(input({ content: 'a sim:timeout', idempotencyKey: key, round: 2 })),
      'transient',
    );

    const expectedId = `sandbox_pinterest_${createHash('sha256').update(key).digest('hex').slice(0, 20)}`;
    const expected: RemoteBlock = {
      remoteId: expectedId,
      remoteUrl: `https://sandbox.herald.invalid/pinterest/${expectedId}`,
      meta: {},
    };
    expect(await client.lookup(lookupInput(key, 'a sim:timeout'))).toEqual(expected);
    // Same instance, even without the content (from the in-memory map).
    expect(await client.lookup(lookupInput(key, ''))).toEqual(expected);
    // Another instance, from the content and key alone.
    expect(await new SandboxNetworkClient('pinterest').lookup(lookupInput(key, 'a sim:timeout'))).toEqual(
      expected,
    );
    expect(sandboxBlockForKey('pinterest', key)).toEqual(expected);
  });

  it('lookup returns null for a block the sandbox never accepted, and the block it published', async () => {
    const client = new SandboxNetworkClient('threads');
    expect(await client.lookup(lookupInput('never', 'hello'))).toBeNull();
    await expectKind(
      () => client.publish(input({ content: 'sim:fail', idempotencyKey: 'refused' })),
      'permanent',
    );
    expect(await client.lookup(lookupInput('refused', 'sim:fail'))).toBeNull();
    const block = await client.publish(input({ idempotencyKey: 'ok' }));
    expect(await client.lookup(lookupInput('ok', 'hello'))).toEqual(block);
  });

  it('keeps its memory bounded', async () => {
    const client = new SandboxNetworkClient('threads', { memoryLimit: 2 });
    for (const key of ['k1', 'k2', 'k3']) {
      await expectKind(
        () => client.publish(input({ content: 'sim:flaky', idempotencyKey: key })),
        'transient',
      );
    }
    // k1 was forgotten (oldest), k3 is remembered.
    await expectKind(
      () => client.publish(input({ content: 'sim:flaky', idempotencyKey: 'k1' })),
      'transient',
    );
    await expect(client.publish(input({ content: 'sim:flaky', idempotencyKey: 'k3' }))).resolves.toBeTruthy();
  });
});

describe('SandboxNetworkClient.edit and delete follow the platform rules', () => {
  it('edit is permanent on a network without remote edit (threads)', async () => {
    const client = new SandboxNetworkClient('threads');
    const block = await client.publish(input());
    const error = await expectKind(() => client.edit({ credentials, block, content: 'new' }), 'permanent');
    expect(error.message).toMatch(/editing/);
  });

  it('edit of the text is allowed on facebook, title is not', async () => {
    const client = new SandboxNetworkClient('facebook');
    const block = await client.publish(input());
    await expect(client.edit({ credentials, block, content: 'new words' })).resolves.toBeUndefined();
    await expectKind(() => client.edit({ credentials, block, content: 'new', title: 'T' }), 'permanent');
    await expectKind(
      () => client.edit({ credentials, block, content: 'new', options: { link: 'https://a.b' } }),
      'permanent',
    );
    // A null title / empty options are "nothing to change", not a refusal.
    await expect(
      client.edit({ credentials, block, content: 'n', title: null, options: {} }),
    ).resolves.toBeUndefined();
  });

  it('edit of text, title and options is allowed on youtube', async () => {
    const client = new SandboxNetworkClient('youtube');
    const block = await client.publish(input({ title: 'T' }));
    await expect(
      client.edit({ credentials, block, content: 'd', title: 'New title', options: { privacy: 'unlisted' } }),
    ).resolves.toBeUndefined();
  });

  it('edited text obeys the sim tokens', async () => {
    const client = new SandboxNetworkClient('facebook');
    const block = await client.publish(input());
    await expectKind(() => client.edit({ credentials, block, content: 'sim:fail' }), 'permanent');
    await expectKind(() => client.edit({ credentials, block, content: 'sim:reconnect' }), 'reconnect');
    await expectKind(() => client.edit({ credentials, block, content: 'sim:fail-once' }), 'permanent');
    await expect(client.edit({ credentials, block, content: 'sim:fail-once' })).resolves.toBeUndefined();
    await expectKind(() => client.edit({ credentials, block, content: 'sim:flaky' }), 'transient');
    await expect(client.edit({ credentials, block, content: 'sim:flaky' })).resolves.toBeUndefined();
    const timeout = await expectKind(
      () => client.edit({ credentials, block, content: 'sim:timeout' }),
      'transient',
    );
    expect(timeout.details.outcomeUnknown).toBe(true);
  });

  it('refuses to edit or delete a block that is not a sandbox block of this network', async () => {
    const client = new SandboxNetworkClient('facebook');
    const foreign = { remoteId: 'sandbox_youtube_abc', remoteUrl: 'https://x', meta: {} };
    await expectKind(() => client.edit({ credentials, block: foreign, content: 'x' }), 'permanent');
    await expectKind(() => client.delete({ credentials, block: foreign }), 'permanent');
  });

  it('delete is allowed on threads and permanent on instagram and tiktok', async () => {
    const threads = new SandboxNetworkClient('threads');
    const block = await threads.publish(input({ idempotencyKey: 'del' }));
    await expect(threads.delete({ credentials, block })).resolves.toBeUndefined();
    expect(await threads.lookup(lookupInput('del', 'hello'))).toBeNull();
    for (const platform of ['instagram', 'tiktok'] as const) {
      const client = new SandboxNetworkClient(platform);
      const published = await client.publish(input());
      await expectKind(() => client.delete({ credentials, block: published }), 'permanent');
    }
  });
});
