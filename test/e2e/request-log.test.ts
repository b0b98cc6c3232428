/**
 * "The requestId finds it in the logs": every request leaves one line with its method, path,
 * status, duration and request id, readable locally and as Powertools JSON from the handler (the
 * line AWS keeps), and never a key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';

// The handlers' Powertools logger at its AWS default, INFO (the suite runs it at ERROR). It reads
// the level when it is built, and goes back to it after each invocation.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});

import type { LocalLog } from '../../functions/adapters/local/console-log.ts';
import { type LocalRuntime, startLocalRuntime } from '../../functions/adapters/local/runtime.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'herald-request-log-'));
const lines: { level: string; line: string }[] = [];
const capture = (level: string) => (line: string) => {
  lines.push({ level, line });
};
const log: LocalLog = {
  level: 'info',
  debug: capture('debug'),
  info: capture('info'),
  warn: capture('warn'),
  error: capture('error'),
};
let runtime: LocalRuntime;
let stdout: string[] = [];

beforeAll(async () => {
  runtime = await startLocalRuntime({
    dataDir,
    port: 0,
    dynamoEndpoint: inject('dynamoEndpoint'),
    tableName: `herald-request-log-${process.pid}`,
    rateLimitPerMinute: 100_000,
    log,
  });
  const write = process.stdout.write.bind(process.stdout) as (chunk: string | Uint8Array) => boolean;
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout.push(String(chunk));
    return write(chunk);
  });
});

afterAll(async () => {
  vi.restoreAllMocks();
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The request's local line and its Powertools JSON line, found by the X-Request-Id it was answered with. */
const logsOf = async (res: Response) => {
  const requestId = res.headers.get('x-request-id') as string;
  expect(requestId).toMatch(/^req_/);
  // The local line is written when the answer has been sent: wait for it rather than race it.
  for (let i = 0; i < 50 && !lines.some((l) => l.line.endsWith(requestId)); i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const local = lines.filter((l) => l.line.includes(requestId));
  const json = stdout
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.includes(requestId))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.message === 'request');
  return { requestId, local, json };
};

describe('one log line per request', () => {
  it('answered, refused and unknown routes each leave one local line and one JSON line with the same fields', async () => {
    stdout = [];
    const keys = runtime.seed.keys;
    const cases = [
      {
        res: await fetch(`${runtime.baseUrl}/channels?limit=5`, { headers: { 'x-api-key': keys.live } }),
        method: 'GET',
        path: '/v1/channels',
        status: 200,
      },
      {
        res: await fetch(`${runtime.baseUrl}/tags?token=secret-in-query`, {
          method: 'POST',
          headers: { authorization: `Bearer ${keys.read}`, 'content-type': 'application/json' },
          body: '{"name":"x"}',
        }),
        method: 'POST',
        path: '/v1/tags',
        status: 403,
      },
      {
        res: await fetch(`${runtime.baseUrl}/nowhere`, { headers: { 'x-api-key': keys.live } }),
        method: 'GET',
        path: '/v1/nowhere',
        status: 404,
      },
      {
        res: await fetch(`${runtime.baseUrl}/channels`, {
          headers: { 'x-api-key': 'sk_live_not_a_real_key' },
        }),
        method: 'GET',
        path: '/v1/channels',
        status: 401,
      },
    ];
    for (const { res, method, path, status } of cases) {
      expect(res.status).toBe(status);
      const { requestId, local, json } = await logsOf(res);
      expect(local).toHaveLength(1);
      expect(local[0]?.level).toBe('info');
      expect(local[0]?.line).toMatch(new RegExp(`^${method} ${path} ${status} \\d+ms ${requestId}$`));
      expect(json).toHaveLength(1);
      expect(json[0]).toMatchObject({ level: 'INFO', message: 'request', method, path, status, requestId });
      expect(json[0]?.durationMs).toEqual(expect.any(Number));
    }
    const everything = [...lines.map((l) => l.line), ...stdout].join('\n');
    for (const secret of [keys.live, keys.read, 'sk_live_not_a_real_key', 'secret-in-query']) {
      expect(everything).not.toContain(secret);
    }
  });
});
