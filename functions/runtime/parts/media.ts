import { DynamoMediaStore } from '../../adapters/aws/dynamo/media.ts';
import type { MediaStore } from '../../ports/media.ts';
import { part } from '../compose.ts';

/** Media records in the table (their bytes are `blobs`). */
export const media = part({
  name: 'media',
  keys: ['media'],
  build: ({ table }): { media: MediaStore } => ({ media: new DynamoMediaStore(table) }),
});
