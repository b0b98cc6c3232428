/**
 * The dashboard's publish outcomes per network come from one EMF line per finished channel
 * (functions/shared/powertools.ts `countChannelOutcome`), written at once: the queue workers have
 * no middleware that flushes stored metrics.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  vi.resetModules();
});

describe('channel outcome metric', () => {
  it('writes ChannelsPublished / ChannelsFailed in the Herald namespace with the network as dimension', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.stubEnv('POWERTOOLS_DEV', 'false');
    vi.resetModules();
    const lines: string[] = [];
    const capture = (chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    };
    vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    vi.spyOn(console, 'log').mockImplementation(capture);
    const { countChannelOutcome } = await import('../../functions/shared/powertools.ts');
    countChannelOutcome('bluesky', 'published');
    countChannelOutcome('x', 'failed');
    const emf = lines
      .flatMap((line) => line.split('\n'))
      .filter((line) => line.includes('"_aws"'))
      .map((line) => JSON.parse(line) as { _aws: { CloudWatchMetrics: unknown[] } });
    expect(emf).toHaveLength(2);
    const [published, failed] = emf;
    expect(published).toMatchObject({ network: 'bluesky', service: 'herald', ChannelsPublished: 1 });
    expect(failed).toMatchObject({ network: 'x', service: 'herald', ChannelsFailed: 1 });
    expect(published?._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'Herald',
      Dimensions: [expect.arrayContaining(['service', 'network'])],
      Metrics: [{ Name: 'ChannelsPublished', Unit: 'Count' }],
    });
  });
});
