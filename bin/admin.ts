/**
 * Operator commands: `npm run admin -- <command> [--flags]`.
 * Locally it talks to the running `npm start` (found through <DATA_DIR>/runtime.json); with
 * `--aws` it uses AWS credentials, TABLE_NAME and TOKEN_KMS_KEY_ID against the deployed table.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { RUNTIME_INFO_FILE, type RuntimeInfo } from '../functions/adapters/local/runtime.ts';
import {
  addTag,
  connectChannel,
  createAccount,
  createApiKey,
  createWorkspace,
  setPlan,
} from '../functions/core/admin/admin.ts';
import { seedDemoAccount } from '../functions/core/admin/seed.ts';
import { isPlanName, PLANS } from '../functions/core/usage/plans.ts';
import { isPlatformId } from '../functions/platforms/catalog.ts';
import { PLATFORM_IDS } from '../functions/platforms/types.ts';
import { getDeps } from '../functions/runtime/container.ts';
import { ENV } from '../functions/shared/env.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const USAGE = `Usage: npm run admin -- <command> [--aws] [flags]

Commands:
  create-account   --name <name> [--plan ${Object.keys(PLANS).join('|')}]     (default plan: starter)
  set-plan         --account <acct_...> --plan <plan>
  create-workspace --account <acct_...> --name <name>
  list-workspaces  --account <acct_...>
  create-key       --account <acct_...> --workspace <ws_...> [--mode live|test] [--permission read|write] [--name <label>]
  connect-channel  --account <acct_...> --workspace <ws_...> --platform <${PLATFORM_IDS.join('|')}>
                   --name <name> [--remote-id <handle>] [--no-threads]
                   (access token from HERALD_CHANNEL_TOKEN or standard input, never a flag)
  create-tag       --workspace <ws_...> --name <name> [--color #rrggbb]
  seed             a demo account like the one npm start creates

Targets: the running local runtime (DATA_DIR, default .herald) unless --aws is given; with --aws,
set TABLE_NAME and TOKEN_KMS_KEY_ID (stack outputs) and the usual AWS credentials.`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    aws: { type: 'boolean', default: false },
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
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const fail = (message: string): never => {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
};
const need = (name: keyof typeof values): string => {
  const value = values[name];
  return typeof value === 'string' && value !== '' ? value : fail(`--${name} is required`);
};

const readToken = async (): Promise<string> => {
  const fromEnv = process.env.HERALD_CHANNEL_TOKEN;
  if (fromEnv) return fromEnv;
  if (process.stdin.isTTY) process.stderr.write('Access token (input is read from standard input): ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const token = Buffer.concat(chunks).toString('utf8').trim();
  return token || fail('An access token is required (HERALD_CHANNEL_TOKEN or standard input).');
};

const target = () => {
  if (values.aws) {
    process.env[ENV.runtime] = 'aws';
    if (!process.env[ENV.tableName]) fail(`--aws needs ${ENV.tableName} (the stack output)`);
    return;
  }
  const dataDir = resolve(process.env.DATA_DIR ?? '.herald');
  const infoFile = join(dataDir, RUNTIME_INFO_FILE);
  if (!existsSync(infoFile))
    fail(`The local runtime is not running (no ${infoFile}); start it with npm start.`);
  const info = JSON.parse(readFileSync(infoFile, 'utf8')) as RuntimeInfo;
  Object.assign(process.env, {
    [ENV.runtime]: 'local',
    [ENV.tableName]: info.tableName,
    [ENV.localTokenKeyFile]: join(dataDir, 'token.key'),
    AWS_ENDPOINT_URL_DYNAMODB: info.dynamoEndpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
};

const main = async () => {
  const command = positionals[0];
  if (values.help || !command) {
    console.log(USAGE);
    return;
  }
  target();
  const deps = getDeps();
  const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));
  const plan = () => {
    const name = values.plan ?? 'starter';
    return isPlanName(name) ? name : fail(`Unknown plan ${name}`);
  };
  switch (command) {
    case 'create-account':
      return print(await createAccount(deps, { name: need('name'), plan: plan() }));
    case 'set-plan':
      await setPlan(deps, { accountId: need('account'), plan: plan() });
      return print({ accountId: values.account, plan: values.plan });
    case 'create-workspace':
      return print(await createWorkspace(deps, { accountId: need('account'), name: need('name') }));
    case 'list-workspaces':
      return print(await deps.accounts.listWorkspaces(need('account')));
    case 'create-key': {
      const mode =
        values.mode === 'test' ? 'test' : values.mode === 'live' ? 'live' : fail('--mode is live or test');
      const permission =
        values.permission === 'read'
          ? 'read'
          : values.permission === 'write'
            ? 'write'
            : fail('--permission is read or write');
      const key = await createApiKey(deps, {
        accountId: need('account'),
        workspaceId: need('workspace'),
        mode,
        permission,
        name: values.name ?? `${mode} ${permission} key`,
      });
      console.error('Store this key now: it is shown once and only its hash is kept.');
      return print(key);
    }
    case 'connect-channel': {
      const platform = need('platform');
      if (!isPlatformId(platform)) fail(`Unknown platform ${platform}`);
      const channel = await connectChannel(deps, {
        accountId: need('account'),
        workspaceId: need('workspace'),
        platform: platform as (typeof PLATFORM_IDS)[number],
        name: need('name'),
        accessToken: await readToken(),
        ...(values['remote-id'] ? { remoteAccountId: values['remote-id'] } : {}),
        threadsPermitted: !values['no-threads'],
      });
      const { tokenCiphertext: _hidden, ...shown } = channel;
      return print(shown);
    }
    case 'create-tag':
      return print(
        await addTag(deps, {
          workspaceId: need('workspace'),
          name: need('name'),
          color: values.color ?? null,
        }),
      );
    case 'seed':
      return print(await seedDemoAccount(deps));
    default:
      fail(`Unknown command ${command}`);
  }
};

main().catch((error: unknown) => {
  console.error(`admin: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
