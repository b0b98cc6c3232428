/**
 * `npm run rehearse`: runs what `cdk deploy` would upload, under the template's own policies.
 *
 * 1. `cdk synth` into a temporary folder (offline), or `--assembly <dir>` to use one already made.
 * 2. cfn-lint on every template: no error, and no warning unless `cfn-lint-allowed.json` lists its
 *    rule with a reason (skipped, said so, when cfn-lint is not installed).
 * 3. The local runtime started from the cloud assembly (functions/adapters/local/assembly-runtime.ts):
 *    each Lambda's asset, handler, environment, IAM statements and event source mapping.
 * 4. The template's JWT authorizer (functions/adapters/local/assembly-authorizer.ts): on exactly the
 *    user routes, trusting the user pool and its app client, which stand for a local pool the
 *    runtime creates in the Cognito emulator (the local server checks each token on those routes as
 *    the authorizer does).
 * 5. A run-through over HTTP: the README's five-minute tour, a post with media to three networks with a
 *    thread, a scheduled post, a webhook delivery, a connect flow, a metrics reading, a person
 *    signed in to the user pool reading GET /v1/account, and the dashboard's management routes
 *    (/v1/account/**) with that person's access token, GET /v1/posts/{id}/timeline beside them.
 *
 * Prints one line per step and a summary with the time; exits non-zero on any failure.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CloudAssemblyModel } from '../functions/adapters/local/assembly.ts';
import { readCloudAssembly } from '../functions/adapters/local/assembly.ts';
import { checkJwtAuthorizers } from '../functions/adapters/local/assembly-authorizer.ts';
import { type LocalRuntime, startLocalRuntime } from '../functions/adapters/local/runtime.ts';
import { healthRoute, publicRoutes, routes, userRoutes } from '../functions/http/routes.ts';
import { SIGNATURE_HEADER, verifyWebhook } from '../functions/shared/verify-webhook.ts';
import { makeCertificates, startReceiver } from '../test/support/https-receiver.ts';
import { mediaFiles } from '../test/support/media-files.ts';
import { bearer, ownerTokens } from '../test/support/users.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
// Each queue's pollers (the mapping's maximum concurrency, 20) share one abort signal by design.
EventEmitter.defaultMaxListeners = 100;
const ROOT = resolve(import.meta.dirname, '..');

/** A failed expectation of the run-through. */
class RehearsalFailure extends Error {}
const check = (condition: unknown, message: string): void => {
  if (!condition) throw new RehearsalFailure(message);
};

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** `cdk synth` as the deploy runs it, into `outdir`. */
export const synthesize = (outdir: string): void => {
  const result = spawnSync('npx', ['--no-install', 'cdk', 'synth', '--no-notices', '-q', '-o', outdir], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true', CDK_DISABLE_VERSION_CHECK: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new RehearsalFailure(`cdk synth failed:\n${result.stderr}${result.stdout}`);
};

/** One warning kind cfn-lint may report, and why it is accepted. */
interface AllowedWarning {
  rule: string;
  /** A regular expression the finding's path (`Resources/X/DependsOn/1`) must match. */
  path: string;
  reason: string;
}

export const CFN_LINT_ALLOWED = join(ROOT, 'cfn-lint-allowed.json');

interface LintFinding {
  Level: string;
  Rule: { Id: string };
  Message: string;
  Filename: string;
  Location: { Path: (string | number)[] };
}

/** cfn-lint on every template of the assembly: the findings no entry of the allowed list covers. */
export const lintTemplates = (
  directory: string,
): { skipped: string } | { findings: number; refused: string[]; allowed: number } => {
  const version = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
  if (version.error || version.status !== 0)
    return { skipped: 'cfn-lint is not installed on this machine (pip install cfn-lint, or pipx)' };
  const templates = readdirSync(directory)
    .filter((file) => file.endsWith('.template.json'))
    .map((file) => join(directory, file));
  const run = spawnSync('cfn-lint', ['-f', 'json', ...templates], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  // cfn-lint exits 2 for errors, 4 for warnings, 8 for informational findings (or'ed): read the JSON.
  let findings: LintFinding[];
  try {
    findings = JSON.parse(run.stdout || '[]') as LintFinding[];
  } catch {
    throw new RehearsalFailure(`cfn-lint did not answer JSON (exit ${run.status}): ${run.stderr}`);
  }
  const allowed = JSON.parse(readFileSync(CFN_LINT_ALLOWED, 'utf8')) as { warnings: AllowedWarning[] };
  const refused: string[] = [];
  let covered = 0;
  for (const finding of findings) {
    const path = finding.Location.Path.join('/');
    const entry =
      finding.Level === 'Warning'
        ? allowed.warnings.find((w) => w.rule === finding.Rule.Id && new RegExp(w.path).test(path))
        : undefined;
    if (entry) covered++;
    else
      refused.push(
        `${finding.Level} ${finding.Rule.Id} ${finding.Filename.split('/').at(-1)} ${path}: ${finding.Message}`,
      );
  }
  return { findings: findings.length, refused, allowed: covered };
};

/** The manifest's functions and the template's routes must be the same set (else the deploy serves another API). */
export const checkRoutes = (model: CloudAssemblyModel): string[] => {
  const expected = new Set([
    '$default',
    `GET ${healthRoute.path}`,
    ...[...publicRoutes, ...routes, ...userRoutes].map((route) => `${route.method} ${route.path}`),
  ]);
  const actual = new Set(model.routes.map((route) => route.routeKey));
  return [
    ...[...expected].filter((key) => !actual.has(key)).map((key) => `the template has no route ${key}`),
    ...[...actual]
      .filter((key) => !expected.has(key))
      .map((key) => `the template's route ${key} is in no manifest`),
  ];
};

type Api = (
  path: string,
  call?: { method?: string; key?: string; body?: unknown; headers?: Record<string, string> },
) => Promise<{
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field, as the e2e tests read them.
  body: any;
  text: string;
}>;

const apiOf =
  (rt: LocalRuntime): Api =>
  async (path, call = {}) => {
    const res = await fetch(`${rt.baseUrl}${path}`, {
      method: call.method ?? 'GET',
      headers: {
        ...(call.key ? { 'x-api-key': call.key } : {}),
        ...(call.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...call.headers,
      },
      ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
    });
    const text = await res.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    return { status: res.status, body, text };
  };

/** Polls until `read` gives a value (not undefined), or fails with `what` after `timeoutMs`. */
const until = async <T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new RehearsalFailure(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
};

const TERMINAL = new Set(['published', 'partially_published', 'failed']);

const settledPost = (api: Api, key: string, id: string, timeoutMs = 60_000) =>
  until(
    `post ${id} to finish`,
    async () => {
      const res = await api(`/posts/${id}`, { key });
      return TERMINAL.has(res.body?.status) ? res.body : undefined;
    },
    timeoutMs,
  );

/** The run-through's steps, each an outcome a user would see. */
export const runThrough = async (
  rt: LocalRuntime,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
): Promise<{ step: string; ms: number; error?: string }[]> => {
  const api = apiOf(rt);
  const key = rt.seed.keys.live;
  const channel = (platform: string) => rt.seed.channels.find((c) => c.platform === platform)?.id as string;
  const results: { step: string; ms: number; error?: string }[] = [];
  const step = async (name: string, run: () => Promise<void>) => {
    const since = performance.now();
    try {
      await run();
      results.push({ step: name, ms: performance.now() - since });
    } catch (error) {
      results.push({
        step: name,
        ms: performance.now() - since,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };

  await step('health and the README tour (channels, a draft, a post now to X)', async () => {
    const health = await fetch(`${rt.url}/health`);
    check(health.status === 200, `GET /health answered ${health.status}`);
    const channels = await api('/channels', { key });
    check(channels.status === 200, `GET /channels answered ${channels.status}: ${channels.text}`);
    const draft = await api('/posts', {
      method: 'POST',
      key,
      headers: { 'Idempotency-Key': randomUUID() },
      body: { intent: 'draft', channels: [{ channelId: channel('x'), blocks: [{ content: 'Hello' }] }] },
    });
    check(
      draft.status === 201 && draft.body.status === 'draft',
      `the draft answered ${draft.status}: ${draft.text}`,
    );
    const now = await api('/posts', {
      method: 'POST',
      key,
      body: { intent: 'now', channels: [{ channelId: channel('x'), blocks: [{ content: 'Hello, world' }] }] },
    });
    check(now.status === 201, `POST /posts (now) answered ${now.status}: ${now.text}`);
    const post = await settledPost(api, key, now.body.id);
    check(post.status === 'published', `the post ended ${post.status}: ${JSON.stringify(post.channels)}`);
    check(post.channels[0]?.remoteUrl, 'the published channel has no remoteUrl');
  });

  let mediaPostId = '';
  await step('a post with an image to X, Bluesky and Threads, each a thread of two blocks', async () => {
    const form = new FormData();
    form.set('file', new Blob([mediaFiles.png()], { type: 'image/png' }), 'pixel.png');
    const uploaded = await fetch(`${rt.baseUrl}/media`, {
      method: 'POST',
      headers: { 'x-api-key': key },
      body: form,
    });
    const media = (await uploaded.json()) as { id: string };
    check(uploaded.status === 201, `POST /media answered ${uploaded.status}: ${JSON.stringify(media)}`);
    const networks = ['x', 'bluesky', 'threads'];
    const created = await api('/posts', {
      method: 'POST',
      key,
      body: {
        intent: 'now',
        channels: networks.map((network) => ({
          channelId: channel(network),
          blocks: [
            { content: `Rehearsal on ${network}`, mediaIds: [media.id] },
            { content: 'and its reply' },
          ],
        })),
      },
    });
    check(created.status === 201, `POST /posts answered ${created.status}: ${created.text}`);
    mediaPostId = created.body.id;
    const post = await settledPost(api, key, mediaPostId, 90_000);
    check(post.status === 'published', `the post ended ${post.status}: ${JSON.stringify(post.channels)}`);
    for (const ch of post.channels) {
      const live = (ch.blocks ?? []).filter((b: { remoteUrl?: string | null }) => b.remoteUrl);
      check(live.length === 2, `${ch.platform}: ${live.length} of 2 blocks live: ${JSON.stringify(ch)}`);
    }
  });

  await step('a scheduled post (EventBridge Scheduler, then the publish queue)', async () => {
    const at = new Date(Date.now() + 8_000);
    const created = await api('/posts', {
      method: 'POST',
      key,
      body: {
        intent: 'schedule',
        scheduledAt: at.toISOString(),
        channels: [{ channelId: channel('bluesky'), blocks: [{ content: 'Scheduled in the rehearsal' }] }],
      },
    });
    check(
      created.status === 201 && created.body.status === 'scheduled',
      `the schedule answered ${created.status}: ${created.text}`,
    );
    const post = await settledPost(api, key, created.body.id, 90_000);
    check(post.status === 'published', `the scheduled post ended ${post.status}`);
    const publishedAt = Date.parse(post.publishedAt ?? post.channels[0]?.publishedAt ?? '');
    check(
      !(publishedAt < at.getTime() - 1000),
      `published at ${post.publishedAt}, before ${at.toISOString()}`,
    );
  });

  await step(
    'a webhook delivery, signed, to an https receiver; the endpoint read, changed, rolled, deleted',
    async () => {
      const created = await api('/webhooks', {
        method: 'POST',
        key,
        body: { url: receiver.url('/rehearsal'), events: ['post.published'] },
      });
      check(created.status === 201, `POST /webhooks answered ${created.status}: ${created.text}`);
      const secret = created.body.secret as string;
      const now = await api('/posts', {
        method: 'POST',
        key,
        body: {
          intent: 'now',
          channels: [{ channelId: channel('x'), blocks: [{ content: 'Tell the hook' }] }],
        },
      });
      check(now.status === 201, `POST /posts answered ${now.status}`);
      const deliveries = await receiver.waitFor(
        (all) => all.some((d) => JSON.stringify(d.body ?? {}).includes(now.body.id)),
        60_000,
        'the post.published delivery',
      );
      const delivery = deliveries.find((d) => JSON.stringify(d.body ?? {}).includes(now.body.id));
      check(delivery, 'no delivery names the post');
      const signature = delivery?.headers[SIGNATURE_HEADER];
      const verified = verifyWebhook(
        delivery?.raw ?? '',
        typeof signature === 'string' ? signature : null,
        secret,
      );
      check(verified, 'the delivery does not verify with the endpoint secret');
      const hook = `/webhooks/${created.body.endpoint.id}`;
      for (const [method, path, body, status] of [
        ['GET', hook, undefined, 200],
        ['GET', `${hook}/deliveries`, undefined, 200],
        ['PUT', hook, { description: 'Rehearsed' }, 200],
        ['POST', `${hook}/roll-secret`, undefined, 200],
        ['DELETE', hook, undefined, 200],
      ] as const) {
        const res = await api(path, { method, key, ...(body ? { body } : {}) });
        check(res.status === status, `${method} ${path} answered ${res.status}: ${res.text}`);
      }
    },
  );

  await step(
    'a connect flow (LinkedIn OAuth: consent, callback, complete with the key), a post, the channel removed; Facebook pages chosen; Bluesky by app password',
    async () => {
      const start = await api('/channels/connect', {
        method: 'POST',
        key,
        body: { platform: 'linkedin', redirectUrl: 'https://client.example/done' },
      });
      check(start.status === 201, `POST /channels/connect answered ${start.status}: ${start.text}`);
      const authorize = new URL(start.body.authorizeUrl);
      authorize.searchParams.set('sim_user', `rehearsal${Date.now()}`);
      const atNetwork = await fetch(authorize, { redirect: 'manual' });
      const callback = atNetwork.headers.get('location');
      check(callback?.includes('/v1/channels/callback'), `the network redirected to ${callback}`);
      const atHerald = await fetch(callback as string, { redirect: 'manual' });
      const landed = new URL(atHerald.headers.get('location') ?? 'https://missing.example');
      check(landed.searchParams.get('connectCode'), `the callback landed on ${landed}`);
      const complete = await api('/channels/connect/complete', {
        method: 'POST',
        key,
        body: { connectCode: landed.searchParams.get('connectCode') },
      });
      check(complete.status === 201, `complete answered ${complete.status}: ${complete.text}`);
      const now = await api('/posts', {
        method: 'POST',
        key,
        body: {
          intent: 'now',
          channels: [{ channelId: complete.body.id, blocks: [{ content: 'From a new channel' }] }],
        },
      });
      check(now.status === 201, `POST /posts answered ${now.status}: ${now.text}`);
      const post = await settledPost(api, key, now.body.id);
      check(post.status === 'published', `the post on the new channel ended ${post.status}`);
      const removed = await api(`/channels/${complete.body.id}`, { method: 'DELETE', key });
      check(removed.status === 200, `DELETE /channels/{id} answered ${removed.status}: ${removed.text}`);
      // Facebook's consent grants pages: the complete answers the choice, listed, then one chosen.
      const facebook = await api('/channels/connect', {
        method: 'POST',
        key,
        body: { platform: 'facebook', redirectUrl: 'https://client.example/done' },
      });
      check(facebook.status === 201, `POST /channels/connect answered ${facebook.status}: ${facebook.text}`);
      const pageConsent = new URL(facebook.body.authorizeUrl);
      pageConsent.searchParams.set('sim_user', `rehearsalfb${Date.now()}`);
      const pageCallback = (await fetch(pageConsent, { redirect: 'manual' })).headers.get('location');
      const pageLanded = new URL(
        (await fetch(pageCallback as string, { redirect: 'manual' })).headers.get('location') ??
          'https://missing.example',
      );
      const pending = await api('/channels/connect/complete', {
        method: 'POST',
        key,
        body: { connectCode: pageLanded.searchParams.get('connectCode') },
      });
      check(
        pending.status === 200 && pending.body.pending === 'targets',
        `the Facebook complete answered ${pending.status}: ${pending.text}`,
      );
      const targets = `/channels/connect/${pending.body.connectionId}/targets`;
      const offered = await api(targets, { key });
      check(offered.status === 200, `GET ${targets} answered ${offered.status}: ${offered.text}`);
      const chosen = await api(targets, {
        method: 'POST',
        key,
        body: { targetIds: [offered.body.data[0]?.id] },
      });
      check(chosen.status === 201, `POST ${targets} answered ${chosen.status}: ${chosen.text}`);
      // A Bluesky account by app password (no OAuth).
      const bluesky = await api('/channels', {
        method: 'POST',
        key,
        body: {
          platform: 'bluesky',
          identifier: `rehearsal${Date.now()}.bsky.social`,
          appPassword: 'abcd-efgh-ijkl-mnop',
        },
      });
      check(bluesky.status === 201, `POST /channels answered ${bluesky.status}: ${bluesky.text}`);
      for (const id of [...(chosen.body.data as { id: string }[]).map((c) => c.id), bluesky.body.id]) {
        const gone = await api(`/channels/${id}`, { method: 'DELETE', key });
        check(gone.status === 200, `DELETE /channels/{id} answered ${gone.status}: ${gone.text}`);
      }
    },
  );

  await step(
    'the other routes: every read, a draft edited, published, revised, retracted, deleted; a presigned upload',
    async () => {
      for (const path of [
        '/platforms',
        '/posts',
        '/media',
        '/webhooks',
        '/usage',
        '/stats',
        '/tags',
        '/openapi.json',
      ]) {
        const res = await api(path, { key });
        check(res.status === 200, `GET ${path} answered ${res.status}: ${res.text.slice(0, 200)}`);
      }
      const docs = await fetch(`${rt.url}/docs`);
      check(docs.status === 200, `GET /docs answered ${docs.status}`);
      // The $default route's function: 404 for a path no route has, 405 for a method another route has.
      for (const [method, path, status] of [
        ['GET', '/no-such-route', 404],
        ['PATCH', '/tags', 405],
      ] as const) {
        const res = await api(path, { method, key });
        check(res.status === status, `${method} ${path} answered ${res.status}, not ${status}: ${res.text}`);
      }
      const x = channel('x');
      const read = await api(`/channels/${x}`, { key });
      check(read.status === 200, `GET /channels/{id} answered ${read.status}`);
      const tag = await api('/tags', { method: 'POST', key, body: { name: 'Rehearsed' } });
      check(tag.status === 201, `POST /tags answered ${tag.status}: ${tag.text}`);
      const draft = await api('/posts', {
        method: 'POST',
        key,
        body: { intent: 'draft', channels: [{ channelId: x, blocks: [{ content: 'A draft' }] }] },
      });
      check(draft.status === 201, `the draft answered ${draft.status}`);
      const edited = await api(`/posts/${draft.body.id}`, {
        method: 'PUT',
        key,
        body: { intent: 'draft', channels: [{ channelId: x, blocks: [{ content: 'A draft, edited' }] }] },
      });
      check(edited.status === 200, `PUT /posts/{id} answered ${edited.status}: ${edited.text}`);
      const published = await api(`/posts/${draft.body.id}/publish`, { method: 'POST', key });
      check(
        published.status === 200,
        `POST /posts/{id}/publish answered ${published.status}: ${published.text}`,
      );
      const live = await settledPost(api, key, draft.body.id);
      check(live.status === 'published', `the published draft ended ${live.status}`);
      const revised = await api(`/posts/${draft.body.id}/revise`, {
        method: 'POST',
        key,
        body: { channels: [{ channelId: x, blocks: [{ content: 'A draft, revised' }] }] },
      });
      check(revised.status === 200, `POST /posts/{id}/revise answered ${revised.status}: ${revised.text}`);
      const retracted = await api(`/posts/${draft.body.id}/retract`, { method: 'POST', key });
      check(
        retracted.status === 200,
        `POST /posts/{id}/retract answered ${retracted.status}: ${retracted.text}`,
      );
      const other = await api('/posts', {
        method: 'POST',
        key,
        body: { intent: 'draft', channels: [{ channelId: x, blocks: [{ content: 'To delete' }] }] },
      });
      const deleted = await api(`/posts/${other.body.id}`, { method: 'DELETE', key });
      check(deleted.status === 200, `DELETE /posts/{id} answered ${deleted.status}: ${deleted.text}`);
      // A presigned upload: the URL is signed with the function's own credentials, checked when used.
      const bytes = mediaFiles.jpeg(2048);
      const start = await api('/media/uploads', {
        method: 'POST',
        key,
        body: { fileName: 'large.jpg', mimeType: 'image/jpeg', size: bytes.length },
      });
      check(start.status === 201, `POST /media/uploads answered ${start.status}: ${start.text}`);
      const put = await fetch(start.body.upload.url, {
        method: 'PUT',
        headers: start.body.upload.headers,
        body: bytes,
      });
      check(put.status === 200, `the presigned PUT answered ${put.status}: ${await put.text()}`);
      const done = await api(`/media/${start.body.media.id}/complete`, { method: 'POST', key });
      check(done.status === 200, `POST /media/{id}/complete answered ${done.status}: ${done.text}`);
      for (const [method, path, body] of [
        ['GET', `/media/${start.body.media.id}`, undefined],
        ['PUT', `/media/${start.body.media.id}`, { altText: 'Rehearsed' }],
        ['DELETE', `/media/${start.body.media.id}`, undefined],
      ] as const) {
        const res = await api(path, { method, key, ...(body ? { body } : {}) });
        check(res.status === 200, `${method} ${path} answered ${res.status}: ${res.text}`);
      }
    },
  );

  // The dashboard's first call: a person's access token from the user pool, checked by the
  // authorizer; no token, and an API key, are API Gateway's own 401.
  const accountRoute = userRoutes.some((route) => route.method === 'GET' && route.path === '/v1/account');
  if (!accountRoute) console.log('SKIPPED sign-in and GET /v1/account: the manifest has no such user route');
  else
    await step(
      'a person signs in to the user pool and reads GET /v1/account through the JWT authorizer',
      async () => {
        const { accessToken } = await ownerTokens(rt);
        const { owner } = await rt.cognito();
        const res = await api('/account', { headers: bearer(accessToken) });
        check(res.status === 200, `GET /v1/account answered ${res.status}: ${res.text}`);
        check(res.body.user?.email === owner.email, `GET /v1/account is not the owner's: ${res.text}`);
        check(
          res.body.account?.id === rt.seed.accountId,
          `GET /v1/account is not the seeded account: ${res.text}`,
        );
        for (const [what, call] of [
          ['no token', {}],
          ['an API key', { key }],
        ] as const) {
          const refused = await api('/account', call);
          check(
            refused.status === 401 && refused.text === '{"message":"Unauthorized"}',
            `GET /v1/account with ${what} answered ${refused.status} ${refused.text}, not API Gateway's 401`,
          );
        }
      },
    );

  // The dashboard's management routes (issue 29), each through the JWT authorizer with the owner's
  // access token: every one of them is run.
  if (accountRoute)
    await step(
      "the dashboard's management routes: the account, workspaces, keys created, rolled and revoked, channels connected (pages chosen) and removed, posts, webhooks",
      async () => {
        const { accessToken } = await ownerTokens(rt);
        const user = (path: string, call: { method?: string; body?: unknown } = {}): ReturnType<Api> =>
          api(`/account${path}`, { ...call, headers: bearer(accessToken) });
        const expect = async (
          method: string,
          path: string,
          status: number,
          body?: unknown,
        ): ReturnType<Api> => {
          const res = await user(path, { method, ...(body !== undefined ? { body } : {}) });
          check(
            res.status === status,
            `${method} /v1/account${path} answered ${res.status}, not ${status}: ${res.text.slice(0, 300)}`,
          );
          return res;
        };
        const withKey = async (secret: string, status: number, what: string) => {
          const res = await api('/channels', { key: secret });
          check(res.status === status, `GET /v1/channels with ${what} answered ${res.status}, not ${status}`);
        };

        for (const path of ['', '/usage', '/workspaces']) await expect('GET', path, 200);
        const created = await expect('POST', '/workspaces', 201, { name: 'Rehearsal workspace' });
        const renamed = await expect('PATCH', `/workspaces/${created.body.id}`, 200, {
          name: 'Rehearsal workspace, renamed',
        });
        check(renamed.body.name === 'Rehearsal workspace, renamed', `the rename answered ${renamed.text}`);
        const listed = await expect('GET', '/workspaces', 200);
        check(
          listed.body.data.some((w: { id: string }) => w.id === created.body.id),
          `the new workspace is not listed: ${listed.text}`,
        );

        const ws = `/workspaces/${rt.seed.workspaces.main}`;
        await expect('GET', `${ws}/keys`, 200);
        const made = await expect('POST', `${ws}/keys`, 201, {
          name: 'Rehearsal key',
          mode: 'live',
          permission: 'write',
        });
        await withKey(made.body.secret, 200, 'the new key');
        const rolled = await expect('POST', `${ws}/keys/${made.body.id}/roll`, 201, { graceSeconds: 0 });
        await withKey(made.body.secret, 401, 'the rolled key');
        await withKey(rolled.body.secret, 200, 'the key it rolled to');
        const keys = await expect('GET', `${ws}/keys`, 200);
        check(
          keys.body.data.some((k: { id: string }) => k.id === rolled.body.id),
          `the rolled-to key is not listed: ${keys.text.slice(0, 300)}`,
        );
        await expect('DELETE', `${ws}/keys/${rolled.body.id}`, 204);
        await withKey(rolled.body.secret, 401, 'the revoked key');

        await expect('GET', `${ws}/channels`, 200);
        // The consent as the dashboard's user gives it: the network, Herald's callback, back on
        // the dashboard with ?connectCode, completed through the user routes.
        const consent = async (platform: string) => {
          const connect = await expect('POST', `${ws}/channels/connect`, 201, {
            platform,
            redirectUrl: `${rt.url}/dashboard/`,
          });
          check(connect.body.authorizeUrl, `the connect start has no authorizeUrl: ${connect.text}`);
          const authorize = new URL(connect.body.authorizeUrl);
          authorize.searchParams.set('sim_user', `dashboard${platform}${Date.now()}`);
          const atNetwork = await fetch(authorize, { redirect: 'manual' });
          const callback = atNetwork.headers.get('location');
          check(callback?.includes('/v1/channels/callback'), `the network redirected to ${callback}`);
          const atHerald = await fetch(callback as string, { redirect: 'manual' });
          const landed = new URL(atHerald.headers.get('location') ?? 'https://missing.example');
          check(
            landed.pathname === '/dashboard/' && landed.searchParams.get('connectCode'),
            `the callback landed on ${landed}`,
          );
          return landed.searchParams.get('connectCode');
        };
        const connected = await expect('POST', `${ws}/channels/connect/complete`, 201, {
          connectCode: await consent('linkedin'),
        });
        await expect('DELETE', `${ws}/channels/${connected.body.id}`, 200);
        // Facebook's consent grants pages: the complete answers the choice, listed, then one chosen.
        const pending = await expect('POST', `${ws}/channels/connect/complete`, 200, {
          connectCode: await consent('facebook'),
        });
        check(
          pending.body.pending === 'targets',
          `the Facebook complete is not a targets choice: ${pending.text}`,
        );
        const targets = `${ws}/channels/connect/${pending.body.connectionId}/targets`;
        const offered = await expect('GET', targets, 200);
        const chosen = await expect('POST', targets, 201, { targetIds: [offered.body.data[0]?.id] });
        for (const channel of chosen.body.data as { id: string }[])
          await expect('DELETE', `${ws}/channels/${channel.id}`, 200);

        check(mediaPostId, 'no published post to read');
        await expect('GET', `${ws}/posts`, 200);
        const post = `${ws}/posts/${mediaPostId}`;
        const read = await expect('GET', post, 200);
        check(read.body.id === mediaPostId, `GET ${post} is another post: ${read.text.slice(0, 300)}`);
        await expect('GET', `${post}/metrics`, 200);
        const timeline = await expect('GET', `${post}/timeline`, 200);
        const keyTimeline = await api(`/posts/${mediaPostId}/timeline`, { key });
        check(
          keyTimeline.status === 200,
          `GET /v1/posts/{id}/timeline answered ${keyTimeline.status}: ${keyTimeline.text.slice(0, 300)}`,
        );
        for (const answer of [timeline, keyTimeline]) {
          const kinds = (answer.body.data as { kind: string }[]).map((event) => event.kind);
          check(
            answer.body.postId === mediaPostId && kinds.includes('channel_published'),
            `the timeline has no channel_published event: ${answer.text.slice(0, 300)}`,
          );
        }

        const hook = await api('/webhooks', {
          method: 'POST',
          key,
          body: { url: receiver.url('/dashboard'), events: ['post.published'] },
        });
        check(hook.status === 201, `POST /v1/webhooks answered ${hook.status}: ${hook.text}`);
        const hookId = hook.body.endpoint.id as string;
        try {
          await expect('GET', `${ws}/webhooks`, 200);
          const secret = await expect('GET', `${ws}/webhooks/${hookId}/secret`, 200);
          check(secret.body.secret === hook.body.secret, "the secret read is not the endpoint's");
          await expect('GET', `${ws}/webhooks/${hookId}/deliveries`, 200);
        } finally {
          const removed = await api(`/webhooks/${hookId}`, { method: 'DELETE', key });
          check(
            removed.status === 200,
            `DELETE /v1/webhooks/{id} answered ${removed.status}: ${removed.text}`,
          );
        }
      },
    );

  await step(
    'comments: a Bluesky post with sim:comments read, one comment answered, the answer deleted',
    async () => {
      const created = await api('/posts', {
        method: 'POST',
        key,
        body: {
          intent: 'now',
          channels: [
            { channelId: channel('bluesky'), blocks: [{ content: 'Rehearsal comments sim:comments' }] },
          ],
        },
      });
      check(created.status === 201, `POST /posts answered ${created.status}: ${created.text}`);
      const postId = created.body.id as string;
      const post = await settledPost(api, key, postId, 90_000);
      check(post.status === 'published', `the post ended ${post.status}`);
      const listed = await api(`/posts/${postId}/comments`, { key });
      const comments = listed.body?.channels?.[0]?.comments as { id: string }[] | null;
      check(
        listed.status === 200 && (comments?.length ?? 0) >= 3,
        `GET /v1/posts/{id}/comments answered ${listed.status}: ${listed.text.slice(0, 300)}`,
      );
      const target = (comments as { id: string }[])[0]?.id as string;
      const replies = `/posts/${postId}/comments/${target}/replies`;
      const reply = await api(replies, {
        method: 'POST',
        key,
        headers: { 'idempotency-key': randomUUID() },
        body: { channelId: channel('bluesky'), content: 'Thanks from the rehearsal' },
      });
      check(reply.status === 201, `the reply answered ${reply.status}: ${reply.text.slice(0, 300)}`);
      const removed = await api(`${replies}/${reply.body.id}`, { method: 'DELETE', key });
      check(
        removed.status === 200 && removed.body.status === 'deleted',
        `DELETE of the reply answered ${removed.status}: ${removed.text.slice(0, 300)}`,
      );
    },
  );

  await step('a metrics reading of the post with media', async () => {
    check(mediaPostId, 'no post with media to read');
    await until(
      'a metrics reading',
      async () => {
        const res = await api(`/posts/${mediaPostId}/metrics`, { key });
        if (res.status !== 200) throw new RehearsalFailure(`GET metrics answered ${res.status}: ${res.text}`);
        const readings = (res.body.channels as { readings: { status: string }[] }[]).flatMap(
          (c) => c.readings,
        );
        return readings.some((r) => r.status === 'ok') ? true : undefined;
      },
      90_000,
    );
  });
  return results;
};

const main = async () => {
  const { values } = parseArgs({
    options: {
      assembly: { type: 'string' },
      verbose: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      'skip-lint': { type: 'boolean', default: false },
    },
  });
  const started = performance.now();
  const scratch = mkdtempSync(join(tmpdir(), 'herald-rehearsal-'));
  const failures: string[] = [];
  let rt: LocalRuntime | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  const certs = makeCertificates();
  const logs: string[] = [];
  try {
    let directory = values.assembly ? resolve(values.assembly) : join(scratch, 'cdk.out');
    if (!values.assembly) {
      const since = performance.now();
      synthesize(directory);
      console.log(`cdk synth: ok (${seconds(since)})`);
    } else {
      directory = resolve(values.assembly);
      check(existsSync(directory), `no assembly at ${directory}`);
      console.log(`cdk synth: skipped, using ${directory}`);
    }

    const since = performance.now();
    const lint = values['skip-lint'] ? { skipped: '--skip-lint' } : lintTemplates(directory);
    if ('skipped' in lint) console.log(`cfn-lint: SKIPPED: ${lint.skipped}`);
    else if (lint.refused.length > 0) {
      failures.push(...lint.refused.map((line) => `cfn-lint: ${line}`));
      console.log(`cfn-lint: FAILED, ${lint.refused.length} finding(s) not allowed (${seconds(since)})`);
    } else {
      console.log(
        `cfn-lint: ok, 0 errors, ${lint.allowed} allowed warning(s) (cfn-lint-allowed.json) (${seconds(since)})`,
      );
    }

    const model = readCloudAssembly(directory);
    const routeProblems = checkRoutes(model);
    failures.push(...routeProblems);
    console.log(
      `assembly: ${model.stacks.size} stacks, ${model.functions.size} functions, ${model.routes.length} routes, ` +
        `${model.eventSources.length} event source mappings${routeProblems.length ? ' (routes differ from the manifests)' : ''}`,
    );

    receiver = await startReceiver(certs);
    const runtimeSince = performance.now();
    rt = await startLocalRuntime({
      dataDir: join(scratch, 'data'),
      port: 0,
      fresh: true,
      assembly: {
        directory,
        onLog: (fn, line) => {
          logs.push(`${fn}: ${line}`);
          if (values.verbose) console.log(`  [${fn}] ${line}`);
        },
      },
      env: {
        // Time runs faster for the metrics cadence; everything else keeps the template's settings.
        METRICS_TIME_SCALE: '36000',
        METRICS_SWEEP_INTERVAL_SECONDS: '0.5',
        WEBHOOK_EXTRA_CA_CERTS: certs.caFile,
      },
    });
    console.log(`runtime from the assembly: up (${seconds(runtimeSince)})`);
    const pool = await rt.cognito();
    const userRouteKeys = userRoutes.map((route) => `${route.method} ${route.path}`);
    const authorizerProblems = checkJwtAuthorizers(model, userRouteKeys, pool);
    failures.push(...authorizerProblems.map((problem) => `JWT authorizer: ${problem}`));
    console.log(
      `JWT authorizer: ${authorizerProblems.length ? 'FAILED' : 'ok'}, on the ${userRouteKeys.length} user routes, ` +
        `trusting the local user pool ${pool.userPoolId} and its app client`,
    );
    const results = await runThrough(rt, receiver);
    for (const result of results) {
      console.log(`${result.error ? 'FAIL' : 'ok  '} ${result.step} (${(result.ms / 1000).toFixed(1)} s)`);
      if (result.error) {
        console.log(`     ${result.error}`);
        failures.push(`${result.step}: ${result.error}`);
      }
    }
    // A call the template refused is a policy CDK built wrong, even where the code shrugged it off.
    const refusals = [...new Set(rt.assembly?.refusals ?? [])];
    for (const refusal of refusals) failures.push(`refused by the template's IAM: ${refusal}`);
    const stats = rt.assembly?.stats() ?? [];
    const ran = stats.filter((s) => s.invocations > 0);
    console.log(
      `functions run: ${ran.length} of ${stats.length} (${ran.reduce((n, s) => n + s.invocations, 0)} invocations, ` +
        `${ran.reduce((n, s) => n + s.coldStarts, 0)} cold starts); AWS calls refused by the template's IAM: ${refusals.length}`,
    );
    const idle = stats.filter((s) => s.invocations === 0).map((s) => s.path.replace(/\/Resource$/, ''));
    if (idle.length > 0) console.log(`  not run: ${idle.join(', ')}`);
  } catch (error) {
    failures.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
  } finally {
    await rt?.stop().catch(() => undefined);
    await receiver?.close().catch(() => undefined);
    certs.remove();
    if (!values.keep) rmSync(scratch, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    console.log(`\nRehearsal FAILED in ${seconds(started)}:`);
    for (const failure of failures) console.log(`  - ${failure}`);
    if (!values.verbose && logs.length > 0) {
      console.log("\nThe functions' last log lines:");
      for (const line of logs.slice(-40)) console.log(`  ${line}`);
    }
    process.exit(1);
  }
  console.log(`\nRehearsal passed in ${seconds(started)}.`);
  process.exit(0);
};

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) void main();
