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
}
