import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The projects in the order their files start (vitest's own: by name). Files stay grouped by
 * project, as vitest's order has them: a worker is reused by the next file only when that file is
 * of the same project (the e2e files then share its modules and runtimes). What changes is which
 * project comes first: the two isolated integration files are the longest standalone files (about
 * a minute and half a minute), and started after every other project (as by name) they ran alone
 * at the end of the run while the other worker had nothing left. The unit files, short and
 * many, come last and fill the end.
 */
const PROJECT_ORDER = [
  'integration-isolated',
  'e2e',
  'e2e-isolated',
  'infra',
  'integration',
  'openapi',
  'unit',
];

const rank = (file: TestSpecification): number => {
  const index = PROJECT_ORDER.indexOf(file.project.name);
  return index === -1 ? PROJECT_ORDER.length : index;
};

/** vitest's order within each project (longest known first, else largest), the projects as above. */
export default class ProjectOrderSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Array.prototype.sort is stable: the order within a project is vitest's.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
