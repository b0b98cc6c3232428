import type { PlatformId } from '../../../functions/domain/platforms/types.ts';
import {
  type DeleteBlockInput,
  type EditBlockInput,
  type LookupBlockInput,
  type NetworkClient,
  NetworkError,
  type PublishBlockInput,
  type RemoteBlock,
} from '../../../functions/ports/network-client.ts';

/** How the network answers one publish call (by default: it stores the block and says so). */
export type PublishAnswer =
  | { kind: 'ok' }
  /** The network refuses: nothing stored. */
  | { kind: 'error'; error: NetworkError }
  /** The answer is lost after the request reached the network, which `stored` the block or not. */
  | { kind: 'lost'; stored: boolean }
  /** The network stores the block, but the answer waits for `release` (a send in flight). */
  | { kind: 'held'; release: Promise<void> }
  /** Calls `progress.save` with `state` first (a resumable upload), then answers `then`. */
  | { kind: 'upload'; state: Record<string, unknown>; after: PublishAnswer };

/** How the network answers one lookup (by default: it finds what it stored under the block's key). */
export type LookupAnswer =
  | { kind: 'search' }
  /** The network does not show the block yet (its consistency window), stored or not. */
  | { kind: 'hidden' }
  | { kind: 'error'; error: NetworkError };

/**
 * A network in memory, scripted answer by answer: what it stores (by the block's idempotency key),
 * every call it got, and lookups that find what it stored. Without `lookup`, the network offers no
 * way to look a post up (the method is absent, as on such networks).
 */
export class ScriptedNetworkClient implements NetworkClient {
  readonly platform: PlatformId;
  readonly consistencyWindowSeconds: number;
  /** What the network holds, by idempotency key. */
  readonly stored = new Map<string, { remote: RemoteBlock; input: PublishBlockInput }>();
  readonly publishCalls: PublishBlockInput[] = [];
  readonly lookupCalls: LookupBlockInput[] = [];
  readonly publishAnswers: PublishAnswer[] = [];
  readonly lookupAnswers: LookupAnswer[] = [];
  lookup?: (input: LookupBlockInput) => Promise<RemoteBlock | null>;
  private made = 0;

  constructor({
    platform = 'x',
    consistencyWindowSeconds = 0,
    lookup = true,
  }: { platform?: PlatformId; consistencyWindowSeconds?: number; lookup?: boolean } = {}) {
    this.platform = platform;
    this.consistencyWindowSeconds = consistencyWindowSeconds;
    if (lookup) this.lookup = (input) => this.find(input);
  }

  /** Queues answers for the next publish calls, in order. */
  answer(...answers: PublishAnswer[]): this {
    this.publishAnswers.push(...answers);
    return this;
  }

  /** Queues answers for the next lookups, in order. */
  answerLookups(...answers: LookupAnswer[]): this {
    this.lookupAnswers.push(...answers);
    return this;
  }

  async publish(input: PublishBlockInput): Promise<RemoteBlock> {
    this.publishCalls.push(input);
    return this.play(input, this.publishAnswers.shift() ?? { kind: 'ok' });
  }

  async edit(input: EditBlockInput): Promise<void> {
    const entry = [...this.stored.values()].find((s) => s.remote.remoteId === input.block.remoteId);
    if (!entry) throw new NetworkError('permanent', 'No such post');
    entry.input = { ...entry.input, content: input.content };
  }

  async delete(input: DeleteBlockInput): Promise<void> {
    for (const [key, entry] of this.stored) {
      if (entry.remote.remoteId === input.block.remoteId) this.stored.delete(key);
    }
  }

  private async play(input: PublishBlockInput, answer: PublishAnswer): Promise<RemoteBlock> {
    switch (answer.kind) {
      case 'ok':
        return this.store(input);
      case 'error':
        throw answer.error;
      case 'lost':
        if (answer.stored) this.store(input);
        throw new NetworkError('transient', 'socket hang up', { outcomeUnknown: true });
      case 'held': {
        const remote = this.store(input);
        await answer.release;
        return remote;
      }
      case 'upload':
        await input.progress?.save(answer.state);
        return this.play(input, answer.after);
    }
  }

  private store(input: PublishBlockInput): RemoteBlock {
    const existing = this.stored.get(input.idempotencyKey);
    if (existing) return existing.remote;
    this.made++;
    const remoteId = `${this.platform}-${this.made}`;
    const remote = { remoteId, remoteUrl: `https://${this.platform}.example/${remoteId}`, meta: {} };
    this.stored.set(input.idempotencyKey, { remote, input });
    return remote;
  }

  private async find(input: LookupBlockInput): Promise<RemoteBlock | null> {
    this.lookupCalls.push(input);
    const answer = this.lookupAnswers.shift() ?? { kind: 'search' };
    if (answer.kind === 'error') throw answer.error;
    if (answer.kind === 'hidden') return null;
    return this.stored.get(input.idempotencyKey)?.remote ?? null;
  }
}
