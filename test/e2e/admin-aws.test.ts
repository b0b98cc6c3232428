import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../bin/admin.ts';
import { RUNTIME_INFO_FILE, type RuntimeInfo } from '../../functions/adapters/local/runtime.ts';
import { STATEFUL_OUTPUTS } from '../../lib/stack-outputs.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { cognitoCall } from '../support/users.ts';

const ROOT = resolve(import.meta.dirname, '../..');

interface DescribeStacksCall {
  action: string | null;
  stackName: string | null;
  authorization: string;
}

/**
 * A small fake of CloudFormation's query API, DescribeStacks only: each stack is its outputs. A
 * stack it does not hold answers as CloudFormation does (400 ValidationError "does not exist").
 */
const fakeCloudFormation = (stacks: Record<string, Record<string, string>>) => {
  const calls: DescribeStacksCall[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      const form = new URLSearchParams(body);
      const call = {
        action: form.get('Action'),
        stackName: form.get('StackName'),
        authorization: req.headers.authorization ?? '',
      };
      calls.push(call);
      const outputs = call.stackName ? stacks[call.stackName] : undefined;
      res.setHeader('content-type', 'text/xml');
      if (call.action !== 'DescribeStacks' || !outputs) {
        res.statusCode = 400;
        res.end(
          `<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type><Code>ValidationError</Code><Message>Stack with id ${call.stackName} does not exist</Message></Error><RequestId>r-1</RequestId></ErrorResponse>`,
        );
        return;
      }
      const members = Object.entries(outputs)
        .map(
          ([key, value]) =>
            `<member><OutputKey>${key}</OutputKey><OutputValue>${value}</OutputValue></member>`,
        )
        .join('');
      res.end(
        `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member><StackName>${call.stackName}</StackName><StackId>arn:aws:cloudformation:us-east-1:123456789012:stack/${call.stackName}/1</StackId><CreationTime>2026-11-29T00:00:00Z</CreationTime><StackStatus>CREATE_COMPLETE</StackStatus><Outputs>${members}</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>r-2</RequestId></ResponseMetadata></DescribeStacksResponse>`,
      );
    });
  });
  return { server, calls };
};

let rt: TestRuntime;
let cloudFormation: ReturnType<typeof fakeCloudFormation>;
let awsEnv: Record<string, string>;
let pool: Awaited<ReturnType<TestRuntime['cognito']>>;

beforeAll(async () => {
  // The CLI makes an account of its own: the worker's shared runtime serves.
  rt = await sharedTestRuntime();
  // The stage's user pool is played by the runtime's Cognito emulator.
  pool = await rt.cognito();
  const info = JSON.parse(readFileSync(join(rt.dataDir, RUNTIME_INFO_FILE), 'utf8')) as RuntimeInfo;
  // The deployed stage "first": every output, its table the running runtime's (so the key the CLI
  // makes can be tried through the API); "old": a stack from before the named outputs.
  const outputs = Object.fromEntries(
    Object.keys(STATEFUL_OUTPUTS).map((key) => [key, `${key.toLowerCase()}-of-first`]),
  );
  cloudFormation = fakeCloudFormation({
    'Herald-Stateful-first': {
      ...outputs,
      TableName: info.tableName,
      TokenKeyArn: 'arn:aws:kms:us-east-1:123456789012:key/00000000-0000-4000-8000-000000000000',
      UserPoolId: pool.userPoolId,
    },
    'Herald-Stateful-old': { TableName: info.tableName },
  });
  await new Promise<void>((done) => cloudFormation.server.listen(0, '127.0.0.1', done));
  const { port } = cloudFormation.server.address() as AddressInfo;
  const { AWS_PROFILE: _profile, TABLE_NAME: _table, TOKEN_KMS_KEY_ID: _key, ...inherited } = process.env;
  awsEnv = {
    ...(inherited as Record<string, string>),
    AWS_ENDPOINT_URL_CLOUDFORMATION: `http://127.0.0.1:${port}`,
    AWS_ENDPOINT_URL_DYNAMODB: info.dynamoEndpoint,
    AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: pool.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'operator',
    AWS_SECRET_ACCESS_KEY: 'operator-secret',
    // No local runtime here: a CLI that fell back to it would fail.
    DATA_DIR: join(rt.dataDir, 'not-a-runtime'),
  };
});
afterAll(async () => {
  await new Promise((done) => cloudFormation?.server.close(done));
  await rt?.destroy();
});

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run admin -- <args>` as an operator runs it against a deployed stage. */
const admin = (args: string[]): Promise<CliResult> =>
  new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'bin/admin.ts', ...args],
      { cwd: ROOT, env: awsEnv },
      (error, stdout, stderr) => {
        done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });

/**
 * The same command run in this process (`runAdmin`, what bin/admin.ts runs): for the usage
 * errors, which are refused before any AWS call, so the process's own environment is never read.
 */
const adminHere = async (args: string[]): Promise<CliResult> => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(args, {
    env: awsEnv,
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
};

describe('npm run admin -- --aws --stage <stage>', () => {
  it('creates the first account, workspace and key through the stack outputs, and the key works', async () => {
    const before = cloudFormation.calls.length;
    const account = await admin(['create-account', '--aws', '--stage', 'first', '--name', 'First customer']);
    expect(account.stderr).toBe('');
    expect(account.code).toBe(0);
    const { accountId } = JSON.parse(account.stdout) as { accountId: string };
    expect(accountId).toMatch(/^acct_/);

    const workspace = await admin([
      'create-workspace',
      '--aws',
      '--stage',
      'first',
      '--account',
      accountId,
      '--name',
      'Main',
    ]);
    expect(workspace.code).toBe(0);
    const { workspaceId } = JSON.parse(workspace.stdout) as { workspaceId: string };

    const key = await admin([
      'create-key',
      '--aws',
      '--stage',
      'first',
      '--account',
      accountId,
      '--workspace',
      workspaceId,
    ]);
    expect(key.code).toBe(0);
    expect(key.stderr).toMatch(/shown once/);
    const { secret } = JSON.parse(key.stdout) as { secret: string };
    expect(secret).toMatch(/^sk_live_/);

    // The key was written to the table the outputs named: the API (same table) accepts it.
    const posts = await rt.api('/v1/posts', { key: secret });
    expect(posts.status).toBe(200);
    expect(posts.body.data).toEqual([]);

    // Each command asked CloudFormation for the stage's stateful stack, signed for it.
    const calls = cloudFormation.calls.slice(before);
    expect(calls).toHaveLength(3);
    for (const call of calls) {
      expect(call).toMatchObject({ action: 'DescribeStacks', stackName: 'Herald-Stateful-first' });
      expect(call.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=operator\/\d{8}\/us-east-1\/cloudformation\/aws4_request/,
      );
    }
  }, 180_000);

  it("creates the first owner in the stage's user pool, named by the stack outputs, with an account to own", async () => {
    const before = cloudFormation.calls.length;
    const email = `first-owner-${Date.now()}@example.com`;
    const created = await admin(['create-owner', '--aws', '--stage', 'first', '--email', email]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toMatch(/temporary password .* shown once/);
    const owner = JSON.parse(created.stdout);
    expect(owner).toMatchObject({ email, temporary: true, accountId: expect.stringMatching(/^acct_/) });
    // Its account, with a workspace, and the USER item naming it, in the table the outputs named.
    expect(await rt.container.deps.users.getUser(owner.userId)).toMatchObject({
      accountId: owner.accountId,
      email,
      role: 'owner',
    });
    expect(await rt.container.deps.workspaces.listWorkspaces(owner.accountId)).toHaveLength(1);
    // In the pool the outputs named: the temporary password signs in once, to set a new one.
    const first = await cognitoCall(pool, 'InitiateAuth', {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: pool.clientId,
      AuthParameters: { USERNAME: email, PASSWORD: owner.temporaryPassword },
    });
    expect(first.body.ChallengeName).toBe('NEW_PASSWORD_REQUIRED');
    for (const call of cloudFormation.calls.slice(before)) {
      expect(call.stackName).toBe('Herald-Stateful-first');
    }
    // The same email again changes nothing: refused with the API's envelope.
    const again = await admin(['create-owner', '--aws', '--stage', 'first', '--email', email]);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr)).toMatchObject({ error: { code: 'already_exists', field: 'email' } });
    const bad = await admin(['create-owner', '--aws', '--stage', 'first', '--email', 'not-an-email']);
    expect(JSON.parse(bad.stderr)).toMatchObject({ error: { code: 'validation_failed', field: 'email' } });
  }, 180_000);

  it('a stage that is not deployed, or deployed before the named outputs, is refused, naming the stack it read', async () => {
    const [missing, old] = await Promise.all([
      admin(['create-account', '--aws', '--stage', 'missing', '--name', 'Nobody']),
      admin(['create-account', '--aws', '--stage', 'old', '--name', 'Nobody']),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(
      /cannot read the outputs of Herald-Stateful-missing: Stack with id Herald-Stateful-missing does not exist \(is stage missing deployed/,
    );
    expect(old.code).toBe(1);
    expect(old.stdout).toBe('');
    expect(old.stderr).toMatch(
      /Herald-Stateful-old has no output TokenKeyArn, MediaBucketName, .*deploy this version/,
    );
  }, 180_000);

  it('--aws needs --stage, and --stage needs --aws (usage errors, exit 2)', async () => {
    const [noStage, noAws] = await Promise.all([
      adminHere(['create-account', '--aws', '--name', 'Nobody']),
      adminHere(['create-account', '--stage', 'first', '--name', 'Nobody']),
    ]);
    expect(noStage.code).toBe(2);
    expect(noStage.stderr).toMatch(/--aws needs --stage <stage>/);
    expect(noAws.code).toBe(2);
    expect(noAws.stderr).toMatch(/--stage names a deployed stage: give it with --aws/);
  }, 180_000);
});
