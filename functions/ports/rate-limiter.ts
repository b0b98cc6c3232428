import type { ApiKeyRecord } from './api-keys.ts';

/** The state of a subject's rate-limit window after counting one request. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  allowed: boolean;
}

/** An API key's item as a read found it: the key, and its rate-limit window (null: never counted). */
export interface KeyWindowRead {
  key: ApiKeyRecord;
  window: number | null;
  count: number;
}

/**
 * One request's count in its key's window, made by the request's own write instead of a write of
 * its own (see PostStore.create): that write adds one to the key's count on the condition that the
 * key is still there with this secret hash, its window is still `window` and its count is below
 * `limit`, so concurrent requests can never pass the limit. The write marks it `counted` once it
 * has succeeded; until then the request is not counted.
 */
export interface KeyCount {
  secretHash: string;
  /** Start (epoch seconds) of the window the count goes into. */
  window: number;
  limit: number;
  /** The request's time (ISO): the key's `lastUsedAt` once counted. */
  usedAt: string;
  counted: boolean;
}

/**
 * The write that carried a KeyCount was refused because of the key's condition (the key is gone,
 * its window moved on, or its count reached the limit meanwhile), or kept colliding with other
 * transactions: nothing of that write was made, and the request is not counted.
 */
export class KeyCountRefusedError extends Error {
  constructor() {
    super("The request could not be counted in its key's window by the write that carried the count");
    this.name = 'KeyCountRefusedError';
  }
}

/** Counts requests per subject (an API key, or a client address when no key was accepted) per minute. */
export interface RateLimiter {
  hit(subject: string, now: Date): Promise<RateLimitState>;
  /**
   * Finds the API key stored under `secretHash` and counts one request against it, in one write
   * (the key's window lives on the key's own item); null when no key has this hash, and then
   * nothing is counted or stored.
   */
  hitKey(secretHash: string, now: Date): Promise<{ key: ApiKeyRecord; rate: RateLimitState } | null>;
  /**
   * For a key item read just now: the count a write of the request can carry (see KeyCount) and
   * the state the request then answers with, when the read shows the current window with room
   * left; null otherwise (a new window to start, a window of another clock, the limit reached),
   * and the request is counted by `hitKey`. No call is made.
   */
  planKeyCount(read: KeyWindowRead, now: Date): { count: KeyCount; rate: RateLimitState } | null;
}
