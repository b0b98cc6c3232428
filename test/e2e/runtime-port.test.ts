/**
 * The HTTP port asked for is held from the moment it is found free until the HTTP server listens on
 * it: DynamoDB Local, the simulators and the queues all ask the kernel for free ports while the
 * runtime starts, and one of them was once handed the very port `npm start` was about to listen on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { LocalLog } from '../../functions/adapters/local/console-log.ts';
import { freePort } from '../../functions/adapters/local/dynamodb-local.ts';
import { type LocalRuntime, startLocalRuntime } from '../../functions/adapters/local/runtime.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'herald-runtime-port-'));
let runtime: LocalRuntime | undefined;

afterAll(async () => {
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Whether this process can listen on `port` at 127.0.0.1 right now (and lets it go at once). */
const canListen = (port: number): Promise<boolean> =>
  new Promise((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => done(true)));
  });

describe('the local runtime holds its HTTP port while it starts', () => {
  it('refuses anyone else the port between the check and the listen, then serves on it', async () => {
    const port = await freePort();
    const probes: boolean[] = [];
    let probing = false;
    let probeLoop: Promise<void> | undefined;
    const log: LocalLog = {
      level: 'info',
      debug: () => undefined,
      // The simulators are up once the port has been checked, and well before the HTTP server
      // loads every route's module and listens: from that line on, nobody else may listen there.
      info: (line) => {
        if (probeLoop || !line.includes('network simulators ready')) return;
        probing = true;
        probeLoop = (async () => {
          while (probing) {
            probes.push(await canListen(port));
            await new Promise((r) => setTimeout(r, 2));
          }
        })();
      },
      warn: () => undefined,
      error: () => undefined,
    };
    runtime = await startLocalRuntime({
      dataDir,
      port,
      dynamoEndpoint: inject('dynamoEndpoint'),
      tableName: `herald-runtime-port-${process.pid}`,
      log,
    });
    probing = false;
    await probeLoop;
    expect(runtime.port).toBe(port);
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.filter(Boolean)).toEqual([]);
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
  });
});
