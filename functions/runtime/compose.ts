/**
 * Composition per capability. Each function (a route or a worker) names the parts it uses with
 * `compose(...)`, so its bundle holds only those parts' adapters and SDK clients: a read route
 * carries no S3, KMS, SQS, Scheduler or network client. The choice is made at build time, by
 * what the function's module imports.
 *
 * A function sees the base (clock, table, rate limit and settings) and its parts, nothing else: a
 * capability it did not compose is a compile error, and absent at run time, locally as on AWS.
 * Each part is built once per container (one per process on AWS, one per local runtime), on
 * first use, and shared by every view that names it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KMSClient } from '@aws-sdk/client-kms';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { createDocumentClient, type TableRef } from '../adapters/aws/dynamo/client.ts';
import { DynamoRateLimiter } from '../adapters/aws/dynamo/rate-limits.ts';
import { inFlightGraceFor, type PublishingSettings } from '../core/publishing/engine.ts';
import type { AppCredentials } from '../ports/app-credentials.ts';
import { type Clock, systemClock } from '../ports/clock.ts';
import type { MediaRecord } from '../ports/media.ts';
import type { RateLimiter } from '../ports/rate-limiter.ts';
import type { Scheduler } from '../ports/scheduler.ts';
import type { TokenCipher } from '../ports/token-cipher.ts';
import { ENV, env, withEnvironment } from '../shared/env.ts';

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

/** What a container reads its environment from and puts around its adapters. */
export interface ContainerOptions {
  /**
   * The environment its parts are built from and its invocations read (`env`), instead of the
   * process's: the local runtime's queue URLs, table and endpoints. Default: the process's, read
   * live (AWS, bin/ scripts).
   */
  environment?: Readonly<Record<string, string | undefined>>;
  decorators?: AdapterDecorators;
}

/**
 * The parts built for one runtime instance, with its decorators, overrides and environment.
 *
 * Why the views find their container through AsyncLocalStorage rather than handler factories
 * (`makeHandler(container)`): on AWS a Lambda process is one function whose module-scope
 * `compose(...)` is its init, built once and reused by every invocation; factories would change
 * every handler module and the bundle's entry shape for a need only the local runtime has (several
 * functions, and in tests several runtimes, in one process). So the modules stay as they are, and
 * the local runtime runs each invocation (HTTP, queue batches, scheduler ticks, sweeps, recovery)
 * inside `container.run`; a view reads the container of the code that reads it, and outside any
 * run the process's default container (AWS, bin/ scripts). A runtime cannot reach another's parts:
 * each part's builder, and each `lazy` value, runs inside its own container, whatever the caller's.
 */
export class Container {
  readonly decorators: AdapterDecorators;
  readonly environment: Readonly<Record<string, string | undefined>> | undefined;
  /** The fields of every part built in this container (and any override in place). */
  private readonly values: Record<string, unknown> = {};
  private readonly built = new Set<Part>();
  private readonly building = new Set<Part>();
  private readonly kit: BuildKit;

  constructor(options: ContainerOptions = {}) {
    this.decorators = options.decorators ?? {};
    this.environment = options.environment;
    const decorators = this.decorators;
    this.kit = {
      decorated: (client) => {
        decorators.awsClient?.(client);
        return client;
      },
      decorators,
      lazy: <T>(make: () => T) => {
        let value: T | undefined;
        return () => {
          value ??= this.run(make);
          return value;
        };
      },
    };
  }

  /** Runs `fn` as this container's: every view read inside it, however deep, reads this container. */
  run<T>(fn: () => T): T {
    const inScope = () => current.run(this, fn);
    return this.environment ? withEnvironment(this.environment, inScope) : inScope();
  }

  /** The base and `parts`, bound to this container whoever reads them (tests, seeding, the scheduler). */
  compose<const Ps extends readonly Part[]>(...parts: Ps): Composed<Ps> {
    return view(parts, () => this) as Composed<Ps>;
  }

  /** Replaces some built fields (tests); returns a function that restores them. */
  override(partial: Record<string, unknown>): () => void {
    const previous: Record<string, unknown> = {};
    for (const key of Object.keys(partial)) {
      const owner = owners.get(key);
      if (!owner) throw new Error(`No part provides ${key}`);
      this.ensure(owner);
      previous[key] = this.values[key];
    }
    Object.assign(this.values, partial);
    return () => {
      Object.assign(this.values, previous);
    };
  }

  /** The value of `key`, provided by `p`, built on first use. */
  read(p: Part, key: string): unknown {
    this.ensure(p);
    return this.values[key];
  }

  private ensure(p: Part): void {
    if (this.built.has(p)) return;
    if (this.building.has(p)) throw new Error(`The part ${p.name} needs itself`);
    this.building.add(p);
    try {
      for (const need of p.needs) this.ensure(need);
      const made = this.run(() => p.build(p === base ? {} : view(p.needs, () => this), this.kit)) as Record<
        string,
        unknown
      >;
      const extra = Object.keys(made).filter((key) => !p.keys.includes(key));
      const missing = p.keys.filter((key) => !(key in made));
      if (extra.length > 0 || missing.length > 0) {
        throw new Error(`The part ${p.name} built [${Object.keys(made)}], not its keys [${p.keys}]`);
      }
      Object.assign(this.values, made);
      this.built.add(p);
    } finally {
      this.building.delete(p);
    }
  }
}

/** The container of the invocation running here (Container.run). */
const current = new AsyncLocalStorage<Container>();
let processDefault: Container | undefined;

/** The container code running here uses: its runtime's, else the process's (AWS, bin/ scripts). */
const currentContainer = (): Container => {
  const running = current.getStore();
  if (running) return running;
  processDefault ??= new Container();
  return processDefault;
};

const view = (parts: readonly Part[], container: () => Container): object => {
  const out: Record<string, unknown> = {};
  for (const p of [base as Part, ...parts]) {
    for (const key of p.keys) {
      Object.defineProperty(out, key, {
        enumerable: true,
        get: () => container().read(p, key),
      });
    }
  }
  return Object.freeze(out);
};

/**
 * The dependencies of a function that uses `parts`: the base and those parts' fields, each built
 * on first use. Call it once at module scope (a Lambda's init); the view reads the container of
 * the invocation reading it (the process's on AWS), so each local runtime's handlers see its own.
 */
export const compose = <const Ps extends readonly Part[]>(...parts: Ps): Composed<Ps> =>
  view(parts, currentContainer) as Composed<Ps>;

/**
 * What every function uses: the clock, the table, the rate limit (which finds a request's API key
 * by its hash), and the product's settings. The stores of accounts, channels, tags and the rest
 * are parts, composed by the functions that use them.
 */
export const base: Part<BaseDeps> = part({
  name: 'base',
  keys: ['clock', 'table', 'dynamo', 'rateLimiter', 'settings'],
  build: (_deps, { decorated }): BaseDeps => {
    // A claim must outlast any request made under it, or a live send could look abandoned.
    if (env.publishLeaseSeconds * 1000 <= env.networkTimeoutMs * 2) {
      throw new Error(`${ENV.publishLeaseSeconds} must be more than twice ${ENV.networkTimeoutMs}`);
    }
    // The document client shares the plain client's middleware, so decorating one covers both.
    const dynamo = new DynamoDBClient(env.awsEndpoint('DYNAMODB'));
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
      inFlightGraceSeconds: inFlightGraceFor(env.networkTimeoutMs),
      scheduleLeadSeconds: env.scheduleLeadSeconds,
      postSweepAfterSeconds: env.postSweepAfterSeconds,
    };
    return {
      clock: systemClock,
      table,
      dynamo,
      rateLimiter: new DynamoRateLimiter(table, env.rateLimitPerMinute),
      settings,
    };
  },
});
