import type { ChildProcess } from 'node:child_process';

/** Everything `child` printed so far, stdout and stderr interleaved as they arrive. */
export const collectOutput = (child: ChildProcess): (() => string) => {
  let output = '';
  const append = (chunk: Buffer | string) => {
    output += chunk;
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  return () => output;
};
