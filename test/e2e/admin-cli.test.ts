import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../bin/admin.ts';
import { endpointToItem } from '../../functions/adapters/aws/dynamo/webhooks.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { offEndpoint } from '../support/outbox.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

const ROOT = resolve(import.meta.dirname, '../..');

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime();
});
afterAll(async () => {
  await rt?.destroy();
});

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** The error envelope printed on standard error, when there is one. */
  error?: { code: string; message: string; field?: string };
}

const result = (code: number, stdout: string, stderr: string): CliResult => {
  const line = stderr.split('\n').find((l) => l.startsWith('{"error"'));
  return { code, stdout, stderr, ...(line ? { error: JSON.parse(line).error } : {}) };
};

/**
 * `npm run admin -- <args>` against the running runtime found through DATA_DIR, run in this process
 * (the command's whole code, its output and exit status, without a process start of seconds each).
 */
const admin = async (args: string[], env: Record<string, string> = {}): Promise<CliResult> => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(args, {
    env: { ...process.env, DATA_DIR: rt.dataDir, ...env },
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
  });
  return result(code, stdout, stderr);
};

/** The same as a user runs it: `node --import tsx bin/admin.ts <args>` (what `npm run admin` starts). */
const adminProgram = (args: string[]): Promise<CliResult> =>
  new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'bin/admin.ts', ...args],
      { cwd: ROOT, env: { ...process.env, DATA_DIR: rt.dataDir } },
      (error, stdout, stderr) => {
        done(result(error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr));
      },
    );
  });

/** What the API answers for the same tag body, without the request id. */
const apiTagError = async (body: unknown) => {
  const res = await rt.api('/v1/tags', { method: 'POST', body });
  expect(res.status).toBeGreaterThanOrEqual(400);
  const { requestId: _id, ...error } = res.body.error;
  return error;
};

const tagNames = async () =>
  (await rt.api('/v1/tags')).body.data.map((t: { name: string }) => t.name).sort() as string[];

describe('npm run admin refuses what the API refuses', () => {
  it('create-tag: a colour, a blank name and a duplicate name get the API error, and nothing is created', async () => {
    const account = rt.seed.accountId;
    const workspace = rt.seed.workspaces.main;
    const before = await tagNames();
    const tag = (flags: string[]) =>
      admin(['create-tag', '--account', account, '--workspace', workspace, ...flags]);
    const [red, blank, duplicate] = await Promise.all([
      tag(['--name', 'Red one', '--color', 'red']),
      tag(['--name', '   ']),
      tag(['--name', ' launch ']),
    ]);
    expect(red.code).toBe(1);
    expect(red.error).toEqual(await apiTagError({ name: 'Red one', color: 'red' }));
    expect(red.error).toMatchObject({ code: 'validation_failed', field: 'color' });
    expect(blank.code).toBe(1);
    expect(blank.error).toEqual(await apiTagError({ name: '   ' }));
    expect(duplicate.code).toBe(1);
    expect(duplicate.error?.code).toBe('already_exists');
    expect(duplicate.error).toEqual(await apiTagError({ name: ' launch ' }));
    expect(await tagNames()).toEqual(before);
  }, 180_000);

  it('create-tag in a workspace that does not exist (or is not the account’s) is not_found and writes nothing', async () => {
    const other = await admin(['create-account', '--name', 'Someone else']);
    expect(other.code).toBe(0);
    const [missing, foreign] = await Promise.all([
      admin(['create-tag', '--account', rt.seed.accountId, '--workspace', 'ws_nope', '--name', 'Ghost']),
      admin([
        'create-tag',
        '--account',
        JSON.parse(other.stdout).accountId,
        '--workspace',
        rt.seed.workspaces.main,
        '--name',
        'Ghost',
      ]),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.error).toEqual({
      code: 'not_found',
      message: `Workspace ws_nope does not exist in account ${rt.seed.accountId}.`,
      field: 'workspaceId',
    });
    expect(foreign.code).toBe(1);
    expect(foreign.error?.code).toBe('not_found');
    expect(await rt.container.deps.tags.listTags('ws_nope')).toEqual([]);
    expect(await tagNames()).not.toContain('Ghost');
  }, 180_000);

  it('keys, channels, plans and workspaces: unknown accounts and workspaces are not_found, bad values validation_failed', async () => {
    const account = rt.seed.accountId;
    const workspace = rt.seed.workspaces.main;
    const channelsBefore = (await rt.container.deps.accounts.getAccount(account))?.channelCount;
    const results = await Promise.all([
      admin(['create-key', '--account', account, '--workspace', 'ws_nope']),
      admin(['create-key', '--account', account, '--workspace', workspace, '--mode', 'prod']),
      admin(
        ['connect-channel', '--account', account, '--workspace', workspace, '--platform', 'myspace'].concat([
          '--name',
          'Old',
        ]),
        { HERALD_CHANNEL_TOKEN: 'token' },
      ),
      admin(
        ['connect-channel', '--account', 'acct_nope', '--workspace', workspace, '--platform', 'x'].concat([
          '--name',
          'X',
        ]),
        { HERALD_CHANNEL_TOKEN: 'token' },
      ),
      // A Bluesky channel's remote id is a DID: anything else could never publish.
      admin(
        ['connect-channel', '--account', account, '--workspace', workspace, '--platform', 'bluesky'].concat([
          '--name',
          'My Bluesky',
        ]),
        { HERALD_CHANNEL_TOKEN: 'token' },
      ),
      admin(['set-plan', '--account', account, '--plan', 'gold']),
      admin(['set-plan', '--account', 'acct_nope', '--plan', 'growth']),
      admin(['create-workspace', '--account', 'acct_nope', '--name', 'W']),
      admin(['create-account', '--name', '']),
    ]);
    expect(results.map((r) => [r.code, r.error?.code, r.error?.field])).toEqual([
      [1, 'not_found', 'workspaceId'],
      [1, 'validation_failed', 'mode'],
      [1, 'validation_failed', 'platform'],
      [1, 'not_found', 'accountId'],
      [1, 'validation_failed', 'remoteAccountId'],
      [1, 'validation_failed', 'plan'],
      [1, 'not_found', 'accountId'],
      [1, 'not_found', 'accountId'],
      [1, 'validation_failed', 'name'],
    ]);
    const after = await rt.container.deps.accounts.getAccount(account);
    expect(after?.plan).toBe('starter');
    expect(after?.channelCount).toBe(channelsBefore);
  }, 180_000);

  it('a valid create-tag goes through the same use case: the API lists it (the program, started as npm run admin starts it)', async () => {
    const ok = await adminProgram([
      'create-tag',
      '--account',
      rt.seed.accountId,
      '--workspace',
      rt.seed.workspaces.main,
      '--name',
      '  Ops  ',
      '--color',
      '#1d9bf0',
    ]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ name: 'Ops', color: '#1d9bf0' });
    expect(await tagNames()).toContain('Ops');
  }, 180_000);
});

describe('npm run admin recount-webhook-endpoints', () => {
  it('sets a workspace’s count to the endpoints it has (one written without the count, as the previous version did)', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const { table, webhooks } = rt.container.deps;
    await table.doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: endpointToItem(offEndpoint(ws.accountId, ws.workspaceId)),
      }),
    );
    const fixed = await admin(['recount-webhook-endpoints', '--workspace', ws.workspaceId]);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(JSON.parse(fixed.stdout)).toEqual([{ workspaceId: ws.workspaceId, before: 0, after: 1 }]);
    expect((await webhooks.recountEndpoints(ws.workspaceId)).before).toBe(1);

    // The program exits with 1 and prints the envelope on standard error.
    const refused = await adminProgram(['recount-webhook-endpoints', '--workspace', 'not-a-workspace']);
    expect(refused.code).toBe(1);
    expect(refused.error).toMatchObject({ code: 'validation_failed', field: 'workspaceId' });
  }, 180_000);
});
