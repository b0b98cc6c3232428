/**
 * Every `sh` block of the README, run as a reader would: in order, in bash, against a fresh local
 * runtime. Conventions (documented in the README's quick start): a comment line
 * `<!-- readme-test: background until "<text>" -->` above a block starts it, waits for `<text>`
 * and leaves it running; `<!-- readme-test: skip (<reason>) -->` leaves it out, with a reason.
 * The variables (and shell functions) a block defines are there for the blocks after it, as in
 * one terminal.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

interface ReadmeBlock {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  mode: 'run' | 'background' | 'skip';
  until?: string;
  reason?: string;
}

/** The shell blocks of a Markdown text with the directive above each, if any. */
const shellBlocks = (markdown: string): ReadmeBlock[] => {
  const lines = markdown.split('\n');
  const blocks: ReadmeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(`{3,})\s*(\S*)/.exec(lines[i] as string);
    if (!fence) continue;
    const close = lines.findIndex((l, j) => j > i && l.startsWith(fence[1] as string));
    if (close < 0) throw new Error(`README line ${i + 1}: unclosed code block`);
    const language = fence[2] ?? '';
    if (['sh', 'bash', 'shell'].includes(language)) {
      let above = i - 1;
      while (above >= 0 && (lines[above] as string).trim() === '') above--;
      const directive = /^<!--\s*readme-test:\s*(.*?)\s*-->$/.exec((lines[above] ?? '').trim());
      const block: ReadmeBlock = { line: i + 1, code: lines.slice(i + 1, close).join('\n'), mode: 'run' };
      if (directive) {
        const text = directive[1] as string;
        const background = /^background until "(.+)"$/.exec(text);
        const skip = /^skip \((.+)\)$/.exec(text);
        if (background) Object.assign(block, { mode: 'background', until: background[1] });
        else if (skip) Object.assign(block, { mode: 'skip', reason: skip[1] });
        else throw new Error(`README line ${above + 1}: unknown readme-test directive "${text}"`);
      }
      blocks.push(block);
    }
    i = close;
  }
  return blocks;
};

/** What the runnable blocks must print (beyond exiting with 0), found by a piece of their code. */
const EXPECTED: { code: RegExp; output: RegExp[] }[] = [
  {
    code: /intent\\":\\"draft/,
    output: [/"platform":"x"/, /"id":"post_\w+","status":"draft"/],
  },
  {
    code: /curl -s "\$BASE\/posts\/\$POST"/,
    output: [/"id":"post_\w+","status":"publish(ing|ed)"/],
  },
  {
    // A channel, its status and why it waits (`-`: it does not).
    code: /c\.waiting \? c\.waiting\.reason/,
    output: [/^x (publishing|published) (-|rate_limit|retry|confirming|processing)$/m],
  },
  {
    // The quick start's post, step by step: queued, sent, published.
    code: /\/timeline"/,
    output: [/ queued -$/m, / sending 0$/m, / sent 0$/m, / channel_published -$/m],
  },
  {
    code: /create-tag/,
    output: [
      /"name": "Spring sale"/,
      /\{"error":\{"code":"validation_failed","message":"color: The color must be a hex colour such as #1d9bf0\.","field":"color"\}\}/,
      /refused, exit code 1/,
    ],
  },
  {
    code: /Hello, webhooks/,
    output: [/"status":"publishing"/],
  },
  {
    // The redirect carries a connect code, never a channel id; the completion answers the channel.
    code: /channels\/connect\/complete/,
    output: [
      /^http:\/\/localhost:5173\/connected\?connectCode=cc_[\w-]{75}&state=\w+$/m,
      /"id":"ch_\w+","platform":"x"/,
    ],
  },
];
/** What the background blocks print once the others ran. */
const EXPECTED_BACKGROUND: { code: RegExp; output: RegExp }[] = [
  {
    code: /npm run receiver/,
    output: /verified post\.published evt_\w+ · attempt 1 · post post_\w+ · channel ch_\w+ \(x\)/,
  },
];

const dataDir = mkdtempSync(join(tmpdir(), 'herald-readme-'));
const stateFile = `${dataDir}-state`;
const background: { block: ReadmeBlock; child: ChildProcess; output: () => string }[] = [];

const stopGroup = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  process.kill(-child.pid, 'SIGINT');
  const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
};

afterAll(async () => {
  for (const { child } of background.reverse()) await stopGroup(child).catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(stateFile, { force: true });
});

const waitFor = async (read: () => string, pattern: RegExp | string, child: ChildProcess, what: string) => {
  const deadline = Date.now() + 90_000;
  const found = () => (typeof pattern === 'string' ? read().includes(pattern) : pattern.test(read()));
  while (!found()) {
    if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}):\n${read()}`);
    if (Date.now() > deadline) throw new Error(`${what}: no ${pattern} in:\n${read()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** Runs one block in bash; its exported variables and functions become the next block's environment. */
const runBlock = (code: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number | null; output: string; env: NodeJS.ProcessEnv }>((done) => {
    const child = spawn('bash', ['-c', `set -euo pipefail\nset -a\n${code}\nenv -0 > "$README_TEST_STATE"`], {
      cwd: ROOT,
      env: { ...env, README_TEST_STATE: stateFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('exit', (exitCode) => {
      let next = env;
      if (exitCode === 0) {
        next = {};
        for (const entry of readFileSync(stateFile, 'utf8').split('\0')) {
          const eq = entry.indexOf('=');
          if (eq > 0) next[entry.slice(0, eq)] = entry.slice(eq + 1);
        }
      }
      done({ code: exitCode, output, env: next });
    });
  });

describe('README.md', () => {
  const blocks = shellBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));

  it('marks every block it does not run with a reason', () => {
    expect(blocks.filter((b) => b.mode === 'run').length).toBeGreaterThan(3);
    for (const block of blocks.filter((b) => b.mode === 'skip'))
      expect(block.reason?.length, `line ${block.line}`).toBeGreaterThan(10);
  });

  it('every command runs against a fresh local runtime, exits 0 and prints what the README says', async () => {
    let env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      RECEIVER_PORT: '0',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    };
    const used = new Set<number>();
    for (const block of blocks) {
      if (block.mode === 'skip') continue;
      if (block.mode === 'background') {
        const child = spawn('bash', ['-c', block.code], {
          cwd: ROOT,
          env,
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout?.on('data', (chunk) => {
          output += chunk;
        });
        child.stderr?.on('data', (chunk) => {
          output += chunk;
        });
        background.push({ block, child, output: () => output });
        await waitFor(() => output, block.until as string, child, `README line ${block.line}`);
        continue;
      }
      const result = await runBlock(block.code, env);
      expect(result.code, `README line ${block.line}:\n${block.code}\n---\n${result.output}`).toBe(0);
      EXPECTED.forEach((expected, index) => {
        if (!expected.code.test(block.code)) return;
        used.add(index);
        for (const pattern of expected.output)
          expect(result.output, `README line ${block.line}`).toMatch(pattern);
      });
      env = result.env;
    }
    expect([...used].sort(), 'every expectation found its block').toEqual(EXPECTED.map((_, i) => i));

    for (const expected of EXPECTED_BACKGROUND) {
      const server = background.find((b) => expected.code.test(b.block.code));
      expect(server, String(expected.code)).toBeDefined();
      if (server)
        await waitFor(server.output, expected.output, server.child, `README line ${server.block.line}`);
    }
  }, 240_000);
});
