import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { cruise, type ICruiseOptions, type IViolation } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The layers of ARCHITECTURE.md, as `.dependency-cruiser.cjs` states them, hold over the code: an
 * import that breaks one fails here with the rule, the two modules and what the rule says.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const config = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as {
  forbidden: NonNullable<ICruiseOptions['ruleSet']>['forbidden'];
  options: ICruiseOptions;
};

const violationsIn = async (root: string, folders: string[]): Promise<IViolation[]> => {
  const tsConfig = join(root, 'tsconfig.json');
  const result = await cruise(
    folders.filter((folder) => existsSync(join(root, folder))),
    {
      ...config.options,
      baseDir: root,
      tsConfig: { fileName: tsConfig },
      validate: true,
      ruleSet: { forbidden: config.forbidden },
    },
    undefined,
    { tsConfig: extractTSConfig(tsConfig) },
  );
  if (typeof result.output === 'string') throw new Error('dependency-cruiser answered text, not a result');
  return result.output.summary.violations;
};

/** A cruise parses every module with TypeScript: seconds alone, more beside other test files. */
const CRUISE_TIMEOUT = 120_000;

const describeViolation = (violation: IViolation): string => {
  const rule = config.forbidden?.find((r) => r.name === violation.rule.name);
  const cycle = violation.cycle?.length
    ? `\n    cycle: ${violation.cycle.map((c) => c.name).join(' -> ')}`
    : '';
  return `${violation.rule.name}: ${violation.from} -> ${violation.to}${cycle}\n    ${rule?.comment ?? ''}`;
};

describe('the layers', () => {
  it(
    'hold over functions/ and simulators/',
    async () => {
      const violations = await violationsIn(ROOT, ['functions', 'simulators']);
      expect(violations.map(describeViolation).join('\n'), 'imports that break .dependency-cruiser.cjs').toBe(
        '',
      );
    },
    CRUISE_TIMEOUT,
  );

  describe('refuse', () => {
    const fixture = mkdtempSync(join(tmpdir(), 'herald-layers-'));
    afterAll(() => rmSync(fixture, { recursive: true, force: true }));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(fixture, path)), { recursive: true });
      writeFileSync(join(fixture, path), text);
    };

    /** A tree where each module makes one import, some allowed, the others each breaking one rule. */
    const tree: Record<string, string> = {
      'functions/domain/post.ts': 'export type PostId = string;\n',
      'functions/domain/upward.ts':
        "import type { Deps } from '../core/use-case.ts';\nexport type D = Deps;\n",
      'functions/ports/store.ts':
        "import type { PostId } from '../domain/post.ts';\nexport type S = PostId;\n",
      'functions/ports/names-a-use-case.ts':
        "import type { Deps } from '../core/use-case.ts';\nexport type N = Deps;\n",
      'functions/ports/cycle-a.ts': "import type { B } from './cycle-b.ts';\nexport type A = B | 1;\n",
      'functions/ports/cycle-b.ts': "import type { A } from './cycle-a.ts';\nexport type B = A | 2;\n",
      'functions/core/use-case.ts': "import type { S } from '../ports/store.ts';\nexport type Deps = S;\n",
      'functions/core/reads-the-table.ts':
        "import { table } from '../adapters/aws/table.ts';\nexport const t = table;\n",
      'functions/platforms/x/client.ts':
        "import type { Deps } from '../../core/use-case.ts';\nexport type C = Deps;\n",
      'functions/adapters/aws/table.ts': "export const table = 'table';\n",
      'functions/adapters/local/simulators.ts':
        "import { sim } from '../../../simulators/x/sim.ts';\nexport const s = sim;\n",
      'functions/adapters/local/runtime.ts':
        "import { handler } from '../../http/posts/create.ts';\nexport const h = handler;\n",
      'functions/http/posts/create.ts':
        "import { sim } from '../../../simulators/x/sim.ts';\nexport const handler = sim;\n",
      'functions/misc/helper.ts':
        "import type { PostId } from '../domain/post.ts';\nexport type M = PostId;\n",
      'simulators/x/sim.ts':
        "import { table } from '../../functions/adapters/aws/table.ts';\nexport const sim = table;\n",
      'tsconfig.json': JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          allowImportingTsExtensions: true,
          noEmit: true,
        },
        include: ['functions', 'simulators'],
      }),
    };

    it(
      'each import that breaks a rule, and none that keeps them',
      async () => {
        for (const [path, text] of Object.entries(tree)) write(path, text);
        const found = (await violationsIn(fixture, ['functions', 'simulators'])).map(
          (v) => `${v.rule.name}: ${v.from} -> ${v.to}`,
        );
        expect(found.sort()).toEqual(
          [
            'domain-imports-only-itself: functions/domain/upward.ts -> functions/core/use-case.ts',
            'ports-imports-only-domain: functions/ports/names-a-use-case.ts -> functions/core/use-case.ts',
            'no-cycles-in-the-model: functions/ports/cycle-a.ts -> functions/ports/cycle-b.ts',
            'core-imports-only-domain-shared-ports: functions/core/reads-the-table.ts -> functions/adapters/aws/table.ts',
            'platforms-imports-only-domain-shared-ports: functions/platforms/x/client.ts -> functions/core/use-case.ts',
            'host-loads-handlers-by-path: functions/adapters/local/runtime.ts -> functions/http/posts/create.ts',
            'simulators-only-in-the-local-runtime: functions/http/posts/create.ts -> simulators/x/sim.ts',
            'every-folder-is-a-layer: functions/misc/helper.ts -> functions/domain/post.ts',
            'simulators-fake-only-the-network: simulators/x/sim.ts -> functions/adapters/aws/table.ts',
          ].sort(),
        );
      },
      CRUISE_TIMEOUT,
    );
  });
});
