/**
 * The dashboard's management answers (issue 29) as zod schemas, beside responses.ts and tied to
 * the code that builds them the same way (`Same<>` checks at the bottom).
 */
import * as z from 'zod';
import type { apiKeyView, createKey } from '../core/account/keys.ts';
import type { accountOverview, workspaceView } from '../core/account/workspaces.ts';
import type { webhookSecret } from '../core/webhooks/endpoints.ts';
import { PLANS } from '../domain/plans.ts';

const dateTime = (description?: string) =>
  z.string().meta({ format: 'date-time', ...(description ? { description } : {}) });

export const workspaceSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  createdAt: dateTime(),
});
export const workspaceListSchema = z.strictObject({ data: z.array(workspaceSchema) });

export const accountOverviewSchema = z.strictObject({
  user: z.strictObject({ id: z.string().meta({ description: "The user pool's `sub`." }), email: z.string() }),
  account: z.strictObject({ id: z.string(), plan: z.enum(Object.keys(PLANS) as [keyof typeof PLANS]) }),
  workspaces: z.array(workspaceSchema),
});

const apiKeyFields = {
  id: z.string(),
  name: z.string(),
  prefix: z.string().meta({ description: 'The first characters of the secret, such as `sk_live_AbCd`.' }),
  mode: z.enum(['live', 'test']),
  permission: z.enum(['read', 'write']),
  createdAt: dateTime(),
  lastUsedAt: dateTime(
    "When a request last counted in the key's rate-limit window (written by the count itself); null: never used.",
  ).nullable(),
  expiresAt: dateTime(
    'A rolled key: when its grace ends and it answers 401; null: it does not expire.',
  ).nullable(),
};
export const apiKeySchema = z.strictObject(apiKeyFields);
export const apiKeyListSchema = z.strictObject({ data: z.array(apiKeySchema) });
export const apiKeyWithSecretSchema = z.strictObject({
  ...apiKeyFields,
  secret: z.string().meta({ description: 'The key itself: shown in this answer only, stored as a hash.' }),
});

export const webhookSigningSecretSchema = z.strictObject({
  secret: z.string().meta({ description: "The endpoint's current signing secret (`whsec_...`)." }),
});

/** API Gateway's own answer to a request its JWT authorizer refused: not the error envelope. */
export const gatewayUnauthorizedSchema = z.strictObject({ message: z.literal('Unauthorized') });

// --- The schemas say what the code answers: each pair must be the same type. ---
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same = <_T extends true>() => undefined;
type Awaited2<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
same<Same<z.output<typeof workspaceSchema>, ReturnType<typeof workspaceView>>>();
same<Same<z.output<typeof accountOverviewSchema>, Awaited2<typeof accountOverview>>>();
same<Same<z.output<typeof apiKeySchema>, ReturnType<typeof apiKeyView>>>();
same<Same<z.output<typeof apiKeyWithSecretSchema>, Awaited2<typeof createKey>>>();
same<Same<z.output<typeof webhookSigningSecretSchema>, Awaited2<typeof webhookSecret>>>();
