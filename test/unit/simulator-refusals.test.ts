import { afterEach, describe, expect, it } from 'vitest';
import { blueskyErrors } from '../../simulators/bluesky/errors.ts';
import { type Simulator, startSimulator } from '../../simulators/framework/framework.ts';

/**
 * The shared framework records every refusal a sim token makes, with its time, for every network
 * alike: the drill compares those times with its kills (a `sim:fail-once` refusal answered to a
 * runtime killed before it kept it is spent, and the resend after the restart is accepted).
 */

let sim: Simulator | null = null;
afterEach(async () => {
  await sim?.stop();
  sim = null;
});

/** A network with one route that screens its text, as every network's publishing routes do. */
const start = async () => {
  sim = await startSimulator({
    name: 'refusals',
    errors: blueskyErrors,
    routes: [
      {
        method: 'POST',
        path: '/posts',
        handler: (ctx) => {
          const text = String((ctx.body as { text?: unknown }).text ?? '');
          ctx.screen(text, 'acct_1');
          const stored = ctx.record({
            kind: 'post',
            id: `p${Date.now()}`,
            parentId: null,
            rootId: null,
            text,
            account: 'acct_1',
          });
          return { status: 200, body: { id: stored.id } };
        },
      },
    ],
  });
  return sim;
};

const post = (base: string, text: string) =>
  fetch(`${base}/posts`, {
    method: 'POST',
    headers: { authorization: 'Bearer token', 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  }).then((res) => res.status);

describe('simulator framework: sim-token refusals', () => {
  it('records each refusal it answers with its token, account, content, status and time', async () => {
    const { url } = await start();
    const before = Date.now();
    expect(await post(url, 'block one sim:fail-once')).toBe(400);
    expect(await post(url, 'block one sim:fail-once')).toBe(200);
    expect(await post(url, 'block two sim:flaky')).toBe(503);
    expect(await post(url, 'block two sim:flaky')).toBe(200);
    expect(await post(url, 'block three sim:fail')).toBe(400);
    expect(await post(url, 'block four sim:reconnect')).toBe(400);
    expect(await post(url, 'block five sim:timeout')).toBe(200);
    expect(await post(url, 'block six')).toBe(200);
    const after = Date.now();

    const refusals = sim?.refusals() ?? [];
    expect(refusals.map(({ at: _, ...rest }) => rest)).toEqual([
      { token: 'sim:fail-once', account: 'acct_1', content: 'block one sim:fail-once', status: 400 },
      { token: 'sim:flaky', account: 'acct_1', content: 'block two sim:flaky', status: 503 },
      { token: 'sim:fail', account: 'acct_1', content: 'block three sim:fail', status: 400 },
      { token: 'sim:reconnect', account: 'acct_1', content: 'block four sim:reconnect', status: 400 },
    ]);
    const times = refusals.map((r) => Date.parse(r.at));
    expect(times.every((t) => t >= before && t <= after)).toBe(true);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // The accepted ones are in the records, the refused ones are not.
    expect(sim?.records().map((r) => r.text)).toEqual([
      'block one sim:fail-once',
      'block two sim:flaky',
      'block five sim:timeout',
      'block six',
    ]);
  });

  it('serves them at GET /_sim/refusals, and forgets them on reset with the fail-once memory', async () => {
    const { url } = await start();
    await post(url, 'again sim:fail-once');
    const overHttp = (await (await fetch(`${url}/_sim/refusals`)).json()) as { data: unknown[] };
    expect(overHttp.data).toEqual(sim?.refusals());
    expect(overHttp.data).toHaveLength(1);

    const reset = await fetch(`${url}/_sim/reset`, { method: 'POST' });
    expect(reset.status).toBe(204);
    expect(sim?.refusals()).toEqual([]);
    // Its one refusal is owed again after the reset, and recorded again.
    expect(await post(url, 'again sim:fail-once')).toBe(400);
    expect(sim?.refusals().map((r) => r.token)).toEqual(['sim:fail-once']);
  });
});
