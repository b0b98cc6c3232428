/**
 * A request made while the local runtime starts is answered at once: 503 `service_unavailable` in
 * the error envelope with `Retry-After`, on 127.0.0.1 and on ::1 alike (`localhost` may resolve to
 * either), from the moment the port is bound until the runtime is up, and 200 from then on. It was
 * once accepted on the held port and never answered. The runtime runs in a child process, so its
 * start-up work cannot hold up this file's own clock.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../functions/adapters/local/dynamodb-local.ts';
import { spawnRuntimeChild } from '../support/child-runtime.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'herald-starting-'));
let child: ChildProcess | undefined;

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

type Outcome =
  | { kind: 'answered'; status: number; ms: number; headers: Record<string, unknown>; body: string }
  | { kind: 'refused' | 'no answer' | 'failed'; ms: number; detail: string };

/** One request on a connection of its own, given one second to be answered. */
const probe = (host: string, port: number, path: string): Promise<Outcome> =>
  new Promise((done) => {
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    const req = request({ host, port, path, agent: false, timeout: 1000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () =>
        done({ kind: 'answered', status: res.statusCode ?? 0, ms: ms(), headers: res.headers, body }),
      );
    });
    req.on('timeout', () => {
      req.destroy();
      done({ kind: 'no answer', ms: ms(), detail: `${path} not answered within 1 s` });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') done({ kind: 'refused', ms: ms(), detail: error.code });
      else done({ kind: 'failed', ms: ms(), detail: error.code ?? error.message });
    });
    req.end();
  });

describe('the local runtime while it starts', () => {
  it('answers every request at once, 503 service_unavailable until it is up and 200 after, on 127.0.0.1 and ::1', async () => {
    const port = await freePort();
    let output: () => string;
    ({ child, output } = spawnRuntimeChild({
      dataDir,
      tableName: `herald-starting-${process.pid}`,
      dynamoEndpoint: inject('dynamoEndpoint'),
      port,
    }));

    const hosts = ['127.0.0.1', '::1'] as const;
    const seen = new Map<string, { path: string; outcome: Outcome }[]>(hosts.map((host) => [host, []]));
    const deadline = Date.now() + 90_000;
    /** Probes one address until its /health says 200 (a route of /v1 is asked too, in turn). */
    const probeUntilUp = async (host: string) => {
      const log = seen.get(host) ?? [];
      for (let i = 0; Date.now() < deadline; i++) {
        if (child?.exitCode !== null) throw new Error(`The runtime exited:\n${output()}`);
        const path = i % 2 === 0 ? '/health' : '/v1/channels';
        const outcome = await probe(host, port, path);
        // Before the port is bound a connection is refused: nothing to answer yet.
        if (outcome.kind === 'refused' && log.length === 0) {
          await new Promise((r) => setTimeout(r, 5));
          continue;
        }
        log.push({ path, outcome });
        if (outcome.kind !== 'answered') return;
        if (path === '/health' && outcome.status === 200) return;
      }
    };
    await Promise.all(hosts.map(probeUntilUp));

    for (const host of hosts) {
      const log = seen.get(host) ?? [];
      const failures = log.filter(({ outcome }) => outcome.kind !== 'answered');
      expect(failures, `${host}: every request after the port was bound is answered`).toEqual([]);
      const answers = log.map(({ path, outcome }) => ({
        path,
        ...(outcome as Outcome & { kind: 'answered' }),
      }));
      const starting = answers.filter((answer) => answer.status === 503);
      // The probes ran while the runtime was starting, on both routes.
      expect(
        starting.map((answer) => answer.path),
        host,
      ).toEqual(expect.arrayContaining(['/health', '/v1/channels']));
      for (const answer of starting) {
        expect(answer.ms, `${host} ${answer.path}`).toBeLessThan(1000);
        expect(answer.headers['retry-after'], `${host} ${answer.path}`).toMatch(/^\d+$/);
        const body = JSON.parse(answer.body);
        expect(body.error).toMatchObject({
          code: 'service_unavailable',
          requestId: expect.stringMatching(/^req_/),
        });
        expect(body.error.message).toEqual(expect.any(String));
      }
      // 503 until up, then up (a /v1 route without a key: 401): nothing else in between.
      for (const answer of answers) {
        expect([503, answer.path === '/health' ? 200 : 401], `${host} ${answer.path}`).toContain(
          answer.status,
        );
      }
      expect(answers.at(-1)).toMatchObject({ path: '/health', status: 200 });
    }
  }, 120_000);
});
