import { createHash, randomBytes } from 'node:crypto';
import { getPlatform } from '../../domain/platforms/catalog.ts';
import type { Platform, PlatformId } from '../../domain/platforms/types.ts';
import {
  type CommentInput,
  type CommentsInput,
  type CommentsPage,
  type DeleteBlockInput,
  type DeleteReplyInput,
  type EditBlockInput,
  LOST_ANSWER_TOKENS,
  type LookupBlockInput,
  type LookupReplyInput,
  type MetricsInput,
  type MetricsReading,
  type NetworkClient,
  NetworkError,
  type PublishBlockInput,
  type RemoteBlock,
  type RemoteComment,
  type ReplyInput,
  simTokenOf,
} from '../../ports/network-client.ts';
import { sandboxComments, sandboxReply } from './comments.ts';
import { simulatedMetrics } from './metrics.ts';

/**
 * The network client used for test-key (`sk_test_`) posts: nothing leaves the process, no timer
 * runs. Every publish succeeds unless the content carries a sim token, decided from `input.round`
 * so that it holds across processes and Lambda instances:
 *
 * | token           | publish                                                                        |
 * |-----------------|--------------------------------------------------------------------------------|
 * | `sim:fail`      | permanent error, every round                                                   |
 * | `sim:fail-once` | permanent error when `round === 1`, success from round 2 (a publish retry)     |
 * | `sim:flaky`     | transient error (`retryAfterSeconds: 1`) when `round === 1`, success when `round > 1` OR when this process already failed that idempotencyKey once (so the engine's own automatic retry succeeds too; the memory is a bounded in-process Set, a fresh instance fails once more) |
 * | `sim:reconnect` | reconnect error, every round                                                   |
 * | `sim:timeout`, `sim:reset`, `sim:bad-gateway` | transient error with `outcomeUnknown: true`, every time; the sandbox counts the block as accepted, and `lookup` finds it |
 *
 * The block a lost-answer publish (`sim:timeout`, `sim:reset`, `sim:bad-gateway`) "accepted" is derived from the idempotencyKey
 * (`sandbox_<platform>_<sha256(key)[0..20]>`), so `lookup` finds it from any instance. Other
 * blocks get random ids; `lookup` finds those only in the process that published them (a
 * bounded map), which suffices because only those tokens lose an answer in the sandbox.
 *
 * Edits and deletes follow the platform's `remoteEdit` / `supportsRemoteDelete` (permanent error
 * when not allowed). Edited text obeys `sim:fail` (permanent), `sim:reconnect` (reconnect),
 * `sim:fail-once` / `sim:flaky` (refused once per block and text in this process, then accepted)
 * and `sim:timeout` (transient, `outcomeUnknown: true`; an edit is safe to resend).
 */

const SANDBOX_HOST = 'https://sandbox.herald.invalid';
/** Most entries each in-memory Set/Map keeps; the oldest goes first. */
export const SANDBOX_MEMORY_LIMIT = 10_000;

/** A Set that forgets its oldest entries beyond `limit`. */
class BoundedSet {
  private readonly items = new Set<string>();
  constructor(private readonly limit: number) {}
  has(key: string): boolean {
    return this.items.has(key);
  }
  add(key: string): void {
    this.items.delete(key);
    this.items.add(key);
    while (this.items.size > this.limit) {
      const oldest = this.items.values().next();
      if (oldest.done) break;
      this.items.delete(oldest.value);
    }
  }
  get size(): number {
    return this.items.size;
  }
}

/** A Map that forgets its oldest entries beyond `limit`. */
class BoundedMap<V> {
  private readonly items = new Map<string, V>();
  constructor(private readonly limit: number) {}
  get(key: string): V | undefined {
    return this.items.get(key);
  }
  set(key: string, value: V): void {
    this.items.delete(key);
    this.items.set(key, value);
    while (this.items.size > this.limit) {
      const oldest = this.items.keys().next();
      if (oldest.done) break;
      this.items.delete(oldest.value);
    }
  }
  deleteWhere(test: (value: V) => boolean): void {
    for (const [key, value] of this.items) if (test(value)) this.items.delete(key);
  }
  get size(): number {
    return this.items.size;
  }
}

const blockFor = (platform: PlatformId, remoteId: string): RemoteBlock => ({
  remoteId,
  remoteUrl: `${SANDBOX_HOST}/${platform}/${remoteId}`,
  meta: {},
});

/** The block a `sim:timeout` publish leaves behind: the same in every process. */
export const sandboxBlockForKey = (platform: PlatformId, idempotencyKey: string): RemoteBlock =>
  blockFor(
    platform,
    `sandbox_${platform}_${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 20)}`,
  );

export class SandboxNetworkClient implements NetworkClient {
  readonly platform: PlatformId;
  /** Nothing lags: a block the sandbox accepted is found at once. */
  readonly consistencyWindowSeconds = 0;
  private readonly rules: Platform;
  /** idempotencyKeys whose `sim:flaky` publish already failed once in this process. */
  private readonly flakyFailed: BoundedSet;
  /** Edits (block + text) whose `sim:fail-once` / `sim:flaky` already failed once. */
  private readonly editsFailed: BoundedSet;
  /** idempotencyKey → block the sandbox accepted (published or timed out), for `lookup`. */
  private readonly accepted: BoundedMap<RemoteBlock>;
  /** idempotencyKey → reply the sandbox accepted, for `lookupReply`. */
  private readonly replies: BoundedMap<RemoteComment>;

  constructor(platform: PlatformId, options: { memoryLimit?: number } = {}) {
    const rules = getPlatform(platform);
    if (!rules) throw new Error(`Unknown platform: ${platform}`);
    this.platform = platform;
    this.rules = rules;
    const limit = options.memoryLimit ?? SANDBOX_MEMORY_LIMIT;
    this.flakyFailed = new BoundedSet(limit);
    this.editsFailed = new BoundedSet(limit);
    this.accepted = new BoundedMap(limit);
    this.replies = new BoundedMap(limit);
  }

  async publish(input: PublishBlockInput): Promise<RemoteBlock> {
    const key = input.idempotencyKey;
    switch (simTokenOf(input.content)) {
      case 'sim:fail':
        throw new NetworkError('permanent', `Sandbox: ${this.rules.name} refused this post (sim:fail).`);
      case 'sim:fail-once':
        if (input.round === 1)
          throw new NetworkError(
            'permanent',
            `Sandbox: ${this.rules.name} refused this post on the first round (sim:fail-once).`,
          );
        break;
      case 'sim:flaky':
        if (input.round <= 1 && !this.flakyFailed.has(key)) {
          this.flakyFailed.add(key);
          throw new NetworkError(
            'transient',
            `Sandbox: ${this.rules.name} is briefly unavailable (sim:flaky).`,
            {
              retryAfterSeconds: 1,
            },
          );
        }
        break;
      case 'sim:reconnect':
        throw new NetworkError(
          'reconnect',
          `Sandbox: the ${this.rules.name} token has expired (sim:reconnect).`,
        );
      case 'sim:timeout':
      case 'sim:reset':
      case 'sim:bad-gateway': {
        this.accepted.set(key, sandboxBlockForKey(this.platform, key));
        throw new NetworkError(
          'transient',
          `Sandbox: ${this.rules.name} did not answer (${simTokenOf(input.content)}); the post may have been accepted.`,
          { outcomeUnknown: true },
        );
      }
      default:
        break;
    }
    const block = blockFor(this.platform, `sandbox_${this.platform}_${randomBytes(10).toString('hex')}`);
    this.accepted.set(key, block);
    return block;
  }

  async edit(input: EditBlockInput): Promise<void> {
    const editable = this.rules.limits.remoteEdit;
    if (editable === null)
      throw new NetworkError('permanent', `${this.rules.name} does not allow editing a published post.`);
    if (input.title !== undefined && input.title !== null && !editable.includes('title'))
      throw new NetworkError('permanent', `${this.rules.name} does not allow editing the title.`);
    if (input.options !== undefined && Object.keys(input.options).length > 0 && !editable.includes('options'))
      throw new NetworkError('permanent', `${this.rules.name} does not allow editing options.`);
    this.assertSandboxBlock(input.block);
    const onceKey = `${input.block.remoteId}\n${input.content}`;
    switch (simTokenOf(input.content)) {
      case 'sim:fail':
        throw new NetworkError('permanent', `Sandbox: ${this.rules.name} refused this edit (sim:fail).`);
      case 'sim:fail-once':
        if (!this.editsFailed.has(onceKey)) {
          this.editsFailed.add(onceKey);
          throw new NetworkError(
            'permanent',
            `Sandbox: ${this.rules.name} refused this edit once (sim:fail-once).`,
          );
        }
        return;
      case 'sim:flaky':
        if (!this.editsFailed.has(onceKey)) {
          this.editsFailed.add(onceKey);
          throw new NetworkError(
            'transient',
            `Sandbox: ${this.rules.name} is briefly unavailable (sim:flaky).`,
            {
              retryAfterSeconds: 1,
            },
          );
        }
        return;
      case 'sim:reconnect':
        throw new NetworkError(
          'reconnect',
          `Sandbox: the ${this.rules.name} token has expired (sim:reconnect).`,
        );
      case 'sim:timeout':
      case 'sim:reset':
      case 'sim:bad-gateway':
        throw new NetworkError(
          'transient',
          `Sandbox: ${this.rules.name} did not answer the edit (${simTokenOf(input.content)}).`,
          {
            outcomeUnknown: true,
          },
        );
      default:
        return;
    }
  }

  async delete(input: DeleteBlockInput): Promise<void> {
    if (!this.rules.limits.supportsRemoteDelete)
      throw new NetworkError('permanent', `${this.rules.name} does not allow deleting a published post.`);
    this.assertSandboxBlock(input.block);
    this.accepted.deleteWhere((block) => block.remoteId === input.block.remoteId);
  }

  async lookup(input: LookupBlockInput): Promise<RemoteBlock | null> {
    const known = this.accepted.get(input.idempotencyKey);
    if (known) return known;
    // Another instance may have published it: a lost-answer block is always "accepted".
    const token = simTokenOf(input.content);
    if (token && LOST_ANSWER_TOKENS.includes(token))
      return sandboxBlockForKey(this.platform, input.idempotencyKey);
    return null;
  }

  /** Simulated growing counts (from the block's id and age on the cadence); no network is called. */
  async metrics(input: MetricsInput): Promise<MetricsReading> {
    this.assertSandboxBlock(input.block);
    return simulatedMetrics(this.platform, input.block.remoteId, input.ageSeconds ?? 0);
  }

  /** The three simulated comments every sandbox post gets (sandbox/comments.ts), on networks whose comments can be read. */
  async comments(input: CommentsInput): Promise<CommentsPage> {
    this.assertCommentsReadable();
    this.assertSandboxBlock(input.block);
    const all = sandboxComments(this.platform, input.block, input.ageSeconds ?? 0, new Date());
    return { comments: all.slice(0, input.limit), nextCursor: null };
  }

  async findComment(input: CommentInput): Promise<RemoteComment | null> {
    this.assertCommentsReadable();
    const simulated = sandboxComments(this.platform, input.block, 0, new Date()).find(
      (c) => c.remoteId === input.remoteId,
    );
    if (simulated) return simulated;
    // A reply the sandbox made (answering it is answering the post's conversation).
    if (input.remoteId.startsWith(`sandbox_${this.platform}_r_`)) {
      return {
        remoteId: input.remoteId,
        parentRemoteId: input.block.remoteId,
        author: { name: null, handle: input.credentials.remoteAccountId },
        text: '',
        createdAt: new Date().toISOString(),
        likeCount: 0,
        url: null,
        meta: {},
      };
    }
    return null;
  }

  /** Replies follow the sim tokens as publish does: `sim:fail` refused, the lost-answer tokens "accepted" and found by `lookupReply`. */
  async reply(input: ReplyInput): Promise<RemoteComment> {
    this.assertCommentsReadable();
    const made = sandboxReply(
      this.platform,
      input.idempotencyKey,
      input.comment,
      input.content,
      input.credentials.remoteAccountId,
      new Date(),
    );
    const token = simTokenOf(input.content);
    if (token === 'sim:fail')
      throw new NetworkError('permanent', `Sandbox: ${this.rules.name} refused this reply (sim:fail).`);
    if (token === 'sim:reconnect')
      throw new NetworkError(
        'reconnect',
        `Sandbox: the ${this.rules.name} token has expired (sim:reconnect).`,
      );
    if (token && LOST_ANSWER_TOKENS.includes(token)) {
      this.replies.set(input.idempotencyKey, made);
      throw new NetworkError(
        'transient',
        `Sandbox: ${this.rules.name} did not answer (${token}); the reply may have been accepted.`,
        {
          outcomeUnknown: true,
        },
      );
    }
    this.replies.set(input.idempotencyKey, made);
    return made;
  }

  async lookupReply(input: LookupReplyInput): Promise<RemoteComment | null> {
    const known = this.replies.get(input.idempotencyKey);
    if (known) return known;
    const token = simTokenOf(input.content);
    return token && LOST_ANSWER_TOKENS.includes(token)
      ? sandboxReply(
          this.platform,
          input.idempotencyKey,
          input.comment,
          input.content,
          input.credentials.remoteAccountId,
          input.since,
        )
      : null;
  }

  async deleteReply(input: DeleteReplyInput): Promise<void> {
    this.assertCommentsReadable();
    if (!input.reply.remoteId.startsWith(`sandbox_${this.platform}_r_`))
      throw new NetworkError('permanent', `Sandbox: ${input.reply.remoteId} is not a sandbox reply.`);
    this.replies.deleteWhere((reply) => reply.remoteId === input.reply.remoteId);
  }

  private assertCommentsReadable(): void {
    if (!this.rules.limits.commentsReadable)
      throw new NetworkError('permanent', `${this.rules.name} does not let apps read or answer comments.`);
  }

  private assertSandboxBlock(block: RemoteBlock): void {
    if (!block.remoteId.startsWith(`sandbox_${this.platform}_`))
      throw new NetworkError(
        'permanent',
        `Sandbox: ${block.remoteId} is not a sandbox ${this.rules.name} post.`,
      );
  }
}
