/**
 * `npm run cost`: what the stack costs, from its templates (bench/cost.ts), written into a doc's
 * `<!-- cost:start -->` ... `<!-- cost:end -->` region (BENCHMARKS.md's Cost section by default).
 *
 *   npm run cost                              synthesize (without bundling) and write BENCHMARKS.md
 *   npm run cost -- --assembly cdk.out        read an assembly `cdk synth` made
 *   npm run cost -- --doc other.md --check    only say whether the doc's table is current (exit 1 if not)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { App } from 'aws-cdk-lib';
import {
  costRegion,
  readMeasuredFigures,
  renderCost,
  replaceCostRegion,
  type StackTemplate,
} from '../bench/cost.ts';
import { buildApp, REPO_ROOT } from '../lib/app.ts';

/** The stacks' templates of a cloud assembly directory (its manifest names them). */
export const readAssemblyTemplates = (directory: string): StackTemplate[] => {
  const manifest = JSON.parse(readFileSync(join(directory, 'manifest.json'), 'utf8')) as {
    artifacts: Record<string, { type: string; properties?: { templateFile: string; stackName?: string } }>;
  };
  return Object.entries(manifest.artifacts)
    .filter(([, a]) => a.type === 'aws:cloudformation:stack')
    .map(([id, a]) => ({
      stackName: a.properties?.stackName ?? id,
      template: JSON.parse(readFileSync(join(directory, a.properties?.templateFile ?? ''), 'utf8')),
    }));
};

/** The app as `cdk synth` builds it (cdk.json's context), without bundling: the templates are the same. */
const synthesizeTemplates = (): StackTemplate[] => {
  const outdir = mkdtempSync(join(tmpdir(), 'herald-cost-'));
  try {
    const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: object };
    const app = new App({ outdir, context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] } });
    buildApp(app);
    return app.synth().stacks.map((s) => ({ stackName: s.stackName, template: s.template }));
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
};

const main = () => {
  const { values } = parseArgs({
    options: {
      assembly: { type: 'string' },
      doc: { type: 'string', default: join(REPO_ROOT, 'BENCHMARKS.md') },
      benchmarks: { type: 'string', default: join(REPO_ROOT, 'BENCHMARKS.md') },
      check: { type: 'boolean', default: false },
    },
  });
  const stacks = values.assembly ? readAssemblyTemplates(resolve(values.assembly)) : synthesizeTemplates();
  const measured = readMeasuredFigures(readFileSync(values.benchmarks, 'utf8'));
  const markdown = renderCost(stacks, measured);
  const doc = readFileSync(values.doc, 'utf8');
  if (values.check) {
    const current = costRegion(doc) === markdown.trim();
    console.log(
      current ? `${values.doc}: the cost table is current` : `${values.doc}: the cost table is stale`,
    );
    process.exit(current ? 0 : 1);
  }
  writeFileSync(values.doc, replaceCostRegion(doc, markdown));
  console.log(markdown);
  console.log(`\nWrote the cost table into ${values.doc}`);
};

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main();
