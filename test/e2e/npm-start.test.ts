import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { collectOutput } from '../support/child-output.ts';
import { checkResponsesFrom } from '../support/contract.ts';
import { cognitoCall } from '../support/users.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'herald-start-'));
let child: ChildProcess | undefined;

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

// Metrics at 3600x, as docs/metrics.md's "Fast metrics locally" starts it (the banner says so).
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  PORT: '0',
  POWERTOOLS_LOG_LEVEL: 'ERROR',
  METRICS_TIME_SCALE: '3600',
};
const admin = async (args: string[], extra: Record<string, string> = {}) => {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args], {
    cwd: ROOT,
    env: { ...env, ...extra },
  });
  return JSON.parse(stdout);
};

describe('npm start and npm run admin', () => {
  it('starts the whole service, prints the keys and the listening line, serves the operator CLI, and stops every child on Ctrl-C', async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = collectOutput(child);
    const deadline = Date.now() + 60_000;
    let match: RegExpMatchArray | null = null;
    while (!match && Date.now() < deadline) {
      match = /Herald listening on http:\/\/localhost:(\d+)\/v1/.exec(output());
      if (child.exitCode !== null) throw new Error(`npm start exited: ${output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(match, output()).not.toBeNull();
    const base = `http://localhost:${match?.[1]}`;
    // The child's answers are checked against the OpenAPI document too.
    checkResponsesFrom(base);
    const seed = JSON.parse(readFileSync(join(dataDir, 'seed.json'), 'utf8'));
    expect(output()).toContain(seed.keys.live);
    expect(output()).toContain(seed.keys.test);
    // The dashboard and its owner's sign-in, beside the keys.
    expect(output()).toContain(`Dashboard: ${base}/dashboard/`);
    expect(output()).toContain(seed.owner.email);
    expect(output()).toContain(seed.owner.password);
    expect(output()).toContain(
      'Metrics at 3600x the real pace (METRICS_TIME_SCALE=3600): an hour of the cadence lasts 1 s, ' +
        "and a post's last reading (day 28) comes 11 min after it goes live; due readings are handed out every 1 s.",
    );
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const channels = await fetch(`${base}/v1/channels`, { headers: { 'x-api-key': seed.keys.live } });
    expect(channels.status).toBe(200);

    const account = await admin(['create-account', '--name', 'Ops', '--plan', 'free']);
    const ws = await admin(['create-workspace', '--account', account.accountId, '--name', 'Ops WS']);
    const key = await admin([
      'create-key',
      '--account',
      account.accountId,
      '--workspace',
      ws.workspaceId,
      '--permission',
      'read',
    ]);
    expect(key.secret).toMatch(/^sk_live_/);
    const channel = await admin(
      [
        'connect-channel',
        '--account',
        account.accountId,
        '--workspace',
        ws.workspaceId,
        '--platform',
        'bluesky',
        '--name',
        'Ops Bsky',
        '--remote-id',
        'did:plc:opsbsky',
      ],
      { HERALD_CHANNEL_TOKEN: 'secret-token-value' },
    );
    expect(JSON.stringify(channel)).not.toContain('secret-token-value');
    await admin([
      'create-tag',
      '--account',
      account.accountId,
      '--workspace',
      ws.workspaceId,
      '--name',
      'Ops tag',
    ]);
    await admin(['set-plan', '--account', account.accountId, '--plan', 'growth']);
    const listed: any = await (
      await fetch(`${base}/v1/channels`, { headers: { 'x-api-key': key.secret } })
    ).json();
    expect(listed.data.map((c: { name: string }) => c.name)).toEqual(['Ops Bsky']);
    const usage: any = await (
      await fetch(`${base}/v1/usage`, { headers: { 'x-api-key': key.secret } })
    ).json();
    expect(usage.plan).toBe('growth');
    const refused = await fetch(`${base}/v1/tags`, {
      method: 'POST',
      headers: { 'x-api-key': key.secret, 'content-type': 'application/json' },
      body: '{"name":"x"}',
    });
    expect(refused.status).toBe(403);

    // create-owner: a person of the new account, with a temporary password the first sign-in replaces.
    const owner = await admin(['create-owner', '--email', 'ops@example.com', '--account', account.accountId]);
    expect(owner).toMatchObject({ email: 'ops@example.com', accountId: account.accountId, temporary: true });
    const runtimeInfo = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8'));
    const pool = runtimeInfo.cognito;
    const first = await cognitoCall(pool, 'InitiateAuth', {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: pool.clientId,
      AuthParameters: { USERNAME: 'ops@example.com', PASSWORD: owner.temporaryPassword },
    });
    expect(first.body.ChallengeName).toBe('NEW_PASSWORD_REQUIRED');
    const answered = await cognitoCall(pool, 'RespondToAuthChallenge', {
      ChallengeName: 'NEW_PASSWORD_REQUIRED',
      ClientId: pool.clientId,
      Session: first.body.Session,
      ChallengeResponses: { USERNAME: 'ops@example.com', NEW_PASSWORD: 'Ops-New-Passw0rd!' },
    });
    expect(answered.body.AuthenticationResult?.AccessToken).toEqual(expect.any(String));
    // The seeded owner signs in with the printed password.
    const seeded = await cognitoCall(pool, 'InitiateAuth', {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: pool.clientId,
      AuthParameters: { USERNAME: seed.owner.email, PASSWORD: seed.owner.password },
    });
    expect(seeded.body.AuthenticationResult?.AccessToken).toEqual(expect.any(String));

    child.kill('SIGINT');
    const code = await new Promise<number | null>((done) => child?.once('exit', (c) => done(c)));
    expect(code).toBe(0);
    // DynamoDB Local (java) went with it: its port no longer answers.
    await expect(fetch(runtimeInfo.dynamoEndpoint, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
    await expect(fetch(`${base}/health`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
    // The Cognito emulator went with it.
    await expect(fetch(`${pool.endpoint}/health`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
  }, 120_000);
});
