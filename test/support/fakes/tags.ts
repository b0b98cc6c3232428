import type { EngineTags } from '../../../functions/core/publishing/deps.ts';
import type { Tag } from '../../../functions/ports/tags.ts';

/** Tags of workspaces, in memory. */
export class FakeTagStore implements EngineTags {
  private readonly tags = new Map<string, Tag[]>();

  addTag(tag: Tag): void {
    this.tags.set(tag.workspaceId, [...(this.tags.get(tag.workspaceId) ?? []), tag]);
  }

  async listTags(workspaceId: string): Promise<Tag[]> {
    return structuredClone(this.tags.get(workspaceId) ?? []);
  }
}
