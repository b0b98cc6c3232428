/**
 * Every `sh` block of README.md and of every page under docs/, run as a reader would: one page at a
 * time, its blocks in order, in bash, against one fresh local runtime started once. Conventions
 * (documented in docs/getting-started.md): a comment line `<!-- docs-test: background until
 * "<text>" -->` above a block starts it, waits for `<text>` and leaves it running (a block with the
 * same code already running, such as `npm start`, is not started twice);
 * `<!-- docs-test: skip (<reason>) -->` leaves it out, with a reason (`readme-test:` is the older
 * spelling of both). The variables (and shell functions) a block defines are there for the blocks
 * after it on the same page, as in one terminal; each page starts from a clean shell, so a page
 * reads what it needs from the running service in its "Before you start" block.
 *
 * It also checks that every relative link of those pages leads to a file, and every `#anchor` to a
 * heading of the file it names.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectOutput } from '../support/child-output.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** README.md, then every Markdown page under docs/, as paths relative to the repository. */
const PAGES = (() => {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(ROOT, dir)).sort()) {
      const path = `${dir}/${name}`;
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (name.endsWith('.md')) found.push(path);
    }
  };
  walk('docs');
  return ['README.md', ...found];
})();

interface ShellBlock {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  mode: 'run' | 'background' | 'skip';
  until?: string;
  reason?: string;
}

/** The shell blocks of a Markdown text with the directive above each, if any. */
const shellBlocks = (page: string, markdown: string): ShellBlock[] => {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(`{3,})\s*(\S*)/.exec(lines[i] as string);
    if (!fence) continue;
    const close = lines.findIndex((l, j) => j > i && l.startsWith(fence[1] as string));
    if (close < 0) throw new Error(`${page} line ${i + 1}: unclosed code block`);
    const language = fence[2] ?? '';
    if (['sh', 'bash', 'shell'].includes(language)) {
      let above = i - 1;
      while (above >= 0 && (lines[above] as string).trim() === '') above--;
      const directive = /^<!--\s*(?:docs|readme)-test:\s*(.*?)\s*-->$/.exec((lines[above] ?? '').trim());
      const block: ShellBlock = { line: i + 1, code: lines.slice(i + 1, close).join('\n'), mode: 'run' };
      if (directive) {
        const text = directive[1] as string;
        const background = /^background until "(.+)"$/.exec(text);
        const skip = /^skip \((.+)\)$/.exec(text);
        if (background) Object.assign(block, { mode: 'background', until: background[1] });
        else if (skip) Object.assign(block, { mode: 'skip', reason: skip[1] });
        else throw new Error(`${page} line ${above + 1}: unknown docs-test directive "${text}"`);
      }
      blocks.push(block);
    }
    i = close;
  }
  return blocks;
};

interface Expected {
  /** Finds the block by a piece of its code. */
  code: RegExp;
  /** What the block prints (beyond exiting with 0). */
  output: RegExp[];
}

/** What a page's runnable blocks must print, by page; every expectation must find its block. */
const EXPECTED: Record<string, Expected[]> = {
  'README.md': [
    {
      code: /intent\\":\\"draft/,
      output: [/"platform":"x"/, /"id":"post_\w+","status":"draft"/],
    },
    {
      code: /curl -s "\$BASE\/posts\/\$POST"/,
      output: [/"id":"post_\w+","status":"publish(ing|ed)"/],
    },
    {
      // The tour's post, step by step: queued, sent, published.
      code: /\/timeline"/,
      output: [/ queued -$/m, / sending 0$/m, / sent 0$/m, / channel_published -$/m],
    },
    {
      code: /Hello, webhooks/,
      output: [/"status":"publishing"/],
    },
  ],
  'docs/getting-started.md': [
    {
      code: /curl -s "\$BASE\/channels"/,
      output: [/"platform":"x"/],
    },
  ],
  'docs/posts-and-publishing.md': [
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
      code: /\/timeline"/,
      output: [/ queued -$/m, / sending 0$/m, / sent 0$/m, / channel_published -$/m],
    },
  ],
  'docs/running-locally.md': [
    {
      code: /create-tag/,
      output: [
        /"name": "Spring sale"/,
        /\{"error":\{"code":"validation_failed","message":"color: The color must be a hex colour such as #1d9bf0\.","field":"color"\}\}/,
        /refused, exit code 1/,
      ],
    },
    {
      code: /Hello, receiver/,
      output: [/"status":"publishing"/],
    },
  ],
  'docs/channels.md': [
    {
      // The redirect carries a connect code, never a channel id; the completion answers the channel.
      code: /channels\/connect\/complete/,
      output: [
        /^http:\/\/localhost:\d+\/connected\?connectCode=cc_[\w-]{75}&state=\w+$/m,
        /"id":"ch_\w+","platform":"x"/,
      ],
    },
    {
      code: /"platform":"bluesky"/,
      output: [/"id":"ch_\w+","platform":"bluesky"/],
    },
  ],
  'docs/media.md': [
    {
      code: /-F "file=@/,
      output: [/"id":"med_\w+","status":"ready"/, /"mimeType":"image\/png"/],
    },
    {
      code: /\/complete"/,
      output: [/"id":"med_\w+","status":"ready"/],
    },
    {
      code: /mediaIds/,
      output: [/"status":"published"/, /"mediaIds":\["med_\w+"\]/],
    },
  ],
  'docs/metrics.md': [
    {
      code: /\/metrics"/,
      output: [
        /"collection":"collecting"/,
        /"nextReadingAt":"[\d-]+T[\d:.]+Z"/,
        /"overall":\{"posts":[1-9]\d*/,
      ],
    },
  ],
  'docs/comments.md': [
    {
      // The seeded comments listed, one answered, the answer deleted.
      code: /Idempotency-Key: thanks-/,
      output: [
        /ada.reader\S*\s+Congratulations on the launch!/,
        /\(answer\) Agreed, great news\./,
        /"status":"sent"/,
        /"id":"rpl_\w+".*"status":"deleted"/,
      ],
    },
  ],
  'docs/webhooks.md': [
    {
      code: /8444\/hooks/,
      output: [/"secret":"whsec_\w+"/, /"id":"wh_\w+"/, /"data":\[\]/, /"deleted":true/],
    },
  ],
  'docs/reference.md': [
    {
      code: /openapi\.json/,
      output: [/^3\.1\.\d+: \d+ paths$/m],
    },
    {
      // The typed client's examples, each a program (docs/examples/*.ts).
      code: /docs\/examples\/publish\.ts/,
      output: [
        /^created post_\w+ \(publishing\) on /m,
        /^post_\w+ published: x published https:\/\/x\.com\/\S+$/m,
        /^retracted post_\w+ from x$/m,
        /^receiving on https:\/\/127\.0\.0\.1:\d+\/herald as wh_\w+$/m,
        /^verified post\.published evt_\w+ for post_\w+ on x$/m,
        /^deleted wh_\w+$/m,
      ],
    },
  ],
};
/** What a page's background blocks print once its other blocks ran. */
const EXPECTED_BACKGROUND: Record<string, { code: RegExp; output: RegExp }[]> = {
  'README.md': [
    {
      code: /npm run receiver/,
      output: /verified post\.published evt_\w+ · attempt 1 · post post_\w+ · channel ch_\w+ \(x\)/,
    },
  ],
  'docs/running-locally.md': [
    {
      code: /npm run receiver/,
      output: /verified post\.published evt_\w+ · attempt 1 · post post_\w+ · channel ch_\w+ \(x\)/,
    },
  ],
};

const dataDir = mkdtempSync(join(tmpdir(), 'herald-docs-'));
const stateFile = `${dataDir}-state`;
/** A reader's environment: a fresh data folder, any free ports. Each page starts from it. */
const baseEnv: NodeJS.ProcessEnv = {
  ...process.env,
  DATA_DIR: dataDir,
  PORT: '0',
  RECEIVER_PORT: '0',
  POWERTOOLS_LOG_LEVEL: 'ERROR',
};
/** The servers started by background blocks, by their code: a reader starts each once. */
const running = new Map<string, { page: string; line: number; child: ChildProcess; output: () => string }>();

const stopGroup = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  process.kill(-child.pid, 'SIGINT');
  const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
};

const waitFor = async (read: () => string, pattern: RegExp | string, child: ChildProcess, what: string) => {
  const deadline = Date.now() + 90_000;
  const found = () => (typeof pattern === 'string' ? read().includes(pattern) : pattern.test(read()));
  while (!found()) {
    if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}):\n${read()}`);
    if (Date.now() > deadline) throw new Error(`${what}: no ${pattern} in:\n${read()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** Starts a background block (in its own process group) unless the same code runs already. */
const startBackground = async (page: string, block: ShellBlock, env: NodeJS.ProcessEnv) => {
  const key = block.code.trim();
  const already = running.get(key);
  if (already) return already;
  const child = spawn('bash', ['-c', block.code], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const server = { page, line: block.line, child, output: collectOutput(child) };
  running.set(key, server);
  await waitFor(server.output, block.until as string, child, `${page} line ${block.line}`);
  return server;
};

/** Runs one block in bash; its exported variables and functions become the next block's environment. */
const runBlock = (code: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number | null; output: string; env: NodeJS.ProcessEnv }>((done) => {
    const child = spawn('bash', ['-c', `set -euo pipefail\nset -a\n${code}\nenv -0 > "$DOCS_TEST_STATE"`], {
      cwd: ROOT,
      env: { ...env, DOCS_TEST_STATE: stateFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = collectOutput(child);
    child.on('exit', (exitCode) => {
      let next = env;
      if (exitCode === 0) {
        next = {};
        for (const entry of readFileSync(stateFile, 'utf8').split('\0')) {
          const eq = entry.indexOf('=');
          if (eq > 0) next[entry.slice(0, eq)] = entry.slice(eq + 1);
        }
        delete next.DOCS_TEST_STATE;
      }
      done({ code: exitCode, output: output(), env: next });
    });
  });

const blocksOf = new Map(
  PAGES.map((page) => [page, shellBlocks(page, readFileSync(join(ROOT, page), 'utf8'))]),
);

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors of a Markdown text's headings (outside code blocks), repeated ones numbered as GitHub does. */
const anchorsOf = (markdown: string) => {
  const anchors = new Set<string>();
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marks = /^(`{3,})/.exec(line);
    if (marks) {
      if (fence === undefined) fence = marks[1];
      else if (line.startsWith(fence)) fence = undefined;
      continue;
    }
    const heading = fence === undefined ? /^#{1,6}\s+(.*)$/.exec(line) : null;
    if (!heading) continue;
    const base = slug(heading[1] as string);
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
};

/** The link targets of a Markdown text, outside code blocks and inline code. */
const linksOf = (markdown: string) => {
  const prose = markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] as string);
};

describe('the docs', () => {
  it('marks every block it does not run with a reason, and every page with expectations exists', () => {
    expect((blocksOf.get('README.md') ?? []).filter((b) => b.mode === 'run').length).toBeGreaterThan(3);
    for (const [page, blocks] of blocksOf)
      for (const block of blocks.filter((b) => b.mode === 'skip'))
        expect(block.reason?.length, `${page} line ${block.line}`).toBeGreaterThan(10);
    for (const page of [...Object.keys(EXPECTED), ...Object.keys(EXPECTED_BACKGROUND)])
      expect(PAGES, page).toContain(page);
  });

  it('a page that calls the running service reads what it needs in its "Before you start" section first', () => {
    // The README and Getting started start the service themselves and read the keys as they go.
    for (const page of PAGES.filter((p) => !['README.md', 'docs/getting-started.md'].includes(p))) {
      const first = (blocksOf.get(page) ?? []).find((b) => b.mode === 'run');
      if (!first) continue;
      const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
      const start = lines.indexOf('## Before you start');
      const next = lines.findIndex((l, i) => i > start && l.startsWith('## '));
      const end = next < 0 ? lines.length : next;
      expect(start, `${page} has a "## Before you start" section`).toBeGreaterThan(0);
      expect(first.line, `${page}: its first command is in "Before you start"`).toBeGreaterThan(start + 1);
      expect(first.line, `${page}: its first command is in "Before you start"`).toBeLessThan(end + 1);
      expect(first.code, page).toMatch(/seed\.json/);
    }
  });

  it('every relative link leads to a file, and every #anchor to a heading of it', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const target of linksOf(readFileSync(join(ROOT, page), 'utf8'))) {
        if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto: and the like
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), decodeURIComponent(path));
        if (!file.startsWith(`${ROOT}/`) || !existsSync(file)) {
          broken.push(`${page}: ${target} (no file ${relative(ROOT, file)})`);
          continue;
        }
        if (anchor && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor))
          broken.push(`${page}: ${target} (no heading #${anchor} in ${relative(ROOT, file)})`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe.sequential('every command of every page, against one local runtime', () => {
  beforeAll(async () => {
    // The runtime every page's "Before you start" expects, started as the README starts it.
    const start = blocksOf
      .get('README.md')
      ?.find((b) => b.mode === 'background' && b.code.trim() === 'npm start');
    expect(start, 'the README starts the runtime with `npm start`').toBeDefined();
    if (start) await startBackground('README.md', start, baseEnv);
  }, 120_000);

  afterAll(async () => {
    for (const { child } of [...running.values()].reverse()) await stopGroup(child).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(stateFile, { force: true });
  }, 60_000);

  const runnable = PAGES.filter((page) => (blocksOf.get(page) ?? []).some((b) => b.mode !== 'skip'));

  it.each(runnable)(
    '%s: every command exits 0 and prints what the page says',
    async (page) => {
      const blocks = blocksOf.get(page) ?? [];
      const expected = EXPECTED[page] ?? [];
      const outputFrom = new Map<ChildProcess, number>();
      for (const server of running.values()) outputFrom.set(server.child, server.output().length);
      let env = baseEnv;
      const used = new Set<number>();
      for (const block of blocks) {
        if (block.mode === 'skip') continue;
        if (block.mode === 'background') {
          await startBackground(page, block, env);
          continue;
        }
        const result = await runBlock(block.code, env);
        expect(result.code, `${page} line ${block.line}:\n${block.code}\n---\n${result.output}`).toBe(0);
        expected.forEach((expectation, index) => {
          if (!expectation.code.test(block.code)) return;
          used.add(index);
          for (const pattern of expectation.output)
            expect(result.output, `${page} line ${block.line}`).toMatch(pattern);
        });
        env = result.env;
      }
      expect([...used].sort(), 'every expectation found its block').toEqual(expected.map((_, i) => i));

      for (const expectation of EXPECTED_BACKGROUND[page] ?? []) {
        const block = blocks.find((b) => b.mode === 'background' && expectation.code.test(b.code));
        const server = block && running.get(block.code.trim());
        expect(server, `${page}: ${expectation.code}`).toBeDefined();
        if (!server) continue;
        // Only what it printed while this page ran counts.
        const from = outputFrom.get(server.child) ?? 0;
        await waitFor(
          () => server.output().slice(from),
          expectation.output,
          server.child,
          `${server.page} line ${server.line}`,
        );
      }
    },
    180_000,
  );
});
