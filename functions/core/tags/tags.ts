import * as z from 'zod';
import { newId } from '../../domain/ids.ts';
import type { AccountStore, Tag } from '../../ports/accounts.ts';
import type { Clock } from '../../ports/clock.ts';

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
  deps: { accounts: AccountStore; clock: Clock },
  input: { workspaceId: string } & CreateTagInput,
): Promise<Tag> => {
  const tag: Tag = {
    tagId: newId('tag'),
    workspaceId: input.workspaceId,
    name: input.name,
    color: input.color ?? null,
    createdAt: deps.clock.now().toISOString(),
  };
  await deps.accounts.createTag(tag);
  return tag;
};
