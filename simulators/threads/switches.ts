import type { Simulator } from '../framework/framework.ts';
import { WINDOW_MS } from './limits.ts';
import type { threadsOAuthSimulator } from './oauth.ts';
import type { SimThreadsPost } from './records.ts';

export interface ThreadsSwitches {
  /** Posts per moving 24 hours (Threads: 250). */
  postQuota: number;
  /** Replies per moving 24 hours (Threads: 1,000). */
  replyQuota: number;
  /** Deletes per moving 24 hours (Threads: 100). */
  deleteQuota: number;
  /** How long an image container stays IN_PROGRESS (ms). */
  imageProcessingMs: number;
  /** How long a video container stays IN_PROGRESS (ms). */
  videoProcessingMs: number;
  /** The next video containers end ERROR with this message (e.g. `FAILED_PROCESSING_VIDEO`); null: none. */
  videoFailure: string | null;
  /** How long an unpublished container lives (ms; Threads: 24 hours). */
  containerLifetimeMs: number;
}

export const DEFAULT_SWITCHES: ThreadsSwitches = {
  postQuota: 250,
  replyQuota: 1000,
  deleteQuota: 100,
  imageProcessingMs: 150,
  videoProcessingMs: 1200,
  videoFailure: null,
  containerLifetimeMs: WINDOW_MS,
};

export interface ThreadsSimulatorOptions {
  port?: number;
  holdMs?: number;
  oauth?: Parameters<typeof threadsOAuthSimulator>[0];
  switches?: Partial<ThreadsSwitches>;
}

export interface ThreadsSimulator extends Simulator {
  posts(): SimThreadsPost[];
  setSwitches(switches: Partial<ThreadsSwitches> & { expireContainers?: boolean }): void;
}
