import * as z from 'zod';
import { EVENT_TYPES } from '../../ports/webhooks.ts';

const webhookUrl = z
  .string()
  .trim()
  .max(2048, 'The URL must be at most 2048 characters.')
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({
        code: 'custom',
        message: 'The URL must be absolute, such as https://example.com/hooks.',
      });
      return;
    }
    if (url.protocol !== 'https:')
      ctx.addIssue({ code: 'custom', message: 'The URL must start with https://.' });
    else if (url.username !== '' || url.password !== '')
      ctx.addIssue({ code: 'custom', message: 'The URL must not contain a user name or password.' });
  });

const eventType = z.enum(EVENT_TYPES, {
  error: () => `Unknown event type; use one of ${EVENT_TYPES.join(', ')}.`,
});

const eventList = z
  .array(eventType)
  .min(1, 'Subscribe to at least one event type.')
  .max(EVENT_TYPES.length * 4)
  .transform((events) => [...new Set(events)]);

const description = z.string().trim().max(500, 'The description must be at most 500 characters.');

/** POST /v1/webhooks. */
export const createWebhookBody = z.strictObject({
  url: webhookUrl,
  description: description.nullable().optional(),
  events: eventList,
});
export type CreateWebhookInput = z.output<typeof createWebhookBody>;

/** PUT /v1/webhooks/{id}: only the fields sent change. */
export const updateWebhookBody = z
  .strictObject({
    url: webhookUrl.optional(),
    description: description.nullable().optional(),
    events: eventList.optional(),
    enabled: z.boolean().optional(),
  })
  .superRefine((body, ctx) => {
    if (Object.values(body).every((value) => value === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'Send at least one of url, events, enabled, description.' });
    }
  });
export type UpdateWebhookInput = z.output<typeof updateWebhookBody>;
