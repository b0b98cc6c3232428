import {
  appendBounded,
  BLOCK_TIMELINE_LIMIT,
  type BlockEvent,
  withBlockEvent,
} from '../../../functions/domain/timeline.ts';
import type { RemoteBlock } from '../../../functions/ports/network-client.ts';
import type { BlockClaim, ClaimState, ClaimStore } from '../../../functions/ports/publishing.ts';

/** What DynamoDB throws when a condition refuses a write (the adapters let it through). */
export class ConditionFailedError extends Error {
  constructor() {
    super('The conditional request failed');
    this.name = 'ConditionalCheckFailedException';
  }
}

const keyOf = (c: Pick<BlockClaim, 'postId' | 'channelId' | 'block'>) =>
  `${c.postId}#${c.channelId}#${c.block}`;
const TRACKING = ['firstSentAt', 'lastSentAt', 'lostAt', 'checks', 'nextCheckAt', 'duplicate'] as const;

/** `stored` with `events` appended to its timeline, bounded as the table's item is. */
const appended = (stored: BlockClaim, events: readonly BlockEvent[] | undefined): BlockClaim => {
  const { append: _a, ...claim } = stored;
  if (!events?.length) return claim;
  const { timeline, dropped } = appendBounded(
    claim.timeline,
    claim.timelineDropped,
    events,
    BLOCK_TIMELINE_LIMIT,
  );
  return { ...claim, timeline, ...(dropped > 0 ? { timelineDropped: dropped } : {}) };
};

/** Block claims in memory, with the conditions of adapters/aws/dynamo/claims.ts. */
export class FakeClaimStore implements ClaimStore {
  private readonly claims = new Map<string, BlockClaim>();

  /** The stored claim of a block (a copy), or undefined. */
  get(postId: string, channelId: string, block: number): BlockClaim | undefined {
    const stored = this.claims.get(keyOf({ postId, channelId, block }));
    return stored && structuredClone(stored);
  }

  /** The stored claims of a post's blocks (copies). */
  ofPost(postId: string): BlockClaim[] {
    return [...this.claims.values()].filter((c) => c.postId === postId).map((c) => structuredClone(c));
  }

  /** Stores a claim as is (a test's starting state: another worker's, a dead worker's...). */
  put(claim: BlockClaim): void {
    this.claims.set(keyOf(claim), structuredClone(claim));
  }

  async acquire(
    claim: BlockClaim,
  ): Promise<{ acquired: true; claim: BlockClaim } | { acquired: false; current: BlockClaim }> {
    const key = keyOf(claim);
    const stored = this.claims.get(key);
    if (stored && stored.state !== 'not_sent') return { acquired: false, current: structuredClone(stored) };
    // An update, as DynamoDB's: the send history of a `not_sent` claim survives; the outcome goes.
    const { remote: _r, checks: _c, nextCheckAt: _n, duplicate: _d, ...kept } = stored ?? ({} as BlockClaim);
    const next: BlockClaim = {
      ...kept,
      postId: claim.postId,
      channelId: claim.channelId,
      block: claim.block,
      state: claim.state,
      owner: claim.owner,
      leaseUntil: claim.leaseUntil,
      since: claim.since,
      lastSentAt: claim.lastSentAt ?? claim.since,
      firstSentAt: stored?.firstSentAt ?? claim.firstSentAt ?? claim.since,
    };
    this.claims.set(key, appended(next, claim.append));
    return { acquired: true, claim: structuredClone(this.claims.get(key) as BlockClaim) };
  }

  async takeOver(previous: BlockClaim, claim: BlockClaim): Promise<boolean> {
    const stored = this.claims.get(keyOf(claim));
    if (
      !stored ||
      stored.state !== previous.state ||
      stored.owner !== previous.owner ||
      stored.leaseUntil !== previous.leaseUntil
    )
      return false;
    const { append, ...next } = claim;
    const history = { timeline: previous.timeline ?? [], timelineDropped: previous.timelineDropped };
    this.claims.set(keyOf(claim), structuredClone(appended({ ...next, ...history } as BlockClaim, append)));
    return true;
  }

  /** Whether `claim.owner` still holds the stored claim (the condition of a settle). */
  holds(claim: BlockClaim): boolean {
    return this.claims.get(keyOf(claim))?.owner === claim.owner;
  }

  async settle(
    claim: BlockClaim,
    state: Exclude<ClaimState, 'sending'>,
    remote?: RemoteBlock,
  ): Promise<void> {
    if (!this.holds(claim)) throw new ConditionFailedError();
    this.applySettle(claim, state, remote);
  }

  /** A settle whose condition was checked (a post write's transaction checks them all first). */
  applySettle(claim: BlockClaim, state: Exclude<ClaimState, 'sending'>, remote?: RemoteBlock): void {
    const stored = this.claims.get(keyOf(claim)) as BlockClaim;
    const next: BlockClaim = { ...stored, state, ...(remote ? { remote } : {}) };
    for (const field of TRACKING) {
      if (claim[field] !== undefined) Object.assign(next, { [field]: claim[field] });
    }
    this.claims.set(keyOf(claim), structuredClone(appended(next, claim.append)));
  }

  async saveProgress(
    claim: BlockClaim,
    progress: Record<string, unknown>,
    leaseUntil: string,
    event?: BlockEvent,
  ): Promise<boolean> {
    const stored = this.claims.get(keyOf(claim));
    if (!stored || stored.owner !== claim.owner || stored.state !== 'sending') return false;
    const next = { ...stored, progress: structuredClone(progress), leaseUntil };
    if (!event) this.claims.set(keyOf(claim), next);
    else {
      const { timeline, dropped } = withBlockEvent(next.timeline, next.timelineDropped, event);
      this.claims.set(keyOf(claim), {
        ...next,
        timeline,
        ...(dropped > 0 ? { timelineDropped: dropped } : {}),
      });
    }
    return true;
  }
}
