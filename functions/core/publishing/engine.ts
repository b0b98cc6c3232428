/**
 * The publishing engine's entry point: the engine (job.ts) and what other modules use of its
 * parts. Each part is its own file in this folder.
 */
export {
  DEFAULT_PUBLISHING_SETTINGS,
  type EngineChannels,
  type EnginePosts,
  type EngineTags,
  inFlightGraceFor,
  type PublishingDeps,
  type PublishingSettings,
} from './deps.ts';
export { PublishingEngine } from './job.ts';
export {
  finalStatus,
  type HeldPost,
  mutatePost,
  PostGoneError,
  PostLocks,
  startRound,
} from './post-mutation.ts';
export { DEFAULT_RATE_LIMIT_PROBE_SECONDS, MAX_QUEUE_DELAY_SECONDS } from './retry-policy.ts';
