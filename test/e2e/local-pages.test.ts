/**
 * The local runtime's pages in a browser: a connect's browser flow ends on the runtime's own
 * landing page (`/connected`), whose command completes the connect as printed; and no page
 * (/docs, /connected, the dashboard) makes the browser ask for anything that fails, the
 * /favicon.ico a browser asks for by default included.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleLog, type LocalLog } from '../../functions/adapters/local/console-log.ts';
import { CHROMIUM, type HeadlessChromium, launchChromium } from '../support/chromium.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { waitFor } from '../support/wait.ts';

const run = promisify(execFile);

/** Every request line the runtime logs (`GET /docs 200 3ms req_…`). */
const lines: string[] = [];
const requestLog: LocalLog = { ...consoleLog('silent'), level: 'info', info: (line) => lines.push(line) };

let rt: TestRuntime;
let browser: HeadlessChromium | undefined;
let page: Page;
const pageProblems: string[] = [];

beforeAll(async () => {
  rt = await startTestRuntime({ log: requestLog });
  if (!existsSync(CHROMIUM)) return;
  browser = await launchChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.setDefaultTimeout(30_000);
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) pageProblems.push(message.text());
  });
  page.on('pageerror', (error) => pageProblems.push(error.message));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await rt?.destroy();
});

/** A connect of the X simulator's account whose browser flow ends on the runtime's landing page. */
const startConnect = async () => {
  const started = await rt.api('/v1/channels/connect', {
    method: 'POST',
    body: { platform: 'x', redirectUrl: `${rt.url}/connected` },
  });
  expect(started.status, started.text).toBe(201);
  return started.body as { authorizeUrl: string; state: string };
};

describe.skipIf(!existsSync(CHROMIUM))('the local runtime pages in headless Chromium', () => {
  it('lands a connect on /connected, whose command completes it as printed', async () => {
    const { authorizeUrl, state } = await startConnect();
    // The simulator consents at once and sends the browser through Herald's callback.
    await page.goto(authorizeUrl);
    await page.getByRole('heading', { name: 'One step left: complete the connect' }).waitFor();
    const landed = new URL(page.url());
    expect(`${landed.origin}${landed.pathname}`).toBe(`${rt.url}/connected`);
    expect(landed.searchParams.get('state')).toBe(state);
    const code = landed.searchParams.get('connectCode') as string;
    await expect(page.getByText(code, { exact: true }).count()).resolves.toBe(1);

    const command = await page.locator('pre').innerText();
    expect(command).toContain(code);
    const { stdout } = await run('bash', ['-c', command], {
      env: { ...process.env, KEY: rt.seed.keys.live },
    });
    const channel = JSON.parse(stdout);
    expect(channel).toMatchObject({ id: expect.stringMatching(/^ch_/), platform: 'x', status: 'connected' });
    const listed = await rt.api('/v1/channels');
    expect(listed.body.data.map((c: { id: string }) => c.id)).toContain(channel.id);
  });

  it('shows the error of a refused consent, and no command', async () => {
    const { authorizeUrl } = await startConnect();
    await page.goto(`${authorizeUrl}&sim_deny=1`);
    await page.getByRole('heading', { name: 'The connection was not made' }).waitFor();
    expect(new URL(page.url()).searchParams.get('error')).toBe('access_denied');
    await expect(page.locator('dd').first().innerText()).resolves.toBe('access_denied');
    await expect(page.locator('pre').count()).resolves.toBe(0);
  });

  it('asks for nothing that fails on /docs, /connected and the dashboard, the favicon included', async () => {
    const from = lines.length;
    await page.goto(`${rt.url}/docs`);
    await page.locator('#operations-Posts-postPosts').waitFor({ timeout: 60_000 });
    await page.goto(`${rt.url}/connected`);
    await page.getByRole('heading', { name: 'Nothing to complete here' }).waitFor();
    await page.goto(`${rt.url}/dashboard/`);
    await page.getByLabel('Email').waitFor();
    const seen = lines.slice(from);
    expect(seen.filter((line) => line.startsWith('GET /docs '))).not.toEqual([]);
    expect(
      seen.filter((line) => / (4\d\d|5\d\d) /.test(line) && !line.startsWith('GET /connected 400')),
    ).toEqual([]);
    expect(pageProblems).toEqual([]);

    // The browser does ask for /favicon.ico where a page names no icon (here a JSON answer): the
    // check above would have seen it.
    await page.goto(`${rt.url}/health`);
    await waitFor(() => lines.some((line) => line.startsWith('GET /favicon.ico 404')), {
      what: 'the browser to ask for /favicon.ico',
    });
    expect(seen.filter((line) => line.includes('/favicon.ico'))).toEqual([]);
  }, 120_000);
});
