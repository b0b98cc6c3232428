import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const semver = createRequire(import.meta.url)('semver') as {
  subset(sub: string, dom: string): boolean;
  validRange(range: string): string | null;
};

interface LockedPackage {
  version?: string;
  engines?: { node?: string } | string[];
}
const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(resolve(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockedPackage>;
};

describe('a clean install', () => {
  it('every locked package runs on every Node version the README and package.json promise (no EBADENGINE)', () => {
    const ours = pkg.engines.node;
    expect(semver.validRange(ours)).not.toBeNull();
    const refusing = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .flatMap(([path, entry]) => {
        const theirs = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return theirs && !semver.subset(ours, theirs)
          ? [`${path}@${entry.version} wants node ${theirs}`]
          : [];
      });
    expect(refusing).toEqual([]);
  });

  it('`npm ls --all` finds no invalid, missing or extraneous package', async () => {
    const result = await run('npm', ['ls', '--all'], { cwd: ROOT }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(result.stderr).not.toMatch(/npm error/);
    expect(result.code).toBe(0);
  });

  it('the README states the same Node requirement as package.json', () => {
    const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`Node.js \`${pkg.engines.node}\``);
  });
});
