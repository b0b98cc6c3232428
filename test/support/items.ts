import { MalformedItemError } from '../../functions/adapters/aws/dynamo/item.ts';

/** The error a read of a stored item throws, to look at (any other outcome fails the test). */
export const thrownMalformed = (read: () => unknown): MalformedItemError => {
  try {
    read();
  } catch (error) {
    if (error instanceof MalformedItemError) return error;
    throw error;
  }
  throw new Error('expected the read to throw');
};
