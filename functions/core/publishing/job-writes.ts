/**
 * A job's writes to its post: each starts from the latest version the job holds, waits for the
 * engine's other writes to the post, and settles a block's claim in the same transaction when it
 * records that block.
 */

import type { PostRecord } from '../../domain/post.ts';
import type { Clock } from '../../ports/clock.ts';
import type { RemoteBlock } from '../../ports/network-client.ts';
import {
  type BlockClaim,
  type ClaimStore,
  ClaimTakenError,
  EndpointsAppearedError,
} from '../../ports/publishing.ts';
import { logger } from '../../shared/powertools.ts';
import type { EnginePosts } from './deps.ts';
import {
  applyBlock,
  type HeldPost,
  mutateLocked,
  mutatePost,
  type PostChange,
  PostGoneError,
  type PostLocks,
  type TrackerFor,
  type Written,
} from './post-mutation.ts';

/** A claim this worker holds, to settle as `sent` at `remote`. */
export type Settle = { claim: BlockClaim; remote: RemoteBlock };

export class JobWrites {
  /** Per job (keyed by the post as the job read it): the latest version this worker read or wrote. */
  private readonly held = new WeakMap<PostRecord, HeldPost>();

  constructor(
    private readonly deps: { posts: EnginePosts; clock: Clock; claims: ClaimStore; trackerFor?: TrackerFor },
    readonly locks: PostLocks,
  ) {}

  /** A job starts from `post`: its writes start from what it holds rather than reading the post again. */
  begin(post: PostRecord): void {
    this.held.set(post, { post });
  }

  /**
   * `mutatePost` for the job that read `post`, starting from the latest version the job holds;
   * `locked` when the caller holds the post's lock already.
   */
  mutate(post: PostRecord, change: PostChange, { locked = false } = {}): Promise<Written> {
    const held = this.held.get(post);
    return locked
      ? mutateLocked(this.deps, post.postId, change, held)
      : mutatePost(this.deps, post.postId, change, held, this.locks);
  }

  /**
   * Writes `change` with the claim `settle.claim` (this worker's) settled as `sent` in the same
   * transaction. When the change writes nothing, or the post is gone, the claim is settled alone:
   * it still tells where the block is. A claim another worker took over stops this one
   * (`ClaimTakenError`), as a settle of its own would.
   */
  async writeSettling(
    post: PostRecord,
    settle: Settle | undefined,
    change: PostChange,
    { locked = false } = {},
  ): Promise<Written> {
    if (!settle) return this.mutate(post, change, { locked });
    let written: Written;
    try {
      written = await this.mutate(
        post,
        (current, at) => {
          const result = change(current, at);
          return result ? { ...result, extras: { ...result.extras, settleClaims: [settle] } } : null;
        },
        { locked },
      );
    } catch (error) {
      if (error instanceof PostGoneError) await this.deps.claims.settle(settle.claim, 'sent', settle.remote);
      else if (!(error instanceof ClaimTakenError) && !(error instanceof EndpointsAppearedError)) {
        // (An endpoint that appeared wrote nothing: the caller writes again, with the claim's settle.)
        // The table failed: the claim still records the block if it can, so a retry finds it sent.
        await this.deps.claims.settle(settle.claim, 'sent', settle.remote).catch((failure: unknown) =>
          logger.warn('Could not settle the claim of a sent block; a retry will look it up', {
            postId: post.postId,
            error: failure as Error,
          }),
        );
      }
      throw error;
    }
    if (!written.extras?.settleClaims) await this.deps.claims.settle(settle.claim, 'sent', settle.remote);
    return written;
  }

  /** Records block `b` on the post; with `claim` (this worker's), settles it as `sent` in the same write. */
  async recordBlock(
    post: PostRecord,
    channelId: string,
    b: number,
    remote: RemoteBlock,
    claim?: BlockClaim,
  ): Promise<void> {
    await this.writeSettling(post, claim ? { claim, remote } : undefined, (current) =>
      applyBlock(current, channelId, b, remote, this.deps.clock.now(), this.deps.trackerFor),
    );
  }
}
