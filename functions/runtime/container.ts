/**
 * Every part at once: for the local runtime (seeding, the scheduler's ticker), the operator CLI,
 * the benchmarks and the tests. No function's bundle imports this module: each composes only the
 * parts it uses (compose.ts).
 */
import { type Composed, compose, override, reset } from './compose.ts';
import { blobs } from './parts/blobs.ts';
import { cipher } from './parts/cipher.ts';
import { connectStates } from './parts/connect-states.ts';
import { idempotency } from './parts/idempotency.ts';
import { media } from './parts/media.ts';
import { mediaUrls } from './parts/media-urls.ts';
import { metrics } from './parts/metrics.ts';
import { networkAuth } from './parts/network-auth.ts';
import { networks } from './parts/networks.ts';
import { outbound } from './parts/outbound.ts';
import { posts } from './parts/posts.ts';
import { publishing } from './parts/publishing.ts';
import { queues } from './parts/queues.ts';
import { scheduler } from './parts/scheduler.ts';
import { tokens } from './parts/tokens.ts';
import { usage } from './parts/usage.ts';
import { webhookSender } from './parts/webhook-sender.ts';
import { webhooks } from './parts/webhooks.ts';

export { decorateAdapters } from './compose.ts';

const allParts = [
  posts,
  media,
  blobs,
  mediaUrls,
  queues,
  scheduler,
  cipher,
  networkAuth,
  connectStates,
  tokens,
  networks,
  webhooks,
  webhookSender,
  outbound,
  metrics,
  publishing,
  usage,
  idempotency,
] as const;

/** Everything the use cases depend on: the base and every part. */
export type Deps = Composed<typeof allParts>;

let everything: Deps | undefined;

/** The process-wide dependencies: every part, each built on first use and reused. */
export const getDeps = (): Deps => {
  everything ??= compose(...allParts);
  return everything;
};

/** Replaces some dependencies (tests, or the local runtime's clock); returns a function that restores them. */
export const overrideDeps = (partial: Partial<Deps>): (() => void) => override(partial);

/** Forgets the built dependencies so the next use reads the environment again. */
export const resetDeps = (): void => reset();
