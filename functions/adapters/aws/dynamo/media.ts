import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { MediaRecord, MediaStore } from '../../../ports/media.ts';
import { batchGetAll, type TableRef } from './client.ts';
import { keys } from './keys.ts';

export const mediaToItem = (m: MediaRecord) => ({
  ...keys.media(m.workspaceId, m.mediaId),
  type: 'Media',
  ...m,
});
export const mediaFromItem = (item: Record<string, unknown>): MediaRecord => {
  const { PK: _pk, SK: _sk, type: _type, ...fields } = item;
  return fields as unknown as MediaRecord;
};

export class DynamoMediaStore implements MediaStore {
  constructor(private readonly table: TableRef) {}

  async put(record: MediaRecord): Promise<void> {
    await this.table.doc.send(new PutCommand({ TableName: this.table.tableName, Item: mediaToItem(record) }));
  }

  async getMany(workspaceId: string, mediaIds: string[]): Promise<Map<string, MediaRecord>> {
    const itemKeys = [...new Set(mediaIds)].map((id) => keys.media(workspaceId, id));
    const records = (await batchGetAll(this.table, itemKeys, true)).map(mediaFromItem);
    return new Map(records.map((record) => [record.mediaId, record]));
  }
}
