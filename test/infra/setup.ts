import { afterAll } from 'vitest';
import { removeScratchDirs } from './fixture.ts';

// Run for every infra file (a setup file is, even where the files share modules): the scratch
// directories the file made through the fixture go when it is done.
afterAll(removeScratchDirs);
