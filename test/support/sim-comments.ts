import { expect } from 'vitest';
import type { SimCommentState } from '../../simulators/framework/comments.ts';

/**
 * The comment hooks every simulator of a network whose comments Herald reads mounts
 * (simulators/framework/comments.ts), for tests: `url` is read at each call (simulators start in
 * `beforeAll`).
 */
export const simCommentHooks = (url: () => string) => {
  const send = (path: string, body: unknown) =>
    fetch(`${url()}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  return {
    /** Someone else comments on the post or comment `parentId` (the network's id): the new comment's id. */
    add: async (parentId: string, text: string, extra: Record<string, unknown> = {}): Promise<string> => {
      const response = await send('/_sim/comments', { parentId, text, ...extra });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    },
    /** The simulator's answer to a state change: 204, or 404 for an id it does not know. */
    setState: (id: string, state: SimCommentState) => send('/_sim/comments/state', { id, state }),
  };
};
