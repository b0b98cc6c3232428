import type { OptionValue } from '../core/posts/model.ts';
import type { PlatformId } from '../platforms/types.ts';

/** What a network client needs to act as a connected channel. */
export interface NetworkCredentials {
  /** Decrypted access token; never logged. */
  accessToken: string;
  /** The network-side account (handle, DID, person URN...). */
  remoteAccountId: string;
}

/** A published block as the network identifies it. */
export interface RemoteBlock {
  remoteId: string;
  remoteUrl: string;
  /** Extra network references the engine keeps and hands back (e.g. Bluesky's `uri` and `cid`). */
  meta: Record<string, string>;
}

export interface MediaForNetwork {
  mediaId: string;
  mimeType: string;
  size: number;
  altText: string | null;
  /** A presigned GET URL the client may download from or hand to the network. */
  url: string;
}

export interface PublishBlockInput {
  credentials: NetworkCredentials;
  content: string;
  media: MediaForNetwork[];
  /** Channel-level fields, given with the first block. */
  title: string | null;
  postType: string | null;
  options: Record<string, OptionValue>;
  /**
   * null for the first block. Otherwise the block to attach to: on `reply` networks the previous
   * block (with `root` the first block), on `comment` networks the first block.
   */
  parent: { block: RemoteBlock; root: RemoteBlock } | null;
  /** Stable for this block of this post across every attempt: networks that take a client key use it, so a lost answer can be looked up. */
  idempotencyKey: string;
  /** 1 on the first publication of the post, 2 on the first retry (POST /posts/{id}/publish), ... */
  round: number;
}

export interface EditBlockInput {
  credentials: NetworkCredentials;
  block: RemoteBlock;
  content: string;
  /** Only on networks whose `remoteEdit` includes them; first block only. */
  title?: string | null;
  options?: Record<string, OptionValue>;
}

export interface DeleteBlockInput {
  credentials: NetworkCredentials;
  block: RemoteBlock;
}

export interface LookupBlockInput {
  credentials: NetworkCredentials;
  idempotencyKey: string;
  content: string;
  parent: PublishBlockInput['parent'];
  /** The send was attempted after this time. */
  since: Date;
}

/**
 * How a network error is to be handled:
 * - `transient`: try again later (5xx, 429, a timeout before anything was sent);
 * - `permanent`: the network refused this content; the channel fails with `message`;
 * - `reconnect`: the token is expired or revoked; the channel must be reconnected.
 */
export type NetworkErrorKind = 'transient' | 'permanent' | 'reconnect';

export class NetworkError extends Error {
  constructor(
    readonly kind: NetworkErrorKind,
    message: string,
    readonly details: {
      /** HTTP status of the network's answer, when there was one. */
      status?: number;
      /** Seconds the network asked us to wait (429 Retry-After, rate-limit reset). */
      retryAfterSeconds?: number;
      /** true when the request may have been accepted although no answer came (timeout after sending, connection reset). */
      outcomeUnknown?: boolean;
    } = {},
  ) {
    super(message);
    this.name = 'NetworkError';
  }
}

/** One network's API as the publishing engine uses it. Every method throws `NetworkError` on failure. */
export interface NetworkClient {
  readonly platform: PlatformId;
  publish(input: PublishBlockInput): Promise<RemoteBlock>;
  edit(input: EditBlockInput): Promise<void>;
  delete(input: DeleteBlockInput): Promise<void>;
  /**
   * Finds a block whose publication outcome was lost: the block, or null when the network
   * certainly does not have it. Absent on networks that offer no way to look a post up.
   */
  lookup?(input: LookupBlockInput): Promise<RemoteBlock | null>;
}

/** Content tokens that pick an outcome in the sandbox and on the simulators (documented in the README). */
export const SIM_TOKENS = ['sim:fail-once', 'sim:fail', 'sim:flaky', 'sim:reconnect', 'sim:timeout'] as const;
export type SimToken = (typeof SIM_TOKENS)[number];

/** The token a block's content carries, if any (`sim:fail-once` is not `sim:fail`). */
export const simTokenOf = (content: string): SimToken | null => {
  for (const token of SIM_TOKENS) {
    if (new RegExp(`(^|\\s)${token.replace(/[-:]/g, '\\$&')}(?=\\s|$)`).test(content)) return token;
  }
  return null;
};
