import type { EnginePosts } from '../../../functions/core/publishing/deps.ts';
import { ApiError } from '../../../functions/domain/errors.ts';
import type { PostRecord } from '../../../functions/domain/post.ts';
import type { ChannelRecord } from '../../../functions/ports/channels.ts';
import type {
  BlockTimeline,
  PostTimelines,
  PostWriteExtras,
  TrackingStart,
} from '../../../functions/ports/posts.ts';
import {
  ClaimTakenError,
  EndpointsAppearedError,
  type JobReads,
  type OutboxEvent,
  skipsEvents,
} from '../../../functions/ports/publishing.ts';
import type { FakeChannelStore } from './channels.ts';
import type { FakeClaimStore } from './claims.ts';

/**
 * Posts in memory, written as adapters/aws/dynamo/posts.ts writes them: one transaction per
 * `replace`, refused whole when a claim it settles was taken over (`ClaimTakenError`), when the
 * post changed since it was read (`conflict`), or when its outbox gate finds an endpoint
 * (`EndpointsAppearedError`); otherwise the post, the claims' settles, the live events (unless the
 * gate leaves them out), the usage count and the tracking starts commit together.
 */
export class FakePostStore implements EnginePosts, PostTimelines {
  private readonly posts = new Map<string, PostRecord>();
  /** Events committed to the outbox, in order. */
  readonly outbox: OutboxEvent[] = [];
  /** `posts.published` counts by `accountId#period`. */
  readonly published = new Map<string, number>();
  readonly trackingStarts: TrackingStart[] = [];
  /** Each committed write's extras, in order (how many writes a job made, and what went with each). */
  readonly writes: { postId: string; extras: PostWriteExtras | undefined }[] = [];
  /** Errors the next writes throw before anything is checked (a table failing), in order. */
  readonly failWrites: Error[] = [];
  /** Reads of one post (`get`, each a request; `getForJob` is counted apart). */
  reads = 0;
  /** Runs before each write is checked: another writer may change the post there. */
  beforeWrite: ((postId: string) => void) | null = null;

  constructor(
    private readonly channels: FakeChannelStore,
    private readonly claims: FakeClaimStore,
  ) {}

  /** Stores a post as is (a test's starting state). */
  put(post: PostRecord): void {
    this.posts.set(post.postId, structuredClone(post));
  }

  /** The stored post (a copy), or null. */
  peek(postId: string): PostRecord | null {
    const post = this.posts.get(postId);
    return post ? structuredClone(post) : null;
  }

  /** Another writer's change: the stored post, changed, one version later. */
  change(postId: string, change: (post: PostRecord) => PostRecord): void {
    const post = this.posts.get(postId);
    if (!post) throw new Error(`No post ${postId}`);
    this.posts.set(postId, { ...change(structuredClone(post)), version: post.version + 1 });
  }

  remove(postId: string): void {
    this.posts.delete(postId);
  }

  async get(postId: string): Promise<PostRecord | null> {
    this.reads++;
    return this.peek(postId);
  }

  async getTimeline(postId: string): Promise<{ post: PostRecord | null; blocks: BlockTimeline[] }> {
    const blocks = this.claims.ofPost(postId).map((claim) => ({
      channelId: claim.channelId,
      block: claim.block,
      events: claim.timeline ?? [],
      dropped: claim.timelineDropped ?? 0,
    }));
    return { post: this.peek(postId), blocks };
  }

  async getForJob(
    postId: string,
    reads: JobReads,
  ): Promise<{ post: PostRecord | null; channels: Map<string, ChannelRecord>; endpoints: number | null }> {
    const channels = new Map<string, ChannelRecord>();
    for (const id of reads.channelIds) {
      const channel = await this.channels.getChannel(reads.workspaceId, id);
      if (channel) channels.set(id, channel);
    }
    return { post: this.peek(postId), channels, endpoints: this.channels.endpointCount(reads.workspaceId) };
  }

  async replace(previous: PostRecord, next: PostRecord, extras?: PostWriteExtras): Promise<void> {
    this.beforeWrite?.(previous.postId);
    const failure = this.failWrites.shift();
    if (failure) throw failure;
    const settles = extras?.settleClaims ?? [];
    if (settles.some(({ claim }) => !this.claims.holds(claim))) throw new ClaimTakenError();
    if (this.posts.get(previous.postId)?.version !== previous.version) {
      throw new ApiError('conflict', 'The post was changed by another request; read it again and retry.');
    }
    const live = (extras?.events ?? []).filter((event) => event.mode === 'live');
    const gated = live.length > 0 && skipsEvents(extras?.outbox);
    if (gated && extras?.outbox && this.channels.endpointCount(extras.outbox.workspaceId) !== 0) {
      throw new EndpointsAppearedError();
    }
    this.posts.set(next.postId, structuredClone(next));
    for (const { claim, remote } of settles) this.claims.applySettle(claim, 'sent', remote);
    if (!gated) this.outbox.push(...structuredClone(live));
    if (extras?.countPublished) {
      const key = `${extras.countPublished.accountId}#${extras.countPublished.period}`;
      this.published.set(key, (this.published.get(key) ?? 0) + 1);
    }
    this.trackingStarts.push(...(extras?.startTracking ?? []));
    this.writes.push({ postId: next.postId, extras });
  }
}
