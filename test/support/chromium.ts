/**
 * Debian's headless Chromium driven by playwright-core, as the browser tests (/docs, the dashboard)
 * start it: a fresh profile (the persistent context's --user-data-dir) and the flags this machine's
 * closed network needs (no background networking, updates or sync), so no connection leaves it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Where Debian's `chromium` package puts the browser (`.ci/run` installs it). */
export const CHROMIUM = '/usr/bin/chromium';

export interface HeadlessChromium {
  context: BrowserContext;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile; `headless: true` passes --headless. */
export const launchChromium = async (
  options: { viewport?: { width: number; height: number } } = {},
): Promise<HeadlessChromium> => {
  const profile = mkdtempSync(join(tmpdir(), 'herald-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    ...(options.viewport ? { viewport: options.viewport } : {}),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
};
