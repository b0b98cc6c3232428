/**
 * Operator commands: `npm run admin -- <command> [--flags]`.
 * Locally it talks to the running `npm start` (found through <DATA_DIR>/runtime.json); with
 * `--aws --stage <stage>` it reads the stage's stateful stack outputs (CloudFormation
 * DescribeStacks) and works on the deployed table with the usual AWS credentials.
 * `runAdmin` is the whole command, given its arguments, environment and output: this file runs it
 * on the process's when started as a program, and tests run it in their own process.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { cognitoUserDirectory } from '../functions/adapters/aws/cognito-user-directory.ts';
import { RUNTIME_INFO_FILE, type RuntimeInfo } from '../functions/adapters/local/runtime.ts';
import {
  addTag,
  addTagInput,
  connectChannel,
  connectChannelInput,
  createAccount,
  createAccountInput,
  createApiKey,
  createApiKeyInput,
  createWorkspace,
  createWorkspaceInput,
  indexApiKeys,
  listWorkspaces,
  listWorkspacesInput,
  parseInput,
  recountWebhookEndpoints,
  recountWebhookEndpointsInput,
  setPlan,
  setPlanInput,
} from '../functions/core/admin/admin.ts';
import { createOwner, createOwnerInput } from '../functions/core/admin/owners.ts';
import { seedDemoAccount } from '../functions/core/admin/seed.ts';
import { tagView } from '../functions/core/tags/tag-view.ts';
import { isApiError } from '../functions/domain/errors.ts';
import { PLANS } from '../functions/domain/plans.ts';
import { PLATFORM_IDS } from '../functions/domain/platforms/types.ts';
import { createContainer } from '../functions/runtime/container.ts';
import { ENV } from '../functions/shared/env.ts';
import { type StatefulOutput, statefulStackName, statelessStackName } from '../lib/stack-outputs.ts';

const USAGE = `Usage: npm run admin -- <command> [--aws --stage <stage>] [flags]

Commands:
  create-account   --name <name> [--plan ${Object.keys(PLANS).join('|')}]     (default plan: starter)
  set-plan         --account <acct_...> --plan <plan>
  create-workspace --account <acct_...> --name <name>
  list-workspaces  --account <acct_...>
  create-key       --account <acct_...> --workspace <ws_...> [--mode live|test] [--permission read|write] [--name <label>]
  connect-channel  --account <acct_...> --workspace <ws_...> --platform <${PLATFORM_IDS.join('|')}>
                   --name <name> [--remote-id <handle>] [--no-threads]
                   (access token from HERALD_CHANNEL_TOKEN or standard input, never a flag)
  create-tag       --account <acct_...> --workspace <ws_...> --name <name> [--color #rrggbb]
  create-owner     --email <email> [--account <acct_...>]
                   a person who signs in to the dashboard, owner of the account (of a new one,
                   with a workspace, without --account); prints a temporary password once: the
                   first sign-in sets a new one
  seed             a demo account like the one npm start creates
  recount-webhook-endpoints [--workspace <ws_...>]
                   sets each workspace's count of webhook endpoints to the endpoints it has (every
                   workspace with an endpoint unless --workspace); run once after deploying over a
                   version without the count (see docs/webhooks.md)
  index-keys       puts keys made before the dashboard in their workspace's key list (the
                   dashboard lists keys from it); run once after deploying over such keys

Input is checked as the API checks it: a refused command prints the API's error envelope
({"error":{"code","message","field"}}) on standard error, changes nothing and exits with 1.

Targets: the running local runtime (DATA_DIR, default .herald) unless --aws is given; with
--aws --stage <stage>, the deployed stage: its table, key and queues are read from the outputs of
the stack Herald-Stateful-<stage> (the usual AWS credentials and region: AWS_PROFILE, AWS_REGION).`;

/** What a command reads and writes besides the network: the process's, or a test's. */
export interface AdminIo {
  /** The environment (DATA_DIR, HERALD_CHANNEL_TOKEN, the AWS SDK's variables). */
  env: Readonly<Record<string, string | undefined>>;
  /** Where a channel's access token is read when HERALD_CHANNEL_TOKEN is not set. */
  stdin?: AsyncIterable<Buffer | string> & { isTTY?: boolean };
  /** One line of standard output (the result, as JSON). */
  out: (line: string) => void;
  /** One line of standard error (notes, the error envelope, the usage). */
  err: (line: string) => void;
}

/** A wrong or missing flag or command: the usage is printed, exit status 2. */
class UsageError extends Error {}

const fail = (message: string): never => {
  throw new UsageError(message);
};

const readArgs = (args: string[]) => {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        aws: { type: 'boolean', default: false },
        stage: { type: 'string' },
        name: { type: 'string' },
        plan: { type: 'string' },
        account: { type: 'string' },
        workspace: { type: 'string' },
        mode: { type: 'string', default: 'live' },
        permission: { type: 'string', default: 'write' },
        platform: { type: 'string' },
        'remote-id': { type: 'string' },
        'no-threads': { type: 'boolean', default: false },
        color: { type: 'string' },
        email: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    // An unknown or malformed flag: the usage, not a stack trace.
    return fail((error as Error).message);
  }
};

type Values = ReturnType<typeof readArgs>['values'];

const readToken = async (io: AdminIo): Promise<string> => {
  const fromEnv = io.env.HERALD_CHANNEL_TOKEN;
  if (fromEnv) return fromEnv;
  const stdin = io.stdin ?? [];
  if ('isTTY' in stdin && stdin.isTTY) io.err('Access token (input is read from standard input): ');
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.from(chunk));
  const token = Buffer.concat(chunks).toString('utf8').trim();
  return token;
};

/** Each variable the code reads, from the stateful stack output that holds its value. */
const FROM_OUTPUTS: Record<string, StatefulOutput> = {
  [ENV.tableName]: 'TableName',
  [ENV.tokenKmsKeyId]: 'TokenKeyArn',
  [ENV.mediaBucket]: 'MediaBucketName',
  [ENV.publishQueueUrl]: 'PublishQueueUrl',
  [ENV.eventQueueUrl]: 'EventQueueUrl',
  [ENV.deliveryQueueUrl]: 'DeliveryQueueUrl',
  [ENV.metricsQueueUrl]: 'MetricsQueueUrl',
  [ENV.schedulerGroup]: 'ScheduleGroupName',
  [ENV.schedulerRoleArn]: 'SchedulerRoleArn',
  [ENV.appSecretPrefix]: 'AppSecretPrefix',
};

/** A stack's outputs, by key. */
const stackOutputs = async (stackName: string, stage: string): Promise<Map<string, string | undefined>> => {
  const client = new CloudFormationClient({});
  const answer = await client
    .send(new DescribeStacksCommand({ StackName: stackName }))
    .catch((error: Error) => {
      throw new Error(
        `cannot read the outputs of ${stackName}: ${error.message}` +
          (error.name === 'ValidationError'
            ? ` (is stage ${stage} deployed in this account and region?)`
            : ''),
      );
    });
  return new Map(
    (answer.Stacks?.[0]?.Outputs ?? []).map((output) => [output.OutputKey ?? '', output.OutputValue]),
  );
};

/** The deployed stage's environment, from its stateful stack's outputs. */
const awsEnvironment = async (stage: string): Promise<Record<string, string>> => {
  const stackName = statefulStackName(stage);
  const outputs = await stackOutputs(stackName, stage);
  const missing = Object.values(FROM_OUTPUTS).filter((key) => !outputs.get(key));
  if (missing.length > 0) {
    throw new Error(
      `${stackName} has no output ${missing.join(', ')}: deploy this version of the stacks first`,
    );
  }
  return Object.fromEntries(
    Object.entries(FROM_OUTPUTS).map(([variable, key]) => [variable, outputs.get(key) as string]),
  );
};

/** Where the dashboard's users are: the stage's user pool (a stack output), or the local emulator's. */
const userPool = async (
  values: Values,
  env: AdminIo['env'],
): Promise<{ client: CognitoIdentityProviderClient; userPoolId: string }> => {
  if (values.aws) {
    const stage = values.stage as string;
    // The pool is named by an output of the stateful stack (or, failing that, the stateless one).
    for (const stackName of [statefulStackName(stage), statelessStackName(stage)]) {
      const userPoolId = (await stackOutputs(stackName, stage)).get('UserPoolId');
      if (userPoolId) return { client: new CognitoIdentityProviderClient({}), userPoolId };
    }
    throw new Error(`stage ${stage} has no output UserPoolId: deploy this version of the stacks first`);
  }
  const info = JSON.parse(readFileSync(join(localDataDir(env), RUNTIME_INFO_FILE), 'utf8')) as RuntimeInfo;
  if (!info.cognito)
    throw new Error('the local runtime has not started its user pool; restart it with npm start');
  return {
    client: new CognitoIdentityProviderClient({
      endpoint: info.cognito.endpoint,
      region: info.cognito.region,
    }),
    userPoolId: info.cognito.userPoolId,
  };
};

const localDataDir = (env: AdminIo['env']) => resolve(env.DATA_DIR ?? '.herald');

/** The variables the functions read (through `env`) for the target: the stage's, or the running runtime's. */
const target = async (values: Values, env: AdminIo['env']): Promise<Record<string, string>> => {
  if (values.aws) {
    const stage =
      values.stage ?? fail('--aws needs --stage <stage> (the stage the stacks were deployed with)');
    return { [ENV.runtime]: 'aws', ...(await awsEnvironment(stage)) };
  }
  if (values.stage !== undefined) fail('--stage names a deployed stage: give it with --aws');
  const dataDir = localDataDir(env);
  const infoFile = join(dataDir, RUNTIME_INFO_FILE);
  if (!existsSync(infoFile))
    fail(`The local runtime is not running (no ${infoFile}); start it with npm start.`);
  const info = JSON.parse(readFileSync(infoFile, 'utf8')) as RuntimeInfo;
  // Read by the SDK itself, so the process's (as the local runtime sets them for its engines).
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
  return {
    [ENV.runtime]: 'local',
    [ENV.tableName]: info.tableName,
    [ENV.localTokenKeyFile]: join(dataDir, 'token.key'),
    AWS_ENDPOINT_URL_DYNAMODB: info.dynamoEndpoint,
  };
};

/** Runs one command (`args` as after `npm run admin --`); resolves to the exit status: 0, 1 refused or failed, 2 usage. */
export const runAdmin = async (args: string[], io: AdminIo): Promise<number> => {
  try {
    await execute(args, io);
    return 0;
  } catch (error: unknown) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (isApiError(error)) {
      // The API's envelope, less the request id: scripts can read `error.code` as from the API.
      const { code, message, field } = error;
      io.err(`${JSON.stringify({ error: { code, message, ...(field !== undefined ? { field } : {}) } })}\n`);
    } else {
      io.err(`admin: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    return 1;
  }
};

const execute = async (args: string[], io: AdminIo): Promise<void> => {
  const { values, positionals } = readArgs(args);
  // Only presence is checked here; what a value may be is the schemas' business (as in the API).
  const need = (name: keyof Values): string => {
    const value = values[name];
    return typeof value === 'string' ? value : fail(`--${name} is required`);
  };
  const print = (value: unknown) => io.out(`${JSON.stringify(value, null, 2)}\n`);
  const note = (line: string) => io.err(`${line}\n`);
  const command = positionals[0];
  if (values.help || !command) {
    io.out(`${USAGE}\n`);
    return;
  }
  // A container of its own on the target's variables: the process's environment is left as it is.
  const container = createContainer({ environment: { ...io.env, ...(await target(values, io.env)) } });
  const { deps } = container;
  await container.run(async () => {
    switch (command) {
      case 'create-account':
        return print(
          await createAccount(
            deps,
            parseInput(createAccountInput, { name: need('name'), plan: values.plan ?? 'starter' }),
          ),
        );
      case 'set-plan': {
        const input = parseInput(setPlanInput, { accountId: need('account'), plan: need('plan') });
        await setPlan(deps, input);
        return print(input);
      }
      case 'create-workspace':
        return print(
          await createWorkspace(
            deps,
            parseInput(createWorkspaceInput, { accountId: need('account'), name: need('name') }),
          ),
        );
      case 'list-workspaces':
        return print(
          await listWorkspaces(deps, parseInput(listWorkspacesInput, { accountId: need('account') })),
        );
      case 'create-key': {
        const input = parseInput(createApiKeyInput, {
          accountId: need('account'),
          workspaceId: need('workspace'),
          mode: values.mode,
          permission: values.permission,
          name: values.name ?? `${values.mode} ${values.permission} key`,
        });
        const key = await createApiKey(deps, input);
        note('Store this key now: it is shown once and only its hash is kept.');
        return print(key);
      }
      case 'connect-channel': {
        const fields = {
          accountId: need('account'),
          workspaceId: need('workspace'),
          platform: need('platform'),
          name: need('name'),
          ...(values['remote-id'] !== undefined ? { remoteAccountId: values['remote-id'] } : {}),
          threadsPermitted: !values['no-threads'],
        };
        // The flags are checked before the token is asked for, so a typo never costs a paste.
        parseInput(connectChannelInput.omit({ accessToken: true }), fields);
        const channel = await connectChannel(
          deps,
          parseInput(connectChannelInput, { ...fields, accessToken: await readToken(io) }),
        );
        const { tokenCiphertext: _hidden, ...shown } = channel;
        return print(shown);
      }
      case 'create-tag':
        return print(
          tagView(
            await addTag(
              deps,
              parseInput(addTagInput, {
                accountId: need('account'),
                workspaceId: need('workspace'),
                name: need('name'),
                ...(values.color !== undefined ? { color: values.color } : {}),
              }),
            ),
          ),
        );
      case 'create-owner': {
        const input = parseInput(createOwnerInput, {
          email: need('email'),
          ...(values.account !== undefined ? { accountId: values.account } : {}),
        });
        const { client, userPoolId } = await userPool(values, io.env);
        const { accounts, workspaces, users, clock } = deps;
        const owner = await createOwner(
          { accounts, workspaces, users, clock, directory: cognitoUserDirectory(client, userPoolId) },
          input,
        );
        note(
          'Give this temporary password to the owner now: it is shown once, and the first sign-in sets a new one.',
        );
        const { password, ...shown } = owner;
        return print({ ...shown, temporaryPassword: password });
      }
      case 'seed':
        return print(await seedDemoAccount(deps));
      case 'recount-webhook-endpoints':
        return print(
          await recountWebhookEndpoints(
            deps,
            parseInput(recountWebhookEndpointsInput, {
              ...(values.workspace !== undefined ? { workspaceId: values.workspace } : {}),
            }),
          ),
        );
      case 'index-keys':
        return print(await indexApiKeys(deps));
      default:
        fail(`Unknown command ${command}`);
    }
  });
};

// Started as a program (`npm run admin`), not imported.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const code = await runAdmin(process.argv.slice(2), {
    env: process.env,
    stdin: process.stdin,
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
  if (code !== 0) process.exit(code);
}
