/**
 * The dashboard is built by Vite at synth (lib/bundling/dashboard.ts), offline, and reproducibly:
 * the same sources give the same files and the same asset hash, from any checkout and any cdk.out.
 * Built here from a small Vite project shaped like `dashboard/` (its config at the same path).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/app.ts';
import { buildDashboard, DASHBOARD_VITE_CONFIG } from '../../lib/bundling/dashboard.ts';
import { DashboardHosting } from '../../lib/constructs/dashboard-hosting.ts';

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const tempDir = (prefix: string): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  scratch.push(dir);
  return dir;
};

/** A repository root holding a dashboard Vite project whose script says `message`. */
const sourceRoot = (message: string): string => {
  const root = tempDir('herald-dashboard-src-');
  const dir = path.join(root, 'dashboard');
  fs.mkdirSync(dir);
  fs.writeFileSync(
    path.join(root, DASHBOARD_VITE_CONFIG),
    [
      "import { fileURLToPath } from 'node:url';",
      "import { defineConfig } from 'vite';",
      "export default defineConfig({ root: fileURLToPath(new URL('.', import.meta.url)), base: '/dashboard/' });",
      '',
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><html><head><title>Herald</title><script type="module" src="./main.ts"></script></head><body></body></html>\n',
  );
  fs.writeFileSync(path.join(dir, 'main.ts'), `document.body.textContent = ${JSON.stringify(message)};\n`);
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  return root;
};

const filesOf = (dir: string): Record<string, string> =>
  Object.fromEntries(
    fs
      .readdirSync(dir, { recursive: true })
      .map(String)
      .filter((file) => fs.statSync(path.join(dir, file)).isFile())
      .sort()
      .map((file) => [file, fs.readFileSync(path.join(dir, file), 'utf8')]),
  );

/** The object key of the built dashboard's asset in a stack synthesised (with bundling) from `root`. */
const dashboardAssetKey = (root: string): string => {
  const app = new App({ outdir: tempDir('herald-dashboard-out-') });
  const stack = new Stack(app, 'Hosting');
  new DashboardHosting(stack, 'Dashboard', {
    api: HttpApi.fromHttpApiAttributes(stack, 'Api', { httpApiId: 'abc123' }),
    userPoolId: 'eu-west-1_pool',
    userPoolClientId: 'client',
    sourceRoot: root,
  });
  const [deployment] = Object.values(Template.fromStack(stack).findResources('Custom::CDKBucketDeployment'));
  const keys = deployment?.Properties.SourceObjectKeys as string[];
  expect(keys).toHaveLength(2);
  return keys[0] as string;
};

describe('the dashboard build', () => {
  const root = sourceRoot('Herald');

  it('writes index.html and hashed files under /dashboard/, the same bytes on every build', () => {
    const first = tempDir('herald-dashboard-a-');
    const second = path.join(tempDir('herald-dashboard-b-'), 'nested', 'out');
    buildDashboard(root, first);
    buildDashboard(root, second);
    const files = filesOf(first);
    const scripts = Object.keys(files).filter((file) => file.endsWith('.js'));
    expect(scripts).toEqual([expect.stringMatching(/^assets\/index-[\w-]+\.js$/)]);
    expect(files['index.html']).toContain(`src="/dashboard/${scripts[0]}"`);
    expect(filesOf(second)).toEqual(files);
  });

  it('empties the output folder first', () => {
    const out = tempDir('herald-dashboard-c-');
    fs.writeFileSync(path.join(out, 'stale.js'), 'old');
    buildDashboard(root, out);
    expect(fs.existsSync(path.join(out, 'stale.js'))).toBe(false);
  });

  it('gives the same asset hash from another checkout of the same sources, and another for other sources', () => {
    const key = dashboardAssetKey(root);
    expect(dashboardAssetKey(sourceRoot('Herald'))).toBe(key);
    expect(dashboardAssetKey(sourceRoot('Herald, changed'))).not.toBe(key);
  });

  it('fails the synth with Vite’s message when the build fails', () => {
    const broken = sourceRoot('Herald');
    fs.writeFileSync(path.join(broken, 'dashboard', 'main.ts'), 'import "./missing.ts";\n');
    expect(() => buildDashboard(broken, tempDir('herald-dashboard-d-'))).toThrow(
      /build failed[\s\S]*missing/,
    );
  });
});
