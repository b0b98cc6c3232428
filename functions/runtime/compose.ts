/**
 * Composition per capability. Each function (a route or a worker) names the parts it uses with
 * `compose(...)`, so its bundle holds only those parts' adapters and SDK clients: a read route
 * carries no S3, KMS, SQS, Scheduler or network client. The choice is made at build time, by
 * what the function's module imports.
 *
 * A function sees the base (clock, table, keys and rate limit) and its parts, nothing else: a
 * capability it did not compose is a compile error, and absent at run time, locally as on AWS.
 * Each part is built once per process, on first use, and shared by every view that names it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KMSClient } from '@aws-sdk/client-kms';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { dynamoAccountStore } from '../adapters/aws/dynamo/account-store.ts';
import { createDocumentClient, type TableRef } from '../adapters/aws/dynamo/client.ts';
import { DynamoRateLimiter } from '../adapters/aws/dynamo/rate-limits.ts';
import type { PublishingSettings } from '../core/publishing/engine.ts';
import type { AccountStore } from '../ports/accounts.ts';
import type { AppCredentials } from '../ports/app-credentials.ts';
import { type Clock, systemClock } from '../ports/clock.ts';
import type { MediaRecord } from '../ports/media.ts';
import type { RateLimiter } from '../ports/rate-limiter.ts';
import type { Scheduler } from '../ports/scheduler.ts';
import type { TokenCipher } from '../ports/token-cipher.ts';
import { ENV, env } from '../shared/env.ts';

/** An AWS SDK client built by a part. */
export type AwsSdkClient = DynamoDBClient | SQSClient | S3Client | SchedulerClient | KMSClient;

/**
 * What a composition root may put around the adapters the parts choose; the local runtime checks
 * each function's grants with it (adapters/local/grant-guard.ts). AWS needs none: IAM does the checking.
 */
export interface AdapterDecorators {
  /** Called once with every AWS SDK client built by a part, before its first call. */
  awsClient?: (client: AwsSdkClient) => void;
  tokenCipher?: (cipher: TokenCipher) => TokenCipher;
  scheduler?: (scheduler: Scheduler) => Scheduler;
  appCredentials?: (credentials: AppCredentials) => AppCredentials;
  /** The media bucket's presigned GETs, made without an SDK client (parts/media-urls.ts). */
  mediaUrl?: (sign: (record: MediaRecord) => Promise<string>) => (record: MediaRecord) => Promise<string>;
}

/** What a part's builder gets besides its dependencies. */
export interface BuildKit {
  /** Hands an SDK client to the decorators (the local grant guard) and returns it. */
  decorated: <C extends AwsSdkClient>(client: C) => C;
  decorators: AdapterDecorators;
  /** Builds a value on its first call and keeps it. */
  lazy: <T>(make: () => T) => () => T;
}

/** A capability: the fields it provides, the parts it needs, and how it builds them. */
export interface Part<T extends object = object> {
  readonly name: string;
  readonly keys: readonly string[];
  readonly needs: readonly Part[];
  // biome-ignore lint/suspicious/noExplicitAny: each part's builder takes the view of its own needs.
  readonly build: (deps: any, kit: BuildKit) => T;
}

/** The fields one part provides. */
export type Provided<P> = P extends Part<infer T> ? T : never;
type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** What every function uses (the base part). */
export interface BaseDeps {
  clock: Clock;
  table: TableRef;
  /** The client under `table.doc`, for libraries that take a plain DynamoDB client (Powertools Idempotency). */
  dynamo: DynamoDBClient;
  /** API keys, accounts, workspaces, channels and tags. */
  accounts: AccountStore;
  rateLimiter: RateLimiter;
  settings: PublishingSettings & { scheduleLeadSeconds: number; postSweepAfterSeconds: number };
}

/** What a function composed of `Ps` sees: the base and each part's fields. */
export type Composed<Ps extends readonly Part[]> = BaseDeps & Intersection<Provided<Ps[number]>>;

/** Every part defined so far, by the fields it provides (for `override`). */
const owners = new Map<string, Part>();

/**
 * Defines a part. `keys` lists the fields `build` returns (checked when it runs); `build` gets a
 * view of the base and of `needs`, nothing else.
 */
export const part = <
  const K extends string,
  T extends Record<K, unknown>,
  const N extends readonly Part[] = [],
>(spec: {
  name: string;
  keys: readonly K[];
  needs?: N;
  build: (deps: Composed<N>, kit: BuildKit) => T;
}): Part<T> => {
  const defined: Part<T> = { name: spec.name, keys: spec.keys, needs: spec.needs ?? [], build: spec.build };
  for (const key of spec.keys) {
    const other = owners.get(key);
    if (other && other.name !== spec.name)
      throw new Error(`${key} is provided by both ${other.name} and ${spec.name}`);
    owners.set(key, defined);
  }
  return defined;
};

let decorators: AdapterDecorators = {};
/** The fields of every part built in this process (and any override in place). */
let values: Record<string, unknown> = {};
let built = new Set<Part>();
const building = new Set<Part>();

const kit: BuildKit = {
  decorated: (client) => {
    decorators.awsClient?.(client);
    return client;
  },
  get decorators() {
    return decorators;
  },
  lazy: <T>(make: () => T) => {
    let value: T | undefined;
    return () => {
      value ??= make();
      return value;
    };
  },
};

const ensure = (p: Part): void => {
  if (built.has(p)) return;
  if (building.has(p)) throw new Error(`The part ${p.name} needs itself`);
  building.add(p);
  try {
    for (const need of p.needs) ensure(need);
    const made = p.build(p === base ? {} : view(p.needs), kit) as Record<string, unknown>;
    const extra = Object.keys(made).filter((key) => !p.keys.includes(key));
    const missing = p.keys.filter((key) => !(key in made));
    if (extra.length > 0 || missing.length > 0) {
      throw new Error(`The part ${p.name} built [${Object.keys(made)}], not its keys [${p.keys}]`);
    }
    Object.assign(values, made);
    built.add(p);
  } finally {
    building.delete(p);
  }
};

const view = (parts: readonly Part[]): object => {
  const out: Record<string, unknown> = {};
  for (const p of [base as Part, ...parts]) {
    for (const key of p.keys) {
      Object.defineProperty(out, key, {
        enumerable: true,
        get: () => {
          ensure(p);
          return values[key];
        },
      });
    }
  }
  return Object.freeze(out);
};

/**
 * The dependencies of a function that uses `parts`: the base and those parts' fields, each built
 * on first use. Call it once at module scope (a Lambda's init); the view reads the process's
 * current values, so an override (tests) reaches it.
 */
export const compose = <const Ps extends readonly Part[]>(...parts: Ps): Composed<Ps> =>
  view(parts) as Composed<Ps>;

/** Replaces some built fields (tests, the local runtime's clock); returns a function that restores them. */
export const override = (partial: Record<string, unknown>): (() => void) => {
  const previous: Record<string, unknown> = {};
  for (const key of Object.keys(partial)) {
    const owner = owners.get(key);
    if (!owner) throw new Error(`No part provides ${key}`);
    ensure(owner);
    previous[key] = values[key];
  }
  Object.assign(values, partial);
  return () => {
    Object.assign(values, previous);
  };
};

/** Forgets every built part so the next use reads the environment again. */
export const reset = (): void => {
  values = {};
  built = new Set();
};

/** Sets the decorators of every part built from now on (the built ones are forgotten). */
export const decorateAdapters = (next: AdapterDecorators): void => {
  decorators = next;
  reset();
};

/**
 * What every function uses: the clock, the table, API keys and accounts, the rate limit, and the
 * product's settings.
 */
export const base: Part<BaseDeps> = part({
  name: 'base',
  keys: ['clock', 'table', 'dynamo', 'accounts', 'rateLimiter', 'settings'],
  build: (_deps, { decorated }): BaseDeps => {
    // A claim must outlast any request made under it, or a live send could look abandoned.
    if (env.publishLeaseSeconds * 1000 <= env.networkTimeoutMs * 2) {
      throw new Error(`${ENV.publishLeaseSeconds} must be more than twice ${ENV.networkTimeoutMs}`);
    }
    // The document client shares the plain client's middleware, so decorating one covers both.
    const dynamo = new DynamoDBClient({});
    // The SDK's logger middleware filters every call's input and output for a logger that is
    // never configured (its default drops everything): about 0.07 ms of CPU per call for nothing.
    dynamo.middlewareStack.remove('loggerMiddleware');
    decorated(dynamo);
    const table: TableRef = { doc: createDocumentClient(dynamo), tableName: env.tableName };
    const settings: BaseDeps['settings'] = {
      maxTransientAttempts: 5,
      leaseSeconds: env.publishLeaseSeconds,
      retryBaseSeconds: env.publishRetryBaseSeconds,
      rateLimitProbeSeconds: env.publishRateLimitProbeSeconds,
      scheduleLeadSeconds: env.scheduleLeadSeconds,
      postSweepAfterSeconds: env.postSweepAfterSeconds,
    };
    return {
      clock: systemClock,
      table,
      dynamo,
      accounts: dynamoAccountStore(table),
      rateLimiter: new DynamoRateLimiter(table, env.rateLimitPerMinute),
      settings,
    };
  },
});
