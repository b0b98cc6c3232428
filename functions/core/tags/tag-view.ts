import type { Tag } from '../../ports/tags.ts';

/** A tag as the API shows it. */
export const tagView = (tag: Tag) => ({
  id: tag.tagId,
  name: tag.name,
  color: tag.color,
  createdAt: tag.createdAt,
});
