/**
 * Events and their gates: the outbox events a channel's completion writes, whether a job's writes
 * keep them (the workspace's webhook endpoints, as the job read them), and their hand-off to the
 * event queue once committed.
 */

import { newId } from '../../domain/ids.ts';
import type { PostRecord } from '../../domain/post.ts';
import type { Clock } from '../../ports/clock.ts';
import type { EventType, JobQueue, OutboxEvent, OutboxGate } from '../../ports/publishing.ts';
import { logger } from '../../shared/powertools.ts';
import type { EngineTags } from './deps.ts';

/** A new outbox event about `post`, stamped now. */
export const newEvent = (
  clock: Clock,
  post: PostRecord,
  type: EventType,
  data: OutboxEvent['data'],
): OutboxEvent => ({
  id: newId('evt'),
  type,
  createdAt: clock.now().toISOString(),
  accountId: post.accountId,
  workspaceId: post.workspaceId,
  mode: post.mode,
  data,
});

/** The event type of a channel that ended `status` with `published` of its blocks live. */
export const completionEventType = (status: 'published' | 'failed', published: number): EventType =>
  status === 'published' ? 'post.published' : published > 0 ? 'post.partially_failed' : 'post.failed';

/** Whether two writes see the workspace's endpoints alike (they can then share one transaction). */
export const sameGate = (a: OutboxGate | undefined, b: OutboxGate | undefined) =>
  a === b ||
  (a !== undefined && b !== undefined && a.workspaceId === b.workspaceId && a.endpoints === b.endpoints);

/** Hands committed live events to the event queue; one that fails here stays pending in the outbox. */
export const dispatchEvents = async (queue: JobQueue, events: OutboxEvent[]): Promise<void> => {
  for (const event of events) {
    if (event.mode !== 'live') continue;
    try {
      await queue.sendEvent(event.id, { workspaceId: event.workspaceId, type: event.type, mode: event.mode });
    } catch (error) {
      logger.warn('Event left pending in the outbox', { eventId: event.id, error: error as Error });
    }
  }
};

/**
 * Per job (keyed by the post as the job read it): what its read found of the workspace's webhook
 * endpoints, which decides whether the job's writes keep their events (undefined: not read, and
 * the events are kept).
 */
export class JobGates {
  private readonly gates = new WeakMap<PostRecord, Promise<OutboxGate | undefined>>();

  /** The job's read of the endpoints (a failed read keeps the events). */
  read(round: PostRecord, read: Promise<{ endpoints: number | null }>): void {
    const { workspaceId } = round;
    this.gates.set(
      round,
      read.then(
        ({ endpoints }) => ({ workspaceId, endpoints }),
        () => undefined,
      ),
    );
  }

  get(round: PostRecord): Promise<OutboxGate | undefined> {
    return this.gates.get(round) ?? Promise.resolve(undefined);
  }

  /** An endpoint was created since the job read the count: the job's writes keep their events from now on. */
  reopen(round: PostRecord): OutboxGate {
    const gate = { workspaceId: round.workspaceId, endpoints: null };
    this.gates.set(round, Promise.resolve(gate));
    return gate;
  }
}

/** The workspace's tag names, read once for every completion of the next ten seconds (one read for concurrent callers). */
export class TagNames {
  private readonly cache = new Map<string, { at: number; names: Promise<Map<string, string>> }>();

  constructor(private readonly tags: EngineTags) {}

  of(workspaceId: string): Promise<Map<string, string>> {
    const cached = this.cache.get(workspaceId);
    if (cached && Date.now() - cached.at < 10_000) return cached.names;
    const names = this.tags.listTags(workspaceId).then((tags) => new Map(tags.map((t) => [t.tagId, t.name])));
    const entry = { at: Date.now(), names };
    this.cache.set(workspaceId, entry);
    // A failed read is not kept: the next caller reads again.
    names.catch(() => {
      if (this.cache.get(workspaceId) === entry) this.cache.delete(workspaceId);
    });
    return names;
  }
}
