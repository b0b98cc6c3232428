import type { ApiKeyRecord } from './accounts.ts';

/** The state of a subject's rate-limit window after counting one request. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  allowed: boolean;
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
}
