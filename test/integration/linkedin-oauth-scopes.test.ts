import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_OAUTH_APPS } from '../../functions/adapters/local/sim-oauth-apps.ts';
import { createLinkedInClient, DEFAULT_LINKEDIN_VERSION } from '../../functions/platforms/linkedin/client.ts';
import {
  LINKEDIN_MEMBER_SCOPES,
  LINKEDIN_PAGE_SCOPES,
  linkedInMemberAuth,
  linkedInPageAuth,
} from '../../functions/platforms/linkedin/oauth.ts';
import type { NetworkAuth, TokenSet } from '../../functions/ports/network-auth.ts';
import type { Simulator } from '../../simulators/framework/framework.ts';
import { startLinkedInSimulator } from '../../simulators/linkedin/simulator.ts';
import { servedFrom, startFileServer } from '../support/file-server.ts';
import { blockInput, failureOf } from '../support/network.ts';

/**
 * LinkedIn's two apps and their scopes against the simulator (issue 26, defect 10 and the scope
 * checks): the page app (Community Management API, alone on its app) cannot grant OpenID Connect,
 * so the page grant identifies the member through `/v2/me` with `r_basicprofile`; every data route
 * refuses a token whose grant lacks the scope LinkedIn requires, with LinkedIn's 403
 * `ACCESS_DENIED` "Not enough permissions to access: …".
 */

const REDIRECT = 'https://herald.example/v1/channels/callback';
const TIMEOUT = 5_000;
/** What the page grant asked before issue 26: OpenID Connect next to the Community Management scopes. */
const OLD_PAGE_SCOPES = [
  'openid',
  'profile',
  'w_organization_social',
  'r_organization_social',
  'rw_organization_admin',
];

let sim: Simulator;
let member: NetworkAuth;
let page: NetworkAuth;
const memberApp = SIM_OAUTH_APPS.linkedin;
const pageApp = SIM_OAUTH_APPS.linkedin_page;

beforeAll(async () => {
  sim = await startLinkedInSimulator({ media: { processingMs: 20 } });
  member = linkedInMemberAuth({ baseUrls: { linkedin: sim.url }, timeoutMs: TIMEOUT });
  page = linkedInPageAuth({ baseUrls: { linkedin_page: sim.url }, timeoutMs: TIMEOUT });
});
afterAll(async () => {
  await sim?.stop();
});

/** The consent screen's answer (a redirect back to Herald) for `scopes` asked by `clientId`. */
const authorize = async (clientId: string, scopes: string[], extra: Record<string, string> = {}) => {
  const url = new URL(`${sim.url}/oauth/v2/authorization`);
  for (const [key, value] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    state: 'st',
    scope: scopes.join(' '),
    ...extra,
  }))
    url.searchParams.set(key, value);
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location') as string).searchParams;
};

/** A grant through Herald's own auth module; `only` grants fewer scopes than asked (`sim_scopes`). */
const connect = async (auth: NetworkAuth, app: typeof memberApp, only?: string[]): Promise<TokenSet> => {
  const url = new URL(
    (auth.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>)({
      app,
      redirectUri: REDIRECT,
      state: 's',
      codeChallenge: null,
    }),
  );
  url.searchParams.set('sim_user', `li${randomBytes(3).toString('hex')}`);
  if (only) url.searchParams.set('sim_scopes', only.join(' '));
  const response = await fetch(url, { redirect: 'manual' });
  const code = new URL(response.headers.get('location') as string).searchParams.get('code');
  expect(code, 'the consent gave a code').toBeTruthy();
  return (auth.exchangeCode as NonNullable<NetworkAuth['exchangeCode']>)({
    app,
    code: code as string,
    redirectUri: REDIRECT,
    codeVerifier: null,
  });
};

const api = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${sim.url}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'linkedin-version': DEFAULT_LINKEDIN_VERSION,
      'x-restli-protocol-version': '2.0.0',
    },
  });

const client = (platform: 'linkedin' | 'linkedin_page') =>
  createLinkedInClient(platform, {
    baseUrl: sim.url,
    timeoutMs: TIMEOUT,
    media: { pollMs: 10, maxProcessingSeconds: 5 },
  });

describe('LinkedIn page grants (Community Management API app)', () => {
  it('the page app refuses OpenID Connect scopes as LinkedIn does: the old page grant gets no code', async () => {
    const refused = await authorize(pageApp.clientId, OLD_PAGE_SCOPES);
    expect(refused.get('code')).toBeNull();
    expect(refused.get('error')).toBe('unauthorized_scope_error');
    expect(refused.get('error_description')).toBe('Scope "openid" is not authorized for your application');
    // And the member app cannot grant the organization scopes.
    const memberRefused = await authorize(memberApp.clientId, ['openid', 'w_organization_social']);
    expect(memberRefused.get('error_description')).toBe(
      'Scope "w_organization_social" is not authorized for your application',
    );
  });

  it('asks only what the Community Management app grants, and everything the page client uses', () => {
    expect(LINKEDIN_PAGE_SCOPES).not.toContain('openid');
    expect(LINKEDIN_PAGE_SCOPES).not.toContain('profile');
    expect(LINKEDIN_PAGE_SCOPES).toEqual(
      expect.arrayContaining([
        'r_basicprofile',
        'w_organization_social',
        'r_organization_social',
        'rw_organization_admin',
      ]),
    );
    expect(page.capabilities(LINKEDIN_PAGE_SCOPES)).toEqual({
      publish: true,
      manage: true,
      threads: true,
      metrics: true,
    });
    expect(LINKEDIN_MEMBER_SCOPES).toEqual(['openid', 'profile', 'w_member_social']);
    // A member's metrics need r_member_social, which LinkedIn grants to approved apps only.
    expect(member.capabilities(LINKEDIN_MEMBER_SCOPES).metrics).toBe(false);
  });

  it('connects a page: the member from /v2/me (userinfo is refused without openid), its pages, a post as the page', async () => {
    const tokens = await connect(page, pageApp);
    expect([...tokens.scopes].sort()).toEqual([...LINKEDIN_PAGE_SCOPES].sort());
    const userinfo = await api('/v2/userinfo', tokens.accessToken);
    expect(userinfo.status).toBe(403);
    expect(await userinfo.json()).toMatchObject({
      status: 403,
      code: 'ACCESS_DENIED',
      message: expect.stringMatching(/^Not enough permissions to access: userinfo/),
    });
    const account = await page.identify({ app: pageApp, tokens });
    expect(account.remoteAccountId).toMatch(/^sim\d+$/);
    expect(account.name).toMatch(/^Simulated li[0-9a-f]{6}$/);
    const targets = await (page.targets as NonNullable<NetworkAuth['targets']>)({ app: pageApp, tokens });
    expect(targets).toHaveLength(2);
    const target = targets[0] as (typeof targets)[number];
    const post = await client('linkedin_page').publish(
      blockInput({ accessToken: tokens.accessToken, remoteAccountId: target.targetId })('As the page'),
    );
    expect(post.remoteId).toMatch(/^urn:li:share:/);
  });

  it('the member app still identifies through OpenID Connect; its token has no Profile API access', async () => {
    const tokens = await connect(member, memberApp);
    expect([...tokens.scopes].sort()).toEqual([...LINKEDIN_MEMBER_SCOPES].sort());
    const account = await member.identify({ app: memberApp, tokens });
    expect(account.remoteAccountId).toMatch(/^sim\d+$/);
    expect((await api('/v2/me', tokens.accessToken)).status).toBe(403);
  });
});

describe('scopes on the LinkedIn simulator’s data routes', () => {
  let files: Awaited<ReturnType<typeof startFileServer>> | undefined;
  const stored = new Map<string, Buffer>();
  beforeAll(async () => {
    files = await startFileServer(servedFrom(stored));
    stored.set('pic.png', randomBytes(500));
  });
  afterAll(async () => {
    await files?.close();
  });
  const picture = () => [
    {
      mediaId: 'med_pic',
      mimeType: 'image/png',
      size: 500,
      altText: null,
      url: `${files?.url}/pic.png`,
    },
  ];
  const denied = (
    error: { kind: string; message: string; details: { status?: number } },
    resource: RegExp,
  ) => {
    expect(error.kind).toBe('permanent');
    expect(error.details.status).toBe(403);
    expect(error.message).toMatch(/Not enough permissions to access: /);
    expect(error.message).toMatch(resource);
  };

  it('a page grant without w_organization_social cannot post, upload or comment as the page', async () => {
    const full = await connect(page, pageApp);
    const [target] = await (page.targets as NonNullable<NetworkAuth['targets']>)({
      app: pageApp,
      tokens: full,
    });
    const pageId = target?.targetId as string;
    const tokens = await connect(page, pageApp, [
      'r_basicprofile',
      'r_organization_social',
      'rw_organization_admin',
    ]);
    expect(tokens.scopes).not.toContain('w_organization_social');
    expect(page.capabilities(tokens.scopes).publish).toBe(false);
    const as = blockInput({ accessToken: tokens.accessToken, remoteAccountId: pageId });
    denied(
      await failureOf(client('linkedin_page').publish(as('No write scope'))),
      /partnerApiPostsExternal\.CREATE/,
    );
    denied(
      await failureOf(client('linkedin_page').publish(as('No write scope', { media: picture() }))),
      /assets\.UPLOAD/,
    );
    // The full grant's post, commented with the reduced grant.
    const fullAs = blockInput({ accessToken: full.accessToken, remoteAccountId: pageId });
    const post = await client('linkedin_page').publish(fullAs('Posted with every scope'));
    denied(
      await failureOf(
        client('linkedin_page').publish(as('A comment', { parent: { block: post, root: post } })),
      ),
      /comments\.CREATE/,
    );
    // With the scope, the same comment carries its image.
    const comment = await client('linkedin_page').publish(
      fullAs('A comment with a picture', { parent: { block: post, root: post }, media: picture() }),
    );
    expect(comment.remoteId).toMatch(/^urn:li:comment:/);
  });

  it('reading a page’s posts and comments needs r_organization_social; its statistics rw_organization_admin', async () => {
    const full = await connect(page, pageApp);
    const [target] = await (page.targets as NonNullable<NetworkAuth['targets']>)({
      app: pageApp,
      tokens: full,
    });
    const pageId = target?.targetId as string;
    const post = await client('linkedin_page').publish(
      blockInput({ accessToken: full.accessToken, remoteAccountId: pageId })(
        `Read me ${randomBytes(3).toString('hex')}`,
      ),
    );
    const writeOnly = await connect(page, pageApp, [
      'r_basicprofile',
      'w_organization_social',
      'rw_organization_admin',
    ]);
    const credentials = { accessToken: writeOnly.accessToken, remoteAccountId: pageId };
    denied(
      await failureOf(
        client('linkedin_page').lookup({
          credentials,
          idempotencyKey: 'k',
          content: 'Read me',
          parent: null,
          since: new Date(0),
          saved: null,
        }),
      ),
      /partnerApiPostsExternal\.FINDER-author/,
    );
    denied(
      await failureOf(
        client('linkedin_page').lookup({
          credentials,
          idempotencyKey: 'k2',
          content: 'a comment',
          parent: { block: post, root: post },
          since: new Date(0),
          saved: null,
        }),
      ),
      /comments\.FINDER/,
    );
    const noAdmin = await connect(page, pageApp, [
      'r_basicprofile',
      'w_organization_social',
      'r_organization_social',
    ]);
    denied(
      await failureOf(
        client('linkedin_page').metrics({
          credentials: { accessToken: noAdmin.accessToken, remoteAccountId: pageId },
          block: post,
        }),
      ),
      /organizationalEntityShareStatistics/,
    );
    const acls = await failureOf(
      (page.targets as NonNullable<NetworkAuth['targets']>)({ app: pageApp, tokens: noAdmin }),
    );
    expect(acls.message).toMatch(/organizationAcls/);
    expect(
      await client('linkedin_page').metrics({
        credentials: { accessToken: full.accessToken, remoteAccountId: pageId },
        block: post,
      }),
    ).toHaveProperty('impressions');
  });

  it('a member grant posts, comments and uploads with w_member_social, but cannot read its posts (r_member_social)', async () => {
    const tokens = await connect(member, memberApp);
    const { remoteAccountId } = await member.identify({ app: memberApp, tokens });
    const as = blockInput({ accessToken: tokens.accessToken, remoteAccountId });
    const post = await client('linkedin').publish(as('Member post', { media: picture() }));
    const comment = await client('linkedin').publish(
      as('Member comment', { parent: { block: post, root: post }, media: picture() }),
    );
    expect(comment.remoteId).toMatch(/^urn:li:comment:/);
    const read = await api(`/rest/posts/${encodeURIComponent(post.remoteId)}`, tokens.accessToken);
    expect(read.status).toBe(403);
    expect(await read.json()).toMatchObject({
      code: 'ACCESS_DENIED',
      message: expect.stringMatching(/^Not enough permissions to access: partnerApiPostsExternal\.GET/),
    });
    denied(
      await failureOf(
        client('linkedin').metrics({
          credentials: { accessToken: tokens.accessToken, remoteAccountId },
          block: post,
        }),
      ),
      /socialActions\.GET/,
    );
    // A member's token acts as that member only, and a page token only for pages its member administers.
    const other = await failureOf(
      client('linkedin').publish(
        blockInput({ accessToken: tokens.accessToken, remoteAccountId: 'simSomeoneElse' })('Not me'),
      ),
    );
    expect(other).toMatchObject({ kind: 'permanent', details: { status: 403 } });
    const pageTokens = await connect(page, pageApp);
    const foreign = await failureOf(
      client('linkedin_page').publish(
        blockInput({ accessToken: pageTokens.accessToken, remoteAccountId: '99999999' })('Not my page'),
      ),
    );
    expect(foreign).toMatchObject({ kind: 'permanent', details: { status: 403 } });
  });
});
