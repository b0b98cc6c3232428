import { randomUUID } from 'node:crypto';
import {
  type NetworkCredentials,
  NetworkError,
  type PublishBlockInput,
} from '../../functions/ports/network-client.ts';

/** A first block to publish as `credentials`, with anything in `overrides`. */
export const blockInput =
  (credentials: NetworkCredentials) =>
  (content: string, overrides: Partial<PublishBlockInput> = {}): PublishBlockInput => ({
    credentials,
    content,
    media: [],
    title: null,
    postType: null,
    options: {},
    parent: null,
    idempotencyKey: randomUUID(),
    round: 1,
    ...overrides,
  });

/** The NetworkError a promise rejects with (fails the test when it resolves or throws something else). */
export const failureOf = async (promise: Promise<unknown>): Promise<NetworkError> => {
  const outcome = await promise.then(
    () => null,
    (error: unknown) => error,
  );
  if (!(outcome instanceof NetworkError)) throw new Error(`expected a NetworkError, got ${String(outcome)}`);
  return outcome;
};
