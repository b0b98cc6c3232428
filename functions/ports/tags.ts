export interface Tag {
  tagId: string;
  workspaceId: string;
  name: string;
  color: string | null;
  createdAt: string;
}

/** The workspace's tags. */
export interface TagStore {
  /** Creates a tag; fails with `already_exists` when the workspace has one of the same name. */
  createTag(tag: Tag): Promise<void>;
  listTags(workspaceId: string): Promise<Tag[]>;
}
