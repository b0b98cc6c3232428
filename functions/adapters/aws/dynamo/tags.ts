import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors.ts';
import type { Tag, TagStore } from '../../../ports/tags.ts';
import {
  queryByPrefix,
  retryOnTransactionConflict,
  type TableRef,
  transactionCancellation,
} from './client.ts';
import { parseItem } from './item.ts';
import { keys } from './keys.ts';

/** Tag names are unique per workspace regardless of case and surrounding spaces. */
export const normaliseTagName = (name: string): string => name.trim().normalize('NFC').toLowerCase();

export const tagToItem = (t: Tag) => ({ ...keys.tag(t.workspaceId, t.tagId), type: 'Tag', ...t });
const tagSchema: z.ZodType<Tag> = z.object({
  tagId: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  color: z.string().nullable(),
  createdAt: z.string(),
});

/**
 * A tag without a colour holds NULL; an item without the attribute at all (one written by hand) has
 * always been read as having none, and still is.
 */
const absentColorAsNull = (fields: Record<string, unknown>): Record<string, unknown> => ({
  ...fields,
  color: fields.color ?? null,
});

/** A tag item as its record; `MalformedItemError` if it is not one. */
export const tagFromItem = (item: Record<string, unknown>): Tag =>
  parseItem('Tag', tagSchema, item, absentColorAsNull);

export const createTag = async ({ doc, tableName }: TableRef, tag: Tag): Promise<void> => {
  try {
    await retryOnTransactionConflict(() =>
      doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName,
                Item: {
                  ...keys.tagName(tag.workspaceId, normaliseTagName(tag.name)),
                  type: 'TagName',
                  tagId: tag.tagId,
                },
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
            {
              Put: {
                TableName: tableName,
                Item: tagToItem(tag),
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
          ],
        }),
      ),
    );
  } catch (error) {
    if (transactionCancellation(error)?.reasons[0] === 'ConditionalCheckFailed') {
      throw new ApiError(
        'already_exists',
        `A tag named "${tag.name}" already exists in this workspace.`,
        'name',
      );
    }
    throw error;
  }
};

export const listTags = async (table: TableRef, workspaceId: string): Promise<Tag[]> => {
  const { PK, SKPrefix } = keys.tagPrefix(workspaceId);
  const tags = (await queryByPrefix(table, PK, SKPrefix)).map(tagFromItem);
  return tags.sort((a, b) => a.name.localeCompare(b.name) || a.tagId.localeCompare(b.tagId));
};

/** The TagStore port over the table. */
export const dynamoTagStore = (table: TableRef): TagStore => ({
  createTag: (tag) => createTag(table, tag),
  listTags: (workspaceId) => listTags(table, workspaceId),
});
