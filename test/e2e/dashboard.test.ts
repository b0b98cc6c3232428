import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, type HeadlessChromium, launchChromium } from '../support/chromium.ts';
import type { Receiver } from '../support/https-receiver.ts';
import { publishNow } from '../support/publishing.ts';
import { startReceiverRuntime } from '../support/receiver-runtime.ts';
import type { TestRuntime } from '../support/runtime.ts';
import { cognitoCall, otherAccountUser, signIn, totp } from '../support/users.ts';
import { waitFor } from '../support/wait.ts';

/**
 * The dashboard in headless Chromium against a local runtime: the owner signs in through the
 * Cognito emulator, then every page is used as a person would (keys, channels, posts with their
 * chart and timeline, webhooks, usage). On every page: axe-core finds no serious or critical
 * violation, the CSP reports nothing, and at 375 px nothing scrolls sideways. Screenshots go to
 * test-output/dashboard/. One browser and one tab for the whole file.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const OUTPUT = join(ROOT, 'test-output', 'dashboard');

let rt: TestRuntime;
let receiver: Receiver;
let stop: (() => Promise<void>) | undefined;
let browser: HeadlessChromium | undefined;
let page: Page;
let postId: string;
let webhook: { id: string; secret: string };
const consoleProblems: string[] = [];

beforeAll(async () => {
  // Readings every 0.1 s of a real hour, swept every 0.2 s: the chart has points within seconds.
  ({ rt, receiver, stop } = await startReceiverRuntime({
    env: { METRICS_TIME_SCALE: '36000', METRICS_SWEEP_INTERVAL_SECONDS: '0.2' },
  }));
  const created = await rt.api('/webhooks', {
    method: 'POST',
    body: { url: receiver.url('/dashboard-hook'), events: ['post.published'] },
  });
  expect(created.status, created.text).toBe(201);
  webhook = { id: created.body.endpoint.id, secret: created.body.secret };
  const x = rt.seed.channels.find((c) => c.platform === 'x');
  const post = await publishNow(rt, rt.seed.keys.live, x?.id ?? '', 'Seen from the dashboard');
  expect(post.status).toBe('published');
  postId = post.id;

  mkdirSync(OUTPUT, { recursive: true });
  browser = await launchChromium({ viewport: { width: 1200, height: 900 } });
  const { context } = browser;
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
  // What the page itself gets wrong (an answer's 4xx is the API's business, not a page error).
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) consoleProblems.push(message.text());
  });
  page.on('pageerror', (error) => consoleProblems.push(error.message));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stop?.();
});

/** axe-core on the page as it is: the serious and critical violations, by rule and element. */
const axeViolations = async (): Promise<string[]> => {
  await page.evaluate(axe.source);
  const results = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] })",
  )) as axe.AxeResults;
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
};

/** What sticks out past the viewport's right edge (nothing, for a page usable on a phone). */
const sideways = () =>
  page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth');

/** The checks every page passes, then its screenshot. */
const checkPage = async (name: string) => {
  expect(await axeViolations(), name).toEqual([]);
  expect(await sideways(), name).toBe(false);
  const shot = join(OUTPUT, `${name}.png`);
  await page.screenshot({ path: shot, fullPage: true });
  expect(statSync(shot).size).toBeGreaterThan(5_000);
};

const open = async (hash: string, heading: string) => {
  await page.goto(`${rt.url}/dashboard/#/${hash}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
};

describe.skipIf(!existsSync(CHROMIUM))('the dashboard in headless Chromium', { timeout: 120_000 }, () => {
  it('signs the owner in with the password from the seed, in the demo workspace', async () => {
    const { owner, endpoint, region, userPoolId, clientId } = await rt.cognito();
    await page.goto(`${rt.url}/dashboard/`);
    await page.getByLabel('Email').waitFor();
    // The page's configuration: the emulator's four settings, nothing more (not the owner's password).
    const config = (await page.evaluate("fetch('/dashboard/config.json').then((r) => r.text())")) as string;
    expect(JSON.parse(config)).toEqual({ apiBase: '', cognito: { endpoint, region, userPoolId, clientId } });
    expect(config).not.toContain(owner.password);
    await checkPage('sign-in');
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await expect(page.getByText(owner.email).count()).resolves.toBeGreaterThan(0);
    await page.getByLabel('Workspace').selectOption(rt.seed.workspaces.main);
    // The tokens are the tab's: a reload keeps the session.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await expect(page.getByLabel('Workspace').inputValue()).resolves.toBe(rt.seed.workspaces.main);

    // A session about to expire is renewed from the refresh token before the page's next call.
    const session = async () =>
      JSON.parse((await page.evaluate("sessionStorage.getItem('herald.session')")) as string) as {
        expiresAt: number;
        accessToken: string;
      };
    const stored = await session();
    await page.evaluate(
      `sessionStorage.setItem('herald.session', JSON.stringify({ ...${JSON.stringify(stored)}, expiresAt: Date.now() + 1000 }))`,
    );
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    const renewed = await waitFor(
      async () => {
        const now = await session();
        return now.expiresAt > Date.now() + 120_000 && now;
      },
      { what: 'the session renewed' },
    );
    expect(renewed.accessToken).toMatch(/^ey/);
    await page.locator('tbody tr').first().waitFor();
  });

  it('creates a key whose secret works at once, rolls it, then revokes it: the next request is 401', async () => {
    await open('keys', 'API keys');
    await page.getByLabel('Name').fill('from the browser');
    await page.getByLabel('Mode').selectOption('live');
    await page.getByLabel('Permission').selectOption('read');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secretBox = page.getByLabel('Secret', { exact: true });
    await secretBox.waitFor();
    const secret = await secretBox.inputValue();
    expect(secret).toMatch(/^sk_live_/);
    const row = page.locator('tr', { hasText: 'from the browser' });
    await expect(row.locator('td').nth(1).innerText()).resolves.toBe(`${secret.slice(0, 12)}…`);
    await checkPage('keys');

    const use = (key: string) => fetch(`${rt.url}/v1/channels`, { headers: { 'x-api-key': key } });
    expect((await use(secret)).status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();
    await secretBox.waitFor({ state: 'detached' });

    // Roll with no grace: a new secret is shown once, and the old one stops working at once.
    await row.getByRole('button', { name: 'Roll from the browser' }).click();
    await row.getByLabel('Old secret stops working').selectOption('0');
    await row.getByRole('button', { name: 'Roll', exact: true }).click();
    await secretBox.waitFor();
    const rolled = await secretBox.inputValue();
    expect(rolled).not.toBe(secret);
    expect((await use(rolled)).status).toBe(200);
    await waitFor(async () => (await use(secret)).status === 401, { what: 'the old secret refused' });
    await page.getByRole('button', { name: 'Done' }).click();

    await expect(page.locator('tr', { hasText: 'from the browser' }).count()).resolves.toBe(1);
    await row.getByRole('button', { name: 'Revoke from the browser' }).click();
    await row.getByRole('button', { name: 'Confirm revoke' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await use(rolled)).status).toBe(401);
  });

  it('connects a page network through the simulator and adds the pages chosen', async () => {
    await open('channels', 'Channels');
    await checkPage('channels');
    const before = await page.locator('tbody tr').count();
    await page.getByLabel('Network').selectOption('facebook');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    // The simulator consents and sends the browser back through Herald's callback to the dashboard.
    await page.getByRole('heading', { name: /Choose what to connect/ }).waitFor();
    expect(new URL(page.url()).search).toBe('');
    await page.getByRole('button', { name: 'Connect selected' }).click();
    await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
    await waitFor(async () => (await page.locator('tbody tr').count()) > before, {
      what: 'the new channel listed',
    });
    const listed = await rt.api('/channels');
    expect(listed.body.data.length).toBe(await page.locator('tbody tr').count());
  });

  it('lists the post made through the API with its status and link, and opens its chart and timeline', async () => {
    await open('posts', 'Posts');
    const row = page.locator(`tr[data-post-id="${postId}"]`);
    await row.waitFor();
    await expect(row.getByText('published').count()).resolves.toBeGreaterThan(0);
    await expect(row.getByRole('link', { name: /view/ }).getAttribute('href')).resolves.toMatch(
      /^https:\/\//,
    );
    await checkPage('posts');

    // Wait for readings through the API first, so the page shows a chart when it loads.
    await waitFor(
      async () => {
        const res = await rt.api(`/posts/${postId}/metrics`);
        return (
          res.body.channels?.[0]?.readings?.filter((r: { status: string }) => r.status === 'ok').length >= 2
        );
      },
      { timeoutMs: 60_000, what: 'two metrics readings' },
    );
    await row.getByRole('link', { name: 'Seen from the dashboard' }).click();
    await page.getByRole('heading', { level: 1, name: /Post/ }).waitFor();
    await page.locator('.chart canvas').first().waitFor();
    await page.getByRole('img', { name: 'x metrics over time' }).waitFor();
    const kinds = await page
      .locator('.timeline li')
      .evaluateAll((items) => items.map((li) => li.getAttribute('data-kind')));
    expect(kinds).toContain('sent');
    expect(kinds.at(-1)).toBe('channel_published');
    await checkPage('post');
  });

  it('reveals the webhook signing secret and reads a delivery with its status code and attempt', async () => {
    await waitFor(() => receiver.received.some((r) => r.path === '/dashboard-hook'), { what: 'a delivery' });
    await open('webhooks', 'Webhooks');
    const endpoint = page.locator(`[data-webhook-id="${webhook.id}"]`);
    await endpoint.getByRole('button', { name: 'Reveal signing secret' }).click();
    await expect(endpoint.getByLabel('Signing secret').inputValue()).resolves.toBe(webhook.secret);
    await endpoint.getByRole('button', { name: 'Show deliveries' }).click();
    const delivery = endpoint.locator('tbody tr').first();
    await delivery.waitFor();
    await expect(delivery.locator('.status-code').innerText()).resolves.toBe('200');
    await expect(delivery.innerText()).resolves.toContain('post.published');
    await checkPage('webhooks');
  });

  it('shows the plan and its counters', async () => {
    await open('usage', 'Usage');
    const usage = await rt.api('/usage');
    await page.locator('.plan').waitFor();
    await expect(page.locator('.plan').innerText()).resolves.toMatch(new RegExp(usage.body.plan, 'i'));
    await expect(page.getByRole('heading', { name: 'Channels' }).count()).resolves.toBe(1);
    await checkPage('usage');
  });

  it('is usable at phone width on every page, and signs out', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const [hash, heading] of [
      ['keys', 'API keys'],
      ['channels', 'Channels'],
      ['posts', 'Posts'],
      [`posts/${postId}`, /Post/],
      ['webhooks', 'Webhooks'],
      ['usage', 'Usage'],
    ] as const) {
      await page.goto(`${rt.url}/dashboard/#/${hash}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      expect(await sideways(), hash).toBe(false);
      expect(await axeViolations(), hash).toEqual([]);
    }
    await page.screenshot({ path: join(OUTPUT, 'phone-post.png'), fullPage: true });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').waitFor();
    expect(await page.evaluate("sessionStorage.getItem('herald.session')")).toBeNull();
    expect(consoleProblems).toEqual([]);
  });

  it('answers the challenges: a new password on first sign-in, then a TOTP code, for a user who sees only their account', async () => {
    const settings = await rt.cognito();
    const other = await otherAccountUser(rt);
    // As create-owner leaves a new person: a temporary password that the first sign-in replaces.
    await cognitoCall(settings, 'AdminSetUserPassword', {
      UserPoolId: settings.userPoolId,
      Username: other.email,
      Password: other.password,
      Permanent: false,
    });
    await page.setViewportSize({ width: 1200, height: 900 });
    // A tab of its own: no session left from the tests before.
    await page.goto(`${rt.url}/dashboard/`);
    await page.evaluate('sessionStorage.clear()');
    await page.reload();
    const signInAs = async (password: string) => {
      await page.getByLabel('Email').fill(other.email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
    };
    await signInAs(other.password);
    const chosen = 'Chosen-In-The-Browser-1!';
    await page.getByLabel('Choose a new password').fill(chosen);
    await checkPage('new-password');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    // Only this account's workspace is offered: none of the demo account's.
    const offered = await page
      .getByLabel('Workspace')
      .locator('option')
      .evaluateAll((options) => options.map((o) => o.getAttribute('value')));
    expect(offered).toEqual([other.workspaceId]);
    await page.getByRole('button', { name: 'Sign out' }).click();

    // The person turns TOTP on (as an authenticator app's set-up does), then signs in with a code.
    const tokens = await signIn(settings, other.email, chosen);
    const { body: associated } = await cognitoCall(settings, 'AssociateSoftwareToken', {
      AccessToken: tokens.accessToken,
    });
    await cognitoCall(settings, 'VerifySoftwareToken', {
      AccessToken: tokens.accessToken,
      UserCode: totp(associated.SecretCode),
    });
    await cognitoCall(settings, 'SetUserMFAPreference', {
      AccessToken: tokens.accessToken,
      SoftwareTokenMfaSettings: { Enabled: true, PreferredMfa: true },
    });
    await signInAs(chosen);
    await page.getByLabel('Code from your authenticator app').fill(totp(associated.SecretCode));
    await checkPage('mfa');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await expect(page.getByText(other.email).count()).resolves.toBeGreaterThan(0);
    expect(consoleProblems).toEqual([]);
  });
});
