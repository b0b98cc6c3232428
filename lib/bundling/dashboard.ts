/**
 * How the dashboard (`dashboard/`, Vite + Preact) is built for the stack: Vite from the repository's
 * own node_modules, in this process's machine, so `cdk synth` stays offline and needs no Docker, as
 * the functions' esbuild bundling does. Vite names every file by a hash of its content, so the same
 * commit gives the same files and the same asset hash.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The dashboard's Vite configuration, relative to the repository root. */
export const DASHBOARD_VITE_CONFIG = 'dashboard/vite.config.ts';

/** Whether `sourceRoot` holds the dashboard's sources (its Vite configuration). */
export const hasDashboardSources = (sourceRoot: string): boolean =>
  fs.existsSync(path.join(sourceRoot, DASHBOARD_VITE_CONFIG));

/** Builds the dashboard from `sourceRoot` into `outDir` (emptied first); throws with Vite's output if it fails. */
export const buildDashboard = (sourceRoot: string, outDir: string): void => {
  const result = spawnSync(
    'npx',
    [
      '--no-install',
      'vite',
      'build',
      '--config',
      DASHBOARD_VITE_CONFIG,
      '--outDir',
      path.resolve(outDir),
      '--emptyOutDir',
      '--logLevel',
      'warn',
    ],
    {
      cwd: sourceRoot,
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'production' },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(
      `The dashboard's build failed (vite exited ${result.status}):\n${result.stderr}${result.stdout}`,
    );
  }
  if (!fs.existsSync(path.join(outDir, 'index.html')))
    throw new Error(`The dashboard's build wrote no index.html into ${outDir}`);
};
