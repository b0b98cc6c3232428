import type { MediaRecord, MediaStore } from '../../../functions/ports/media.ts';

/** The media library's records in memory (only what the publishing engine reads). */
export class FakeMediaStore implements Pick<MediaStore, 'getMany'> {
  private readonly records = new Map<string, MediaRecord>();
  /** Reads made (each a request). */
  reads = 0;

  put(record: MediaRecord): void {
    this.records.set(`${record.workspaceId}#${record.mediaId}`, structuredClone(record));
  }

  delete(workspaceId: string, mediaId: string): void {
    this.records.delete(`${workspaceId}#${mediaId}`);
  }

  async getMany(workspaceId: string, mediaIds: string[]): Promise<Map<string, MediaRecord>> {
    this.reads++;
    const found = new Map<string, MediaRecord>();
    for (const id of mediaIds) {
      const record = this.records.get(`${workspaceId}#${id}`);
      if (record) found.set(id, structuredClone(record));
    }
    return found;
  }
}
