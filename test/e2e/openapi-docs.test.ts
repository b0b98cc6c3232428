import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, type HeadlessChromium, launchChromium } from '../support/chromium.ts';
import { REQUEST_ID, startTestRuntime, type TestRuntime } from '../support/runtime.ts';

const ROOT = resolve(import.meta.dirname, '../..');
/** Screenshots land here (gitignored). */
const OUTPUT = join(ROOT, 'test-output');

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime();
});
afterAll(async () => {
  await rt?.destroy();
});

describe('GET /v1/openapi.json and /docs', () => {
  it('serves the committed document without a key', async () => {
    const res = await rt.api('/v1/openapi.json', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(res.body).toEqual(JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')));
    expect(res.body.openapi).toBe('3.1.1');
    const post = await rt.api('/v1/openapi.json', { key: null, method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });

  it('serves the reference page and its assets from Herald itself, and 404s any other file', async () => {
    const page = await rt.api(`${rt.url}/docs`, { key: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('/docs/swagger-ui-bundle.js');
    expect(page.text).not.toMatch(/https?:\/\//);
    const script = await rt.api(`${rt.url}/docs/swagger-ui-bundle.js`, { key: null });
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(script.text.length).toBeGreaterThan(100_000);
    const css = await rt.api(`${rt.url}/docs/swagger-ui.css`, { key: null });
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    const names = ['package.json', '..%2Fpackage.json', 'index.html'];
    // Names every object inherits: once a 500 without X-Request-Id (an Object.prototype lookup).
    names.push('constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__');
    // /docs/ reaches no route (routes match exactly): once a 405 saying "use GET" to a GET.
    names.push('');
    for (const name of names) {
      const missing = await rt.api(`${rt.url}/docs/${name}`, { key: null });
      expect(missing.status, name).toBe(404);
      expect(missing.body.error.code).toBe('not_found');
      expect(missing.headers.get('x-request-id')).toBe(missing.body.error.requestId);
    }
  });

  it('sends a Content-Security-Policy and anti-framing headers with the page, its assets and its 404s', async () => {
    for (const path of ['/docs', '/docs/init.js', '/docs/swagger-ui.css', '/docs/constructor']) {
      const res = await rt.api(`${rt.url}${path}`, { key: null });
      const csp = res.headers.get('content-security-policy') ?? '';
      const directives = new Map(
        csp.split(';').map((d) => {
          const [name = '', ...values] = d.trim().split(/\s+/);
          return [name, values] as const;
        }),
      );
      expect(directives.get('script-src'), path).toEqual(["'self'"]);
      expect(directives.get('frame-ancestors'), path).toEqual(["'none'"]);
      expect(directives.get('object-src'), path).toEqual(["'none'"]);
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
  });
});

describe('/docs in headless Chromium', () => {
  let browser: HeadlessChromium | undefined;
  afterAll(async () => {
    await browser?.close();
  });

  it('renders the posts operations offline and runs "Try it out" against this server', {
    skip: !existsSync(CHROMIUM),
    timeout: 180_000,
  }, async () => {
    browser = await launchChromium();
    const { context } = browser;
    const page = context.pages()[0] ?? (await context.newPage());
    // Offline: any request leaving this server fails the test.
    const foreign: string[] = [];
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.hostname !== 'localhost' && url.hostname !== '127.0.0.1') {
        foreign.push(url.href);
        return route.abort();
      }
      return route.continue();
    });
    // The page works under its own Content-Security-Policy: no violation is reported.
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${rt.url}/docs`);
    const create = page.locator('#operations-Posts-postPosts');
    await create.waitFor({ timeout: 60_000 });
    for (const id of ['getPosts', 'getPostsId', 'putPostsId', 'postPostsIdPublish', 'deletePostsId']) {
      await expect(page.locator(`#operations-Posts-${id}`).count()).resolves.toBe(1);
    }

    // Authorize with the live key, then run GET /v1/platforms from the page.
    await page.locator('button.authorize').first().click();
    const dialog = page.locator('.dialog-ux');
    await dialog.locator('input[type=text]').first().fill(rt.seed.keys.live);
    await dialog.locator('button.authorize').first().click();
    await dialog.locator('button.close-modal').first().click();
    const platforms = page.locator('#operations-Reference-getPlatforms');
    await platforms.locator('.opblock-summary').first().click();
    const tryIt = platforms.locator('button.try-out__btn');
    if ((await tryIt.count()) > 0 && (await tryIt.first().innerText()).includes('Try it out'))
      await tryIt.first().click();
    await platforms.locator('button.execute').first().click();
    const status = platforms.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor({ timeout: 60_000 });
    expect((await status.innerText()).trim()).toBe('200');

    await page.locator('#operations-Posts-postPosts').scrollIntoViewIfNeeded();
    mkdirSync(OUTPUT, { recursive: true });
    const shot = join(OUTPUT, 'docs.png');
    await page.screenshot({ path: shot, fullPage: false });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    expect(foreign).toEqual([]);
    expect(violations).toEqual([]);
  });
});
