/**
 * Channel completions grouped into one write: a completion waits for its post's lock, and for a
 * moment for the post's other sends in flight, so that answers that come in close together are
 * written in one transaction (a group commit).
 */

import type { PostRecord } from '../../domain/post.ts';
import type { PostWriteExtras } from '../../ports/posts.ts';
import type { ClaimStore, OutboxEvent, OutboxGate } from '../../ports/publishing.ts';
import { logger } from '../../shared/powertools.ts';
import type { JobWrites, Settle } from './job-writes.ts';
import { sameGate } from './outbox.ts';
import { type PostChange, type Written, writtenAs } from './post-mutation.ts';

/**
 * How long a channel's completion waits at most for the post's other sends in flight, so that
 * answers that come in close together are written together: small beside a network's answer time.
 */
export const COMPLETION_GROUP_WAIT_MS = 10;

/** Most channel completions in one transaction (each adds about seven items; DynamoDB allows 100). */
export const MAX_COMPLETIONS_PER_WRITE = 8;

/** A channel's completion: the post change, and its events once the post as written is known. */
export interface CompletionChange {
  next: PostRecord;
  extras?: PostWriteExtras;
  events: (written: PostRecord) => OutboxEvent[];
}

export interface Completion {
  /** The job's post, as the job read it (its held copy and its view of the endpoints go with it). */
  round: PostRecord;
  gate: OutboxGate | undefined;
  settle?: Settle;
  /** null when the channel is done already (nothing to write). */
  complete: (current: PostRecord, at: string) => CompletionChange | null;
}

interface WaitingCompletion extends Completion {
  resolve: (written: Written) => void;
  reject: (error: unknown) => void;
}

/** A completion written on its own: its events carry the post as written. */
const alone =
  (c: Completion): PostChange =>
  (current, at) => {
    const part = c.complete(current, at);
    if (!part) return null;
    return {
      next: part.next,
      extras: {
        ...part.extras,
        events: part.events(writtenAs(part.next, current, at)),
        ...(c.gate ? { outbox: c.gate } : {}),
      },
    };
  };

/** Sends of each post's blocks in flight (from a block's claim to the network's answer), and who waits for none to be. */
export class SendsInFlight {
  private readonly sending = new Map<string, { count: number; settled: (() => void)[] }>();

  /** A block's send starts; the returned function (idempotent) says it ended. */
  started(postId: string): () => void {
    const sends = this.sending.get(postId) ?? { count: 0, settled: [] };
    sends.count++;
    this.sending.set(postId, sends);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--sends.count > 0) return;
      if (this.sending.get(postId) === sends) this.sending.delete(postId);
      for (const settled of sends.settled.splice(0)) settled();
    };
  }

  /** Resolves once no send of the post is in flight, or after `ms` at most. */
  settled(postId: string, ms: number): Promise<void> {
    const sends = this.sending.get(postId);
    if (!sends || sends.count === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const settled = () => {
        clearTimeout(timer);
        resolve();
      };
      // Given up on after `ms`: no longer called when the sends end.
      const timer = setTimeout(() => {
        const at = sends.settled.indexOf(settled);
        if (at >= 0) sends.settled.splice(at, 1);
        resolve();
      }, ms);
      sends.settled.push(settled);
    });
  }
}

export class CompletionBatcher {
  /** Channel completions waiting for their post's lock, by post. */
  private readonly completions = new Map<string, WaitingCompletion[]>();

  constructor(
    private readonly writes: JobWrites,
    private readonly claims: Pick<ClaimStore, 'settle'>,
    private readonly sends: SendsInFlight,
  ) {}

  /**
   * Writes a channel's completion. Completions of one job's channels whose answers came in close
   * together are written in one transaction: each turn of the post's lock writes every completion
   * waiting by then.
   */
  write(completion: Completion): Promise<Written> {
    const { postId } = completion.round;
    return new Promise<Written>((resolve, reject) => {
      const waiting = this.completions.get(postId) ?? [];
      waiting.push({ ...completion, resolve, reject });
      this.completions.set(postId, waiting);
      // Each completion takes a turn of the lock after joining the line, so one that an earlier
      // turn did not take is written by its own turn at the latest.
      this.writes.locks.run(postId, () => this.writeWaiting(postId)).catch(reject);
    });
  }

  /** One turn of the post's lock: the completions waiting now, together when they can be. */
  private async writeWaiting(postId: string): Promise<void> {
    // The post's other sends still in flight get a moment to answer (their completions then join
    // this write instead of making writes of their own), and answers that arrived meanwhile get
    // to finish their channels' work.
    await this.sends.settled(postId, COMPLETION_GROUP_WAIT_MS);
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = this.completions.get(postId) ?? [];
    const [first] = waiting;
    if (!first) return;
    // One job's completions (one held copy, one view of the endpoints), within a transaction's size.
    const group = waiting
      .filter((c) => c.round === first.round && sameGate(c.gate, first.gate))
      .slice(0, MAX_COMPLETIONS_PER_WRITE);
    const rest = waiting.filter((c) => !group.includes(c));
    if (rest.length > 0) this.completions.set(postId, rest);
    else this.completions.delete(postId);
    if (group.length > 1) {
      let together: { written: Written; settleAlone: Settle | undefined }[] | undefined;
      try {
        together = await this.writeTogether(group);
      } catch (error) {
        // The transaction wrote nothing (a claim taken over, an endpoint that appeared, a table
        // error): each completion is written alone, with its own outcome.
        logger.info('Channel completions written one by one after their joint write failed', {
          postId,
          error: error as Error,
        });
      }
      if (together) {
        for (const [i, c] of group.entries()) {
          const { written, settleAlone } = together[i] as (typeof together)[number];
          try {
            if (settleAlone) await this.claims.settle(settleAlone.claim, 'sent', settleAlone.remote);
            c.resolve(written);
          } catch (error) {
            c.reject(error);
          }
        }
        return;
      }
    }
    for (const c of group) {
      try {
        c.resolve(await this.writes.writeSettling(c.round, c.settle, alone(c), { locked: true }));
      } catch (error) {
        c.reject(error);
      }
    }
  }

  /**
   * Several completions of one job in one transaction, applied in turn to the post; each event's
   * snapshot is the post as written. A completion with nothing left to write (its channel is done
   * already) has its claim settled alone, as `writeSettling` does.
   */
  private async writeTogether(
    group: Completion[],
  ): Promise<{ written: Written; settleAlone: Settle | undefined }[]> {
    const first = group[0] as Completion;
    let parts: (CompletionChange | null)[] = [];
    let events: OutboxEvent[][] = [];
    const written = await this.writes.mutate(
      first.round,
      (current, at) => {
        let post = current;
        parts = group.map((c) => {
          const part = c.complete(post, at);
          if (part) post = part.next;
          return part;
        });
        if (parts.every((part) => part === null)) return null;
        const final = writtenAs(post, current, at);
        events = parts.map((part) => part?.events(final) ?? []);
        const countPublished = parts.find((part) => part?.extras?.countPublished)?.extras?.countPublished;
        const settleClaims = group.flatMap((c, i) => (parts[i] && c.settle ? [c.settle] : []));
        const startTracking = parts.flatMap((part) => part?.extras?.startTracking ?? []);
        return {
          next: post,
          extras: {
            events: events.flat(),
            ...(first.gate ? { outbox: first.gate } : {}),
            ...(countPublished ? { countPublished } : {}),
            ...(settleClaims.length > 0 ? { settleClaims } : {}),
            ...(startTracking.length > 0 ? { startTracking } : {}),
          },
        };
      },
      { locked: true },
    );
    return group.map((c, i) => {
      const part = written.extras ? parts[i] : null;
      if (!part) return { written: { post: written.post, extras: undefined }, settleAlone: c.settle };
      const extras: PostWriteExtras = {
        ...part.extras,
        events: events[i] ?? [],
        ...(c.gate ? { outbox: c.gate } : {}),
        ...(c.settle ? { settleClaims: [c.settle] } : {}),
      };
      return { written: { post: written.post, extras }, settleAlone: undefined };
    });
  }
}
