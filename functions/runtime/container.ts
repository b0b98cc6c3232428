/**
 * Every part at once: for the local runtime (seeding, the scheduler's ticker), the operator CLI,
 * the benchmarks and the tests. No function's bundle imports this module: each composes only the
 * parts it uses (compose.ts).
 */
import { type Composed, Container, type ContainerOptions } from './compose.ts';
import { accounts } from './parts/accounts.ts';
import { apiKeys } from './parts/api-keys.ts';
import { blobs } from './parts/blobs.ts';
import { channels } from './parts/channels.ts';
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
import { tags } from './parts/tags.ts';
import { tokens } from './parts/tokens.ts';
import { usage } from './parts/usage.ts';
import { users } from './parts/users.ts';
import { webhookSender } from './parts/webhook-sender.ts';
import { webhooks } from './parts/webhooks.ts';
import { workspaces } from './parts/workspaces.ts';

const allParts = [
  accounts,
  workspaces,
  apiKeys,
  channels,
  tags,
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
  users,
] as const;

/** Everything the use cases depend on: the base and every part. */
export type Deps = Composed<typeof allParts>;

/** A container with every part in view: what a local runtime, a script or a benchmark holds. */
export interface RuntimeContainer {
  /** The base and every part, each built on first use in this container and reused. */
  readonly deps: Deps;
  /** Replaces some dependencies (tests); returns a function that restores them. */
  override(partial: Partial<Deps>): () => void;
  /** Runs `fn` as this container's (its handlers' views, its environment). */
  run<T>(fn: () => T): T;
  /** The variables its functions read (a local runtime's engines and queues); the process's when none was given. */
  readonly environment: Readonly<Record<string, string | undefined>>;
}

/**
 * A container of its own: one per local runtime instance, or for a script (bin/, bench/) that
 * uses the parts without a runtime.
 */
export const createContainer = (options: ContainerOptions = {}): RuntimeContainer => {
  const container = new Container(options);
  return {
    deps: container.compose(...allParts),
    override: (partial) => container.override(partial),
    run: (fn) => container.run(fn),
    environment: options.environment ?? process.env,
  };
};
