import { describe, expect, inject, it } from 'vitest';
import { drillOptions, runDrill } from '../../bench/drill.ts';

/**
 * The drill end to end at its smallest, without kills: the runtime in a child process, a few posts
 * with threads and sim tokens, the webhook receiver, the simulators' logs. Without a kill every
 * figure must be 0, and the drill must have seen real traffic (so a figure of 0 means something).
 */
describe('npm run drill, smallest and without kills', () => {
  it('sees every block on the simulators and every event at the receiver, and counts no defect', async () => {
    const lines: string[] = [];
    const result = await runDrill(
      drillOptions('quick', {
        seed: 20_261_123,
        posts: 6,
        kills: 0,
        rateLimits: 0,
        submitSeconds: 2,
        write: false,
        dynamoEndpoint: inject('dynamoEndpoint'),
        log: (line) => lines.push(line),
      }),
    );
    const report = `${result.markdown}\n${lines.join('\n')}`;
    expect(result.defects, report).toBe(0);
    expect(result.killsDone).toEqual([]);
    expect(result.info.posts, report).toBeGreaterThan(0);
    expect(result.info.blocksOnNetworks, report).toBeGreaterThan(result.info.posts);
    // One event per channel at least, each delivered (a 503 on a first attempt is retried).
    expect(result.info.distinctEvents, report).toBeGreaterThanOrEqual(result.info.channels);
    expect(result.markdown).toContain('npm run drill -- --quick --posts 6 --kills 0 --seed 20261123');
  }, 300_000);
});
