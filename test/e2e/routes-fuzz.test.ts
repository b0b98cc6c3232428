import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_REQUEST_LINE_AND_HEADERS_BYTES } from '../../functions/adapters/local/http-server.ts';
import { addTag, connectChannel, createApiKey } from '../../functions/core/admin/admin.ts';
import { POST_STATUSES } from '../../functions/domain/post.ts';
import { routes } from '../../functions/http/routes.ts';
import { EVENT_TYPES } from '../../functions/ports/webhooks.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { oversizedKeys, watchKeys } from '../support/dynamo-key-limits.ts';
import { mediaFiles } from '../support/media-files.ts';
import { REQUEST_ID, startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * Random requests at every route of the manifest, through the real HTTP server: path ids, query
 * strings, headers (keys, Idempotency-Key, Content-Type), cursors and bodies. Whatever comes in:
 * never a 5xx; every answer has a request id and the rate-limit headers; every error is the
 * envelope; and a request refused with a 4xx changes nothing in the table. FUZZ_RUNS sets the
 * number of requests per route.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10);

let rt: TestRuntime;
type Workspace = Awaited<ReturnType<typeof freshWorkspace>>;
let ws: Workspace;
let keys: { live: string; test: string; read: string; other: string };
const ids: Record<'post' | 'med' | 'wh' | 'tag' | 'ch' | 'connection', string[]> = {
  post: [],
  med: [],
  wh: [],
  tag: [],
  ch: [],
  // States and connection ids of connections (the targets routes' path).
  connection: [],
};
/** Connect codes: fresh ones (a request may complete one), used ones. */
const connectCodes: string[] = [];
/** Connect states waiting for the network's redirect, and used ones (the callback's query). */
const connectStates: string[] = [];
const cursors: string[] = [];

/** A multipart/form-data body as a client would send it (or a broken one). */
const multipart = (
  parts: { name: string; fileName?: string; type?: string; bytes: Buffer }[],
  boundary = 'fuzzBoundary',
) =>
  Buffer.concat([
    ...parts.flatMap((p) => [
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.fileName !== undefined ? `; filename="${p.fileName}"` : ''}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`,
        'latin1',
      ),
      p.bytes,
      Buffer.from('\r\n'),
    ]),
    Buffer.from(`--${boundary}--\r\n`),
  ]);

const uploadPng = async (key: string) => {
  const res = await rt.api('/media', {
    method: 'POST',
    key,
    rawBody: multipart([{ name: 'file', fileName: 'a.png', type: 'image/png', bytes: mediaFiles.png() }]),
    headers: { 'content-type': 'multipart/form-data; boundary=fuzzBoundary' },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
};

const scheduledBody = (channelId: string, content = 'Fixture') => ({
  intent: 'schedule',
  scheduledAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
  channels: [{ channelId, blocks: [{ content }] }],
});

const addPost = async (channelId: string, content?: string) => {
  const post = await rt.api('/posts', {
    method: 'POST',
    key: keys.live,
    body: scheduledBody(channelId, content),
  });
  expect(post.status, post.text).toBe(201);
  ids.post.push(post.body.id);
};

const addWebhook = async () => {
  // A workspace holds at most 20 endpoints: make room, the fuzzer creates some too.
  const existing = (await rt.api('/webhooks', { key: keys.live })).body.data as { id: string }[];
  for (const { id } of existing.slice(0, Math.max(0, existing.length - 15))) {
    expect((await rt.api(`/webhooks/${id}`, { method: 'DELETE', key: keys.live })).status).toBe(200);
  }
  const hook = await rt.api('/webhooks', {
    method: 'POST',
    key: keys.live,
    body: { url: 'https://127.0.0.1:9/hooks', events: ['post.published'] },
  });
  expect(hook.status, hook.text).toBe(201);
  ids.wh.push(hook.body.endpoint.id);
};

/** A channel DELETE /channels/{id} may remove (the workspace's own channels serve the post fixtures). */
const addChannel = async () => {
  const channel = await connectChannel(rt.container.deps, {
    accountId: ws.accountId,
    workspaceId: ws.workspaceId,
    platform: 'bluesky',
    name: `Disposable ${randomUUID()}`,
    remoteAccountId: `did:plc:disposable${randomUUID().replaceAll('-', '')}`,
    accessToken: 'token',
  });
  ids.ch.push(channel.channelId);
};

/** The consent of a new simulator user through a connection the live key started: where the browser lands. */
const consented = async (platform: 'x' | 'pinterest') => {
  const start = await rt.api('/channels/connect', {
    method: 'POST',
    key: keys.live,
    body: { platform, redirectUrl: 'https://client.example/done' },
  });
  expect(start.status, start.text).toBe(201);
  const authorize = new URL(start.body.authorizeUrl);
  authorize.searchParams.set('sim_user', `f${randomUUID().slice(0, 8)}`);
  const atNetwork = await fetch(authorize, { redirect: 'manual' });
  const callback = atNetwork.headers.get('location') as string;
  const atHerald = await fetch(callback, { redirect: 'manual' });
  const landed = new URL(atHerald.headers.get('location') as string).searchParams;
  return { state: start.body.state as string, callback, connectCode: landed.get('connectCode') as string };
};

/** Connections at every step, for the connect routes: pending, redirected (code), completed, targets open. */
const addConnections = async () => {
  const pending = await rt.api('/channels/connect', {
    method: 'POST',
    key: keys.live,
    body: { platform: 'x', redirectUrl: 'https://client.example/done' },
  });
  connectStates.push(pending.body.state);
  const redirected = await consented('x');
  const used = await consented('x');
  expect(
    (
      await rt.api('/channels/connect/complete', {
        method: 'POST',
        key: keys.live,
        body: { connectCode: used.connectCode },
      })
    ).status,
  ).toBe(201);
  connectStates.push(redirected.state, new URL(used.callback).searchParams.get('state') as string);
  connectCodes.push(redirected.connectCode, used.connectCode);
  const boards = await consented('pinterest');
  const opened = await rt.api('/channels/connect/complete', {
    method: 'POST',
    key: keys.live,
    body: { connectCode: boards.connectCode },
  });
  expect(opened.status, opened.text).toBe(200);
  ids.connection.push(opened.body.connectionId, boards.state, redirected.state, pending.body.state);
  connectCodes.push(boards.connectCode);
};

/** A fresh thing for an id route to act on: an earlier DELETE must not leave later routes only 404s. */
const addFixtureFor = async (path: string) => {
  if (path.startsWith('/v1/channels/c')) await addConnections();
  if (path === '/v1/channels/{id}') await addChannel();
  if (path.startsWith('/v1/posts/')) await addPost(ws.channels.x);
  if (path.startsWith('/v1/media/')) ids.med.push(await uploadPng(keys.live));
  if (path.startsWith('/v1/webhooks/')) await addWebhook();
};

beforeAll(async () => {
  rt = await startTestRuntime();
  watchKeys();
  ws = await freshWorkspace(rt, ['x', 'bluesky', 'facebook', 'reddit']);
  const deps = rt.container.deps;
  const extra = async (mode: 'live' | 'test', permission: 'read' | 'write') =>
    (
      await createApiKey(deps, {
        accountId: ws.accountId,
        workspaceId: ws.workspaceId,
        mode,
        permission,
        name: 'k',
      })
    ).secret;
  keys = {
    live: ws.key,
    test: await extra('test', 'write'),
    read: await extra('live', 'read'),
    other: rt.seed.keys.live,
  };
  ids.ch.push(...Object.values(ws.channels));
  ids.tag.push(
    (await addTag(deps, { accountId: ws.accountId, workspaceId: ws.workspaceId, name: 'Fuzz' })).tagId,
  );
  await addPost(ws.channels.x);
  await addPost(ws.channels.bluesky, 'Second');
  ids.med.push(await uploadPng(keys.live), await uploadPng(keys.live));
  await addWebhook();
  await addConnections();
  // Cursors of every list, so the fuzzer can hand one list's cursor to another list or filter.
  for (const path of [
    '/posts?limit=1',
    '/posts?limit=1&status=scheduled',
    `/posts?limit=1&tag=${ids.tag[0]}`,
    '/media?limit=1',
  ]) {
    const page = await rt.api(path, { key: keys.live });
    if (page.body.nextCursor) cursors.push(page.body.nextCursor);
  }
  expect(cursors.length).toBeGreaterThanOrEqual(3);
}, 120_000);
afterAll(async () => {
  // The worker's next file shares these modules: the client's own send again.
  vi.restoreAllMocks();
  await rt?.destroy();
});

/** A value with every object's attributes in name order: an update may hand them back in another. */
const inNameOrder = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(inNameOrder)
    : value !== null && typeof value === 'object' && !(value instanceof Set)
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((k) => [k, inNameOrder((value as Record<string, unknown>)[k])]),
        )
      : value instanceof Set
        ? [...value].sort()
        : value;

/**
 * Every item of the table but the rate-limit counters (each request counts, by design): the
 * counter items of client addresses and users, and the window and last use an API key's item carries.
 */
const snapshot = async (): Promise<Map<string, string>> => {
  const { doc, tableName } = rt.container.deps.table;
  const items = new Map<string, string>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: start }));
    for (const item of page.Items ?? []) {
      if (String(item.PK).startsWith('RATE#')) continue;
      const { rateWindow: _window, rateCount: _count, lastUsedAt: _used, ...rest } = item;
      const kept = String(item.PK).startsWith('APIKEY#') ? rest : item;
      items.set(`${item.PK} ${item.SK}`, JSON.stringify(inNameOrder(kept)));
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};

const differences = (before: Map<string, string>, after: Map<string, string>): string[] => {
  const out: string[] = [];
  for (const [key, value] of after)
    if (before.get(key) !== value) out.push(`${before.has(key) ? 'changed' : 'added'} ${key}`);
  for (const key of before.keys()) if (!after.has(key)) out.push(`removed ${key}`);
  return out;
};

// ---------------------------------------------------------------------------------------------
// generators

const anyJson = fc.jsonValue({ maxDepth: 3 });
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.constantFrom('', ' ', '\u0000', '😀'.repeat(300), '%ZZ', '../..', '<script>'),
  // Longer than any key may be.
  fc.constantFrom('x', 'tag_', 'med_', 'post_').map((prefix) => `${prefix}${'x'.repeat(2100)}`),
);
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

const pathId = () =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...Object.values(ids).flat()) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom('post', 'med', 'wh', 'tag', 'ch', 'evt', 'dlv')
        .map((p) => `${p}_${'0'.repeat(22)}`),
    },
    { weight: 2, arbitrary: text.filter((t) => t.length > 0).map(encodeURIComponent) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '%ZZ',
        '%',
        '%E0%A4%A',
        '%F0%9F%98',
        '%00',
        '%2F',
        '%25',
        'post_%ZZ',
        `post_${'a'.repeat(65)}`,
        `med_${'a'.repeat(3000)}`,
        'wh_a-b',
      ),
    },
  );

const cursorValue = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...cursors) },
    {
      weight: 2,
      arbitrary: fc
        .record(
          {
            v: fc.oneof(fc.constantFrom(1, 2), anyJson),
            after: fc.oneof(text, anyJson),
            scope: fc.oneof(text, anyJson),
          },
          { requiredKeys: [] },
        )
        .map(b64url),
    },
    { weight: 1, arbitrary: anyJson.map(b64url) },
    { weight: 1, arbitrary: fc.constantFrom(...cursors).map((c) => `${c.slice(0, -2)}AA`) },
    { weight: 1, arbitrary: text },
  );

const dateValue = fc.oneof(
  fc
    .date({ noInvalidDate: true, min: new Date('0001-01-01'), max: new Date('9999-12-31') })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    '2030-01-01',
    '2030-02-30',
    '2030-01-01T10:00:00',
    '2030-01-01T10:00:00+14:00',
    '0000-01-01',
    '9999-12-31',
    '',
  ),
  text,
);

/** A query string: known parameters with good and bad values, repeated, unknown and malformed. */
/** Query parameters: the list parameters with good and bad values, repeated, unknown ones too. */
const queryString = (list: boolean) =>
  fc
    .array(
      fc.oneof(
        {
          weight: 1,
          arbitrary: fc.tuple(
            fc.constant('limit'),
            fc.oneof(fc.integer({ min: -5, max: 200 }).map(String), text),
          ),
        },
        { weight: 3, arbitrary: fc.tuple(fc.constant('cursor'), cursorValue()) },
        {
          weight: 1,
          arbitrary: fc.tuple(fc.constant('status'), fc.oneof(fc.constantFrom(...POST_STATUSES), text)),
        },
        {
          weight: 2,
          arbitrary: fc.tuple(
            fc.constant('tag'),
            fc.oneof(fc.constantFrom(...ids.tag, 'tag_0000000000000000000000'), text),
          ),
        },
        { weight: 2, arbitrary: fc.tuple(fc.constantFrom('from', 'to'), dateValue) },
        { weight: 1, arbitrary: fc.tuple(text, text) },
      ),
      // A list route always gets a few: its query is where its input is.
      { minLength: list ? 1 : 0, maxLength: 5 },
    )
    .chain((pairs) =>
      fc.boolean().map((raw) =>
        pairs
          // Now and then a value goes unencoded, malformed escapes included.
          .map(
            ([k, v]) => `${encodeURIComponent(k)}=${raw ? v.replace(/[#&\s]/g, '') : encodeURIComponent(v)}`,
          )
          .join('&'),
      ),
    );

/** Header values fetch can send (no control characters), from sane to absurd. */
const headerText = fc.string({
  minLength: 0,
  maxLength: 300,
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
});

const authHeaders = () =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant({ 'x-api-key': keys.live }) },
    { weight: 2, arbitrary: fc.constant({ authorization: `Bearer ${keys.live}` }) },
    { weight: 2, arbitrary: fc.constant({ 'x-api-key': keys.test }) },
    { weight: 2, arbitrary: fc.constant({ 'x-api-key': keys.read }) },
    { weight: 1, arbitrary: fc.constant({ 'x-api-key': keys.other }) },
    { weight: 1, arbitrary: fc.constant({}) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        headerText.map((v) => ({ 'x-api-key': v })),
        headerText.map((v) => ({ authorization: v })),
        fc.constant({ authorization: 'Bearer ' }),
        fc.constant({ 'x-api-key': `${keys.live}x` }),
        fc.constant({ 'x-api-key': keys.read, authorization: `Bearer ${keys.live}` }),
      ),
    },
  );

const otherHeaders = (json: boolean) =>
  fc.record(
    {
      'idempotency-key': fc.oneof(
        { weight: 3, arbitrary: fc.constant(randomUUID()).map(() => randomUUID()) },
        { weight: 1, arbitrary: headerText },
        { weight: 1, arbitrary: fc.constant('fixed-key-1') },
      ),
      'content-type': json
        ? fc.oneof(
            { weight: 6, arbitrary: fc.constant('application/json') },
            {
              weight: 1,
              arbitrary: fc.constantFrom(
                'text/plain',
                'application/json; charset=utf-8',
                'application/vnd.api+json',
                'multipart/form-data; boundary=fuzzBoundary',
                'application/x-www-form-urlencoded',
              ),
            },
          )
        : fc.oneof(
            fc.constantFrom(
              'multipart/form-data; boundary=fuzzBoundary',
              'multipart/form-data',
              'multipart/form-data; boundary=',
              'application/json',
              'image/png',
            ),
            headerText,
          ),
    },
    { requiredKeys: [] },
  );

const channelId = () =>
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...ids.ch) }, { weight: 1, arbitrary: text });

/**
 * Post bodies, valid or broken. PUT keeps posts scheduled: a fixture turned into a draft could then
 * be published, and publishing (and its webhook retries) would change the table in the background.
 */
const postBody = (intents: string[]) => {
  const valid = fc.record({
    intent: fc.constantFrom(...intents),
    channels: fc.array(
      fc.record({
        channelId: fc.constantFrom(ws.channels.x, ws.channels.bluesky, ws.channels.facebook),
        blocks: fc.array(
          fc.record({
            content: fc.string({ minLength: 1, maxLength: 50 }).filter((t) => t.trim() !== ''),
            mediaIds: fc.array(fc.oneof(fc.constantFrom(...ids.med), text), { maxLength: 2 }),
          }),
          { minLength: 1, maxLength: 2 },
        ),
      }),
      { minLength: 1, maxLength: 2 },
    ),
    tagIds: fc.array(fc.oneof(fc.constantFrom(...ids.tag), text), { maxLength: 2 }),
  });
  return fc
    .tuple(valid, fc.nat(), fc.oneof(anyJson, text, dateValue), fc.constantFrom('keep', 'replace', 'remove'))
    .map(([body, pick, value, how]) => {
      const b = {
        ...body,
        ...(body.intent === 'schedule'
          ? { scheduledAt: new Date(Date.now() + 86_400_000).toISOString() }
          : {}),
      } as Record<string, any>;
      if (how === 'keep') return b;
      const channel = b.channels[pick % b.channels.length];
      const targets: [Record<string, any>, string][] = [
        [b, 'intent'],
        [b, 'scheduledAt'],
        [b, 'channels'],
        [b, 'tagIds'],
        [channel, 'channelId'],
        [channel, 'blocks'],
        [channel, 'options'],
        [channel.blocks[0], 'content'],
        [channel.blocks[0], 'mediaIds'],
      ];
      const [target, field] = targets[pick % targets.length] as [Record<string, any>, string];
      // 'now' starts publishing in the background (and 'draft' on PUT could lead there).
      if (how === 'remove') delete target[field];
      else target[field] = value === 'now' || value === 'draft' ? `${value}ish` : value;
      return b;
    });
};

const jsonBodies: Record<string, () => fc.Arbitrary<unknown>> = {
  'POST /v1/tags': () =>
    fc.record(
      { name: fc.oneof(text, anyJson), color: fc.oneof(fc.constantFrom('#1d9bf0', null), text) },
      { requiredKeys: [] },
    ),
  'POST /v1/posts': () => postBody(['draft', 'schedule']),
  'PUT /v1/posts/{id}': () => postBody(['schedule']),
  'POST /v1/posts/{id}/revise': () =>
    fc.record({
      channels: fc.oneof(
        fc.array(
          fc.record({
            channelId: channelId(),
            blocks: fc.array(fc.record({ content: text }), { maxLength: 3 }),
          }),
          {
            maxLength: 2,
          },
        ),
        anyJson,
      ),
    }),
  'POST /v1/posts/{id}/comments/{commentId}/replies': () =>
    fc.record(
      {
        channelId: channelId(),
        content: fc.oneof(text, anyJson),
        mediaIds: fc.oneof(fc.array(fc.oneof(fc.constantFrom(...ids.med), text), { maxLength: 5 }), anyJson),
      },
      { requiredKeys: [] },
    ),
  'POST /v1/media/uploads': () =>
    fc.record(
      {
        fileName: fc.oneof(fc.constantFrom('a.png', 'clip.mp4', 'x.exe', '../../etc/passwd'), text),
        mimeType: fc.oneof(fc.constantFrom('image/png', 'video/mp4', 'text/plain', 'application/pdf'), text),
        size: fc.oneof(fc.integer({ min: -10, max: 200 * 1024 * 1024 }), fc.double(), anyJson),
        altText: fc.oneof(text, fc.constant(null), anyJson),
      },
      { requiredKeys: [] },
    ),
  'PUT /v1/media/{id}': () =>
    fc.record({ altText: fc.oneof(text, fc.constant(null), anyJson) }, { requiredKeys: [] }),
  'POST /v1/webhooks': () => webhookBody(['url', 'events']),
  'PUT /v1/webhooks/{id}': () => webhookBody([]),
  'POST /v1/channels/connect': () =>
    fc.record(
      {
        platform: fc.oneof(fc.constantFrom('x', 'linkedin', 'bluesky', 'vimeo', 'myspace'), anyJson),
        redirectUrl: fc.oneof(
          fc.constantFrom(
            'https://client.example/done',
            'http://localhost:3000/cb',
            'http://client.example/cb',
            'javascript:alert(1)',
          ),
          text,
        ),
      },
      { requiredKeys: [] },
    ),
  'POST /v1/channels': () =>
    fc.record(
      {
        platform: fc.oneof(fc.constantFrom('bluesky', 'x'), anyJson),
        identifier: fc.oneof(fc.constantFrom('fuzz.bsky.social', ''), text),
        appPassword: fc.oneof(fc.constantFrom('abcd-efgh-ijkl-mnop'), text, anyJson),
        service: fc.oneof(fc.constantFrom('https://pds.example', 'http://pds.example'), text),
      },
      { requiredKeys: [] },
    ),
  'POST /v1/channels/connect/{state}/targets': () =>
    fc.record(
      {
        targetIds: fc.oneof(
          fc.array(fc.oneof(text, fc.constantFrom('fuzz-board', 'board_0')), { maxLength: 3 }),
          fc.array(fc.constant('x'), { minLength: 50, maxLength: 60 }),
          anyJson,
        ),
      },
      { requiredKeys: [] },
    ),
  'POST /v1/channels/connect/complete': () =>
    fc.record(
      {
        connectCode: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...connectCodes) },
          {
            weight: 2,
            arbitrary: fc.constantFrom(...connectCodes).map((code) => `${code.slice(0, -4)}AAAA`),
          },
          {
            weight: 1,
            arbitrary: fc.constantFrom(
              `cc_${'A'.repeat(43)}${'a'.repeat(32)}`,
              `cc_${'_'.repeat(43)}${'0'.repeat(32)}`,
              'cc_',
              `con_${'A'.repeat(43)}`,
              `cc_${'a'.repeat(5000)}`,
            ),
          },
          { weight: 2, arbitrary: fc.oneof(text, anyJson) },
        ),
      },
      { requiredKeys: [] },
    ),
};

/** The callback's query: the state, code and error a network (or anybody) may send. */
const callbackQuery = () =>
  fc
    .record(
      {
        state: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...connectStates) },
          { weight: 2, arbitrary: text },
          { weight: 1, arbitrary: fc.constantFrom('', 'x'.repeat(201), `con_${'A'.repeat(43)}`) },
        ),
        code: fc.oneof(text, fc.constantFrom('abc', '')),
        error: fc.oneof(fc.constantFrom('access_denied', 'server_error', '<script>', 'a'.repeat(100)), text),
      },
      { requiredKeys: [] },
    )
    .map((pairs) =>
      Object.entries(pairs)
        .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
        .join('&'),
    );

const webhookUrl = fc.oneof(
  fc.constantFrom(
    'https://127.0.0.1:9/hooks',
    'https://localhost:9/in',
    'http://127.0.0.1/x',
    'https://10.0.0.1/x',
    'https://[::1]:9/x',
    `https://${'a'.repeat(64)}.example.com/x`,
    `https://${'a.'.repeat(130)}com/x`,
    'https://a..b.com/x',
    'https://user:pw@127.0.0.1/x',
    `https://127.0.0.1/${'x'.repeat(3000)}`,
  ),
  text,
);
const webhookBody = (required: string[]) =>
  fc.record(
    {
      url: webhookUrl,
      events: fc.oneof(
        fc.subarray([...EVENT_TYPES], { minLength: 1 }),
        fc.array(text, { maxLength: 3 }),
        anyJson,
      ),
      description: fc.oneof(text, fc.constant(null), anyJson),
      enabled: fc.oneof(fc.boolean(), anyJson),
    },
    { requiredKeys: required as never[] },
  );

const multipartBody = () =>
  fc
    .record({
      field: fc.constantFrom('file', 'file', 'other'),
      fileName: fc.oneof(
        fc.constantFrom('a.png', 'a.jpg', '', 'x'.repeat(400)),
        text.map((t) => t.replace(/["\r\n]/g, '')),
      ),
      type: fc.constantFrom('image/png', 'image/jpeg', 'text/plain', ''),
      bytes: fc.oneof(
        fc.constant(mediaFiles.png()),
        fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
      ),
      breakIt: fc.constantFrom('no', 'no', 'truncate', 'boundary'),
    })
    .map(({ field, fileName, type, bytes, breakIt }) => {
      const body = multipart([{ name: field, fileName, type, bytes }]);
      if (breakIt === 'truncate') return body.subarray(0, Math.floor(body.length / 2));
      if (breakIt === 'boundary') return multipart([{ name: field, fileName, type, bytes }], 'otherBoundary');
      return body;
    });

/** The body of one request: the route's own shape (valid or broken), other JSON, or no JSON at all. */
const bodyFor = (routeKey: string): fc.Arbitrary<string | Buffer | undefined> => {
  if (routeKey === 'POST /v1/media')
    return fc.oneof(
      { weight: 4, arbitrary: multipartBody() },
      { weight: 1, arbitrary: fc.constant(undefined) },
    );
  const own = jsonBodies[routeKey];
  return fc.oneof(
    { weight: own ? 6 : 0, arbitrary: own ? own().map((b) => JSON.stringify(b)) : fc.constant(undefined) },
    { weight: own ? 1 : 4, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: anyJson.map((v) => JSON.stringify(v)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('{', 'null', '', '   ', '[]', 'not json', '{"a":1}{"b":2}', '\u0000'),
    },
  );
};

/** The routes that page: their query (filters, cursors) gets more runs. */
const isList = (routeKey: string) =>
  ['GET /v1/posts', 'GET /v1/media', 'GET /v1/webhooks/{id}/deliveries'].includes(routeKey);

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Buffer | undefined;
}

const requestFor = (method: string, template: string): fc.Arbitrary<FuzzRequest> => {
  const routeKey = `${method} ${template}`;
  const params = template.match(/\{[^}]+\}/g) ?? [];
  return (
    fc
      .record({
        ids: fc.tuple(...params.map(() => pathId())),
        query: isList(routeKey)
          ? queryString(true)
          : routeKey === 'GET /v1/channels/callback'
            ? fc.oneof(
                { weight: 3, arbitrary: callbackQuery() },
                { weight: 1, arbitrary: queryString(false) },
              )
            : fc.oneof(fc.constant(''), queryString(false)),
        auth: authHeaders(),
        other: otherHeaders(routeKey !== 'POST /v1/media').chain((headers) =>
          // A browser asks the callback for HTML.
          routeKey === 'GET /v1/channels/callback'
            ? fc
                .constantFrom(undefined, 'text/html,application/xhtml+xml,*/*;q=0.8', 'application/json')
                .map((accept) => (accept ? { ...headers, accept } : headers))
            : fc.constant(headers),
        ),
        body: bodyFor(routeKey),
      })
      .map(({ ids: values, query, auth, other, body }) => {
        let path = template.replace(/^\/v1/, '');
        for (const value of values) path = path.replace(/\{[^}]+\}/, value);
        return {
          method,
          path: `${path}${query ? `?${query}` : ''}`,
          headers: { ...auth, ...other },
          body: method === 'GET' || method === 'DELETE' ? (body === undefined ? undefined : undefined) : body,
        };
      })
      // Only what API Gateway lets through to a route: its quota on the request line and header
      // values (with room for the headers fetch adds) refuses the rest before any function runs,
      // which the spine tests check.
      // The request line is measured as fetch sends it: characters a URL cannot hold (an emoji in a
      // query) go percent-encoded, three times their size or more.
      .filter((request) => {
        const sent = new URL(`/v1${request.path}`, 'http://localhost');
        return (
          Buffer.byteLength(`${request.method} ${sent.pathname}${sent.search} HTTP/1.1`) +
            Object.values(request.headers).reduce((n, value) => n + Buffer.byteLength(value), 0) <=
          MAX_REQUEST_LINE_AND_HEADERS_BYTES - 512
        );
      })
  );
};

// ---------------------------------------------------------------------------------------------
// the property

let baseline: Map<string, string>;

/** Sends one request and checks what every answer must be. */
const check = async (request: FuzzRequest, compare: boolean) => {
  const res = await rt.api(request.path, {
    method: request.method,
    key: null,
    headers: request.headers,
    // The callback's redirect goes to the client's page: its answer is the 302 itself.
    redirect: 'manual',
    ...(request.body !== undefined ? { rawBody: request.body } : {}),
  });
  const label = `${request.method} ${request.path.slice(0, 200)} -> ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, label).toBeLessThan(500);
  expect(oversizedKeys.splice(0), label).toEqual([]);
  const requestId = res.headers.get('x-request-id');
  expect(requestId, label).toMatch(REQUEST_ID);
  // A request over API Gateway's size limits is refused at the front door, before any function
  // counts it: that 413 has no rate-limit headers (API Gateway's own answer has none either).
  const refusedAtTheDoor = res.status === 413 && res.body?.error?.code === 'payload_too_large';
  if (!refusedAtTheDoor) {
    expect(res.headers.get('x-ratelimit-limit'), label).toMatch(/^\d+$/);
    expect(res.headers.get('x-ratelimit-remaining'), label).toMatch(/^\d+$/);
  }
  if (res.status >= 400 && /^text\/html/.test(res.headers.get('content-type') ?? '')) {
    // The callback's page for a browser: only when asked for, with no redirect, naming the request.
    expect(
      request.path.startsWith('/channels/callback') && /text\/html/.test(request.headers.accept ?? ''),
      label,
    ).toBe(true);
    expect(res.headers.get('location'), label).toBeNull();
    expect(res.text, label).toContain(requestId);
  } else if (res.status >= 400) {
    expect(typeof res.body?.error?.code, label).toBe('string');
    expect(typeof res.body.error.message, label).toBe('string');
    expect(res.body.error.requestId, label).toBe(requestId);
  }
  if (!compare) return res.status;
  const now = await snapshot();
  if (res.status >= 400) expect(differences(baseline, now), label).toEqual([]);
  baseline = now;
  return res.status;
};

/** Answers of the whole run by route, to check the generators reach both outcomes. */
const seen = new Map<string, number[]>();

const fuzzRoute = async (method: string, template: string) => {
  const routeKey = `${method} ${template}`;
  // The callback is the one GET that changes something: a valid state is used up, even by a refusal.
  const mutating = method !== 'GET' || template === '/v1/channels/callback';
  baseline = await snapshot();
  const statuses: number[] = [];
  seen.set(routeKey, statuses);
  const arbitrary = requestFor(method, template);
  // Besides the random ones: the same request without a key, which must be refused and change nothing.
  const [sample] = fc.sample(arbitrary, { numRuns: 1, seed: 1 }) as [FuzzRequest];
  await fc.assert(
    fc.asyncProperty(arbitrary, async (request) => {
      statuses.push(await check(request, mutating));
    }),
    {
      numRuns: isList(routeKey) ? RUNS * 4 : RUNS,
      endOnFailure: true,
      examples: [[{ ...sample, headers: { 'content-type': 'application/json' } }]],
    },
  );
  // A GET changes nothing, whatever it answers.
  if (!mutating) expect(differences(baseline, await snapshot())).toEqual([]);
};

describe('every route under random requests', () => {
  it('has a body generator for every route that takes JSON', () => {
    const jsonRoutes = routes
      .filter((r) => r.method === 'POST' || r.method === 'PUT')
      .map((r) => `${r.method} ${r.path}`);
    const bodiless = [
      'POST /v1/posts/{id}/publish',
      'POST /v1/posts/{id}/retract',
      'POST /v1/media',
      'POST /v1/media/{id}/complete',
      'POST /v1/webhooks/{id}/roll-secret',
    ];
    expect(jsonRoutes.filter((r) => !jsonBodies[r] && !bodiless.includes(r))).toEqual([]);
  });

  for (const route of routes) {
    it(`${route.method} ${route.path}: never 5xx, always the envelope and headers, nothing changed on 4xx`, async () => {
      // DELETE /channels/{id} acts on disposable channels only: the workspace's own serve the post fixtures.
      const kept = route.method === 'DELETE' && route.path === '/v1/channels/{id}' ? ids.ch.splice(0) : [];
      await addFixtureFor(route.path);
      try {
        await fuzzRoute(route.method, route.path);
      } finally {
        ids.ch.push(...kept);
      }
      // The OAuth callback is the one route a browser calls without a key (its state authenticates it).
      if (route.path !== '/v1/channels/callback')
        expect(seen.get(`${route.method} ${route.path}`)).toContain(401);
    }, 120_000);
  }

  it('reached successes and many kinds of refusal, or the properties say little', () => {
    const all = [...seen.values()].flat();
    expect(seen.size).toBe(routes.length);
    expect(all.filter((s) => s < 300).length).toBeGreaterThan(routes.length);
    expect(new Set(all.filter((s) => s >= 400)).size).toBeGreaterThanOrEqual(5);
  });

  it('the public reference page: any asset name answers 200 with its file or 404 in the envelope, never 5xx', async () => {
    const served = new Set(['swagger-ui-bundle.js', 'swagger-ui.css', 'init.js']);
    const asset = fc.oneof(
      fc.constantFrom(
        ...served,
        'constructor',
        '__proto__',
        'toString',
        'valueOf',
        'hasOwnProperty',
        'isPrototypeOf',
        '__lookupGetter__',
        'prototype',
        '..%2Fpackage.json',
        '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
        'swagger-ui-bundle.js%00.css',
        'SWAGGER-UI.CSS',
        'index.html',
      ),
      text.map(encodeURIComponent),
    );
    baseline = await snapshot();
    await fc.assert(
      fc.asyncProperty(asset, async (name) => {
        const res = await rt.api(`${rt.url}/docs/${name}`, { method: 'GET', key: null });
        const label = `GET /docs/${name.slice(0, 100)} -> ${res.status} ${res.text.slice(0, 200)}`;
        expect(res.headers.get('x-request-id'), label).toMatch(REQUEST_ID);
        // The docs function's own answers carry its headers; an empty name reaches no route.
        if (name !== '') {
          expect(res.headers.get('content-security-policy'), label).toContain("frame-ancestors 'none'");
        }
        if (served.has(decodeURIComponent(name))) {
          expect(res.status, label).toBe(200);
          return;
        }
        expect(res.status, label).toBe(404);
        expect(res.body?.error?.code, label).toBe('not_found');
        expect(res.body.error.requestId, label).toBe(res.headers.get('x-request-id'));
      }),
      { numRuns: RUNS * 4, endOnFailure: true },
    );
    expect(differences(baseline, await snapshot())).toEqual([]);
  }, 120_000);

  it('unmatched paths and methods: 404 or 405 in the envelope, with the headers', async () => {
    const path = fc.oneof(
      fc
        .array(
          fc.oneof(
            text.map(encodeURIComponent),
            fc.constantFrom('v1', 'posts', 'media', 'webhooks', '%ZZ', ''),
          ),
          { maxLength: 4 },
        )
        .map((s) => `/v1/${s.join('/')}`),
      fc.constantFrom(...routes.map((r) => r.path.replace(/\{[^}]+\}/g, 'x'))),
    );
    baseline = await snapshot();
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
          path,
          auth: authHeaders(),
        }),
        async ({ method, path: p, auth }) => {
          const res = await rt.api(`${rt.url}${p}`, { method, key: null, headers: auth });
          if (res.status >= 200 && res.status < 300) return; // it named a real route
          await check({ method, path: p.replace(/^\/v1/, ''), headers: auth, body: undefined }, false);
        },
      ),
      { numRuns: RUNS, endOnFailure: true },
    );
    expect(differences(baseline, await snapshot())).toEqual([]);
  }, 120_000);
});
