import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { LocalLog } from '../../functions/adapters/local/console-log.ts';
import { type LocalRuntime, startLocalRuntime } from '../../functions/adapters/local/runtime.ts';
import type { Grant } from '../../functions/shared/grants.ts';
import { checkResponsesFrom } from './contract.ts';

export interface ApiCall {
  key?: string | null;
  method?: string;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** `manual`: a redirect is the answer (as a browser's first hop sees it), not followed. */
  redirect?: 'follow' | 'manual';
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestRuntime extends LocalRuntime {
  dataDir: string;
  api<T = any>(path: string, call?: ApiCall): Promise<ApiResponse<T>>;
  /** Stops the runtime and removes its data directory. */
  destroy(): Promise<void>;
}

let tables = 0;

/** The whole local runtime on a free port, sharing the run's DynamoDB Local with a table of its own. */
export const startTestRuntime = async (
  options: {
    rateLimitPerMinute?: number;
    dataDir?: string;
    tableName?: string;
    env?: Record<string, string>;
    /** Grants that replace some functions' manifest grants (see LocalRuntimeOptions). */
    grantOverrides?: Record<string, Grant[]>;
    /** Start-up progress and one line per request (default: nothing). */
    log?: LocalLog;
  } = {},
): Promise<TestRuntime> => {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'herald-test-'));
  const tableName = options.tableName ?? `herald-${process.pid}-${Date.now()}-${tables++}`;
  const runtime = await startLocalRuntime({
    dataDir,
    port: 0,
    dynamoEndpoint: inject('dynamoEndpoint'),
    tableName,
    rateLimitPerMinute: options.rateLimitPerMinute ?? 100_000,
    ...(options.env ? { env: options.env } : {}),
    ...(options.grantOverrides ? { grantOverrides: options.grantOverrides } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  // Every answer of this runtime, to rt.api or to a suite's own fetch, is checked against the document.
  checkResponsesFrom(runtime.url);
  const api = async (path: string, call: ApiCall = {}): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...(call.headers ?? {}) };
    const key = call.key === undefined ? runtime.seed.keys.live : call.key;
    if (key !== null && !headers.authorization) headers['x-api-key'] = key;
    let body: string | Buffer | undefined;
    if (call.rawBody !== undefined) body = call.rawBody;
    else if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] ??= 'application/json';
    }
    const url = path.startsWith('http')
      ? path
      : `${path.startsWith('/v1') || path === '/health' ? runtime.url : runtime.baseUrl}${path}`;
    const res = await fetch(url, {
      method: call.method ?? 'GET',
      headers,
      body,
      ...(call.redirect ? { redirect: call.redirect } : {}),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: the test sees the text
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return {
    ...runtime,
    dataDir,
    api: api as TestRuntime['api'],
    destroy: async () => {
      await runtime.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
};

/** The options a shared runtime may have: the ones that do not name a data directory or a table. */
export type SharedRuntimeOptions = Pick<
  NonNullable<Parameters<typeof startTestRuntime>[0]>,
  'rateLimitPerMinute' | 'env'
>;

const shared = new Map<string, Promise<TestRuntime>>();

/**
 * A runtime shared by the test files this worker runs (the e2e files share their worker's modules),
 * one per set of options: a file that needs no runtime of its own saves the start (about a second)
 * and the table. Its `destroy` leaves it running for the next file; the worker's exit stops it.
 * Files that use it must not depend on what other files did: each works in workspaces of its own
 * (`freshWorkspace`) and finds its posts by their markers, and puts back any override it makes.
 */
export const sharedTestRuntime = (options: SharedRuntimeOptions = {}): Promise<TestRuntime> => {
  const key = JSON.stringify([options.rateLimitPerMinute ?? null, Object.entries(options.env ?? {}).sort()]);
  let started = shared.get(key);
  if (!started) {
    started = startTestRuntime({ ...options, ...(options.env ? { env: { ...options.env } } : {}) });
    shared.set(key, started);
    // The data directory goes with the worker (DynamoDB Local's tables go with the run).
    started.then(
      (rt) => process.once('exit', () => rmSync(rt.dataDir, { recursive: true, force: true })),
      () => shared.delete(key),
    );
  }
  return started.then((rt) => ({ ...rt, destroy: async () => {} }));
};

export const REQUEST_ID = /^req_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
