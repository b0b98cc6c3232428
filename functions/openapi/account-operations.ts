/**
 * The dashboard's management routes (functions/http/routes.ts `userRoutes`) as operations: a
 * person's access token (`userJwt`), never an API key. The routes that run a key route's own code
 * are documented from that route's entry, so the two can never drift apart.
 */
import { createKeyBody, rollKeyBody } from '../core/account/keys.ts';
import { workspaceBody } from '../core/account/workspaces.ts';
import {
  accountOverviewSchema,
  apiKeyListSchema,
  apiKeyWithSecretSchema,
  webhookSigningSecretSchema,
  workspaceListSchema,
  workspaceSchema,
} from './account-responses.ts';
import type { Operation } from './operations.ts';
import { usageSchema } from './responses.ts';

export const DASHBOARD_TAG = 'Dashboard (management)';

const WS = '/v1/account/workspaces/{workspaceId}';
const workspaceId = {
  workspaceId: "A workspace of the user's account (`ws_...`); any other id answers 404.",
};
const keyId = { ...workspaceId, keyId: 'The key id (`key_...`).' };

/** A key route's operation for the user route that runs its code, in the same workspace. */
const mirror = (keyOps: Record<string, Operation>, keyRoute: string, summary: string): Operation => {
  const op = keyOps[keyRoute];
  if (!op) throw new Error(`No operation ${keyRoute} to mirror`);
  return {
    ...op,
    summary,
    description: `As \`${keyRoute}\`, in the workspace named by the path, for the signed-in user (live data: the dashboard acts as a live write key of the workspace).${op.description ? `\n\n${op.description}` : ''}`,
    tag: DASHBOARD_TAG,
    auth: 'user',
    params: { ...workspaceId, ...op.params },
  };
};

/** The operations of `userRoutes`, keyed as the manifest writes them. */
export const accountOperations = (keyOps: Record<string, Operation>): Record<string, Operation> => ({
  'GET /v1/account': {
    summary: 'The signed-in user, the account and its workspaces',
    tag: DASHBOARD_TAG,
    auth: 'user',
    responses: {
      200: { description: 'Who is signed in and what the account holds.', schema: accountOverviewSchema },
    },
  },
  'GET /v1/account/usage': {
    summary: 'Plan and usage of the account',
    description: 'The same answer as GET /v1/usage.',
    tag: DASHBOARD_TAG,
    auth: 'user',
    responses: { 200: { description: 'Usage this monthly period.', schema: usageSchema } },
  },
  'GET /v1/account/workspaces': {
    summary: "The account's workspaces",
    tag: DASHBOARD_TAG,
    auth: 'user',
    responses: { 200: { description: 'Every workspace, oldest first.', schema: workspaceListSchema } },
  },
  'POST /v1/account/workspaces': {
    summary: 'Create a workspace',
    description: 'The name is trimmed; 1 to 100 characters.',
    tag: DASHBOARD_TAG,
    auth: 'user',
    body: workspaceBody,
    responses: { 201: { description: 'The new workspace.', schema: workspaceSchema } },
  },
  [`PATCH ${WS}`]: {
    summary: 'Rename a workspace',
    tag: DASHBOARD_TAG,
    auth: 'user',
    params: workspaceId,
    body: workspaceBody,
    responses: { 200: { description: 'The workspace.', schema: workspaceSchema } },
  },
  [`GET ${WS}/keys`]: {
    summary: "The workspace's API keys",
    description:
      'Newest first, never a secret. A revoked key is gone; a rolled key is listed with its `expiresAt` until its grace ends.',
    tag: DASHBOARD_TAG,
    auth: 'user',
    params: workspaceId,
    responses: { 200: { description: 'The keys.', schema: apiKeyListSchema } },
  },
  [`POST ${WS}/keys`]: {
    summary: 'Create an API key',
    description: 'The secret is in this answer only: Herald keeps its SHA-256.',
    tag: DASHBOARD_TAG,
    auth: 'user',
    params: workspaceId,
    body: createKeyBody,
    responses: { 201: { description: 'The key, with its secret.', schema: apiKeyWithSecretSchema } },
  },
  [`DELETE ${WS}/keys/{keyId}`]: {
    summary: 'Revoke an API key',
    description: 'At once: the next request with the key answers 401, on every instance.',
    tag: DASHBOARD_TAG,
    auth: 'user',
    params: keyId,
    responses: { 204: { description: 'Revoked.' } },
  },
  [`POST ${WS}/keys/{keyId}/roll`]: {
    summary: 'Roll an API key',
    description:
      'A new key with the same name, mode and permission. The old one keeps working for `graceSeconds` (0 to 86400, default 0: it answers 401 at once), in whole seconds, then answers 401.',
    tag: DASHBOARD_TAG,
    auth: 'user',
    params: keyId,
    body: rollKeyBody,
    responses: { 201: { description: 'The new key, with its secret.', schema: apiKeyWithSecretSchema } },
  },
  [`GET ${WS}/channels`]: mirror(keyOps, 'GET /v1/channels', "The workspace's channels"),
  [`POST ${WS}/channels/connect`]: mirror(keyOps, 'POST /v1/channels/connect', 'Start connecting a channel'),
  [`POST ${WS}/channels/connect/complete`]: mirror(
    keyOps,
    'POST /v1/channels/connect/complete',
    'Complete a connection',
  ),
  [`GET ${WS}/channels/connect/{state}/targets`]: mirror(
    keyOps,
    'GET /v1/channels/connect/{state}/targets',
    'The targets a connection may post to',
  ),
  [`POST ${WS}/channels/connect/{state}/targets`]: mirror(
    keyOps,
    'POST /v1/channels/connect/{state}/targets',
    'Choose the targets of a connection',
  ),
  [`DELETE ${WS}/channels/{id}`]: mirror(keyOps, 'DELETE /v1/channels/{id}', 'Disconnect a channel'),
  [`GET ${WS}/posts`]: mirror(keyOps, 'GET /v1/posts', "The workspace's posts"),
  [`GET ${WS}/posts/{id}`]: mirror(keyOps, 'GET /v1/posts/{id}', 'A post'),
  [`GET ${WS}/posts/{id}/metrics`]: mirror(keyOps, 'GET /v1/posts/{id}/metrics', "A post's metrics"),
  [`GET ${WS}/posts/{id}/timeline`]: mirror(
    keyOps,
    'GET /v1/posts/{id}/timeline',
    "A post's timeline: what the engine did with each channel and block, and when",
  ),
  [`GET ${WS}/webhooks`]: mirror(keyOps, 'GET /v1/webhooks', "The workspace's webhook endpoints"),
  [`GET ${WS}/webhooks/{id}/secret`]: {
    summary: "A webhook endpoint's signing secret",
    description: 'Opened on demand, for the dashboard\'s "show secret".',
    tag: DASHBOARD_TAG,
    auth: 'user',
    params: { ...workspaceId, id: 'The webhook endpoint id (`wh_...`).' },
    responses: { 200: { description: 'The signing secret.', schema: webhookSigningSecretSchema } },
    errors: ['not_found'],
  },
  [`GET ${WS}/webhooks/{id}/deliveries`]: mirror(
    keyOps,
    'GET /v1/webhooks/{id}/deliveries',
    "A webhook endpoint's delivery attempts",
  ),
});
