import * as z from 'zod';
import { newId } from '../../domain/ids.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Tag, TagStore } from '../../ports/tags.ts';

export const createTagBody = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, 'The name must not be empty.')
    .max(50, 'The name must be at most 50 characters.'),
  color: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, 'The color must be a hex colour such as #1d9bf0.')
    .nullable()
    .optional(),
});
export type CreateTagInput = z.output<typeof createTagBody>;

/** Creates a tag in the workspace; names are unique per workspace, ignoring case. */
export const createTag = async (
  deps: { tags: TagStore; clock: Clock },
  input: { workspaceId: string } & CreateTagInput,
): Promise<Tag> => {
  const tag: Tag = {
    tagId: newId('tag'),
    workspaceId: input.workspaceId,
    name: input.name,
    color: input.color ?? null,
    createdAt: deps.clock.now().toISOString(),
  };
  await deps.tags.createTag(tag);
  return tag;
};
