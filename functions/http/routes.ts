/**
 * The route manifest: every /v1 route, the module that handles it and what it may touch.
 * The CDK stack makes one Lambda per entry (with exactly these grants) and the local HTTP
 * server dispatches to the same modules, so the two runtimes can never disagree on routing.
 */
import { type Grant, tokenRefresh } from '../shared/grants.ts';

export type { Grant } from '../shared/grants.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

export interface RouteDef {
  method: HttpMethod;
  /** Path as API Gateway writes it, with `{param}` segments, including the /v1 prefix. */
  path: string;
  /** Handler module relative to the repository root; it exports `handler`. */
  entry: string;
  grants: Grant[];
  /**
   * No API key (the route authenticates otherwise, or not at all): API Gateway gives it a throttle
   * of its own. The health, public and `$default` routes are key-less by construction.
   */
  keyless?: true;
  /**
   * Files of npm packages the handler reads at run time (`package/file`): the CDK bundle ships
   * them beside the handler; the local runtime reads them from node_modules.
   */
  assets?: string[];
}

// Every authenticated route finds its key and counts the request in one UpdateItem of the key's
// item (a write), then reads what it shows.
const base: Grant[] = ['table:read', 'table:write'];
/** A route that reads nothing besides its key (and writes only through conditions): no table:read. */
const keyOnly: Grant[] = ['table:write'];

export const routes: RouteDef[] = [
  { method: 'GET', path: '/v1/platforms', entry: 'functions/http/platforms/list.ts', grants: keyOnly },
  { method: 'GET', path: '/v1/channels', entry: 'functions/http/channels/list.ts', grants: base },
  {
    method: 'POST',
    path: '/v1/channels/connect',
    entry: 'functions/http/channels/connect.ts',
    grants: [...base, 'appSecrets:read'],
  },
  {
    // No key: the network's redirect. Exchanges the code with the app's credentials and seals the
    // grant into its connect state: no channel (the key holder completes it). Key-less, so no
    // tenant-wide table access: only the partitions it touches (its connect state, and the
    // request count).
    method: 'GET',
    path: '/v1/channels/callback',
    entry: 'functions/http/channels/callback.ts',
    keyless: true,
    grants: ['table:countRequests', 'table:connectStates', 'appSecrets:read', 'connectGrant:encrypt'],
  },
  {
    // Opens the account's grant and seals it again for the channel (no network call: no app secret).
    method: 'POST',
    path: '/v1/channels/connect/complete',
    entry: 'functions/http/channels/complete.ts',
    grants: [...base, 'connectGrant:decrypt', 'channelToken:encrypt'],
  },
  {
    method: 'GET',
    path: '/v1/channels/connect/{state}/targets',
    entry: 'functions/http/channels/targets-list.ts',
    grants: base,
  },
  {
    // Opens the account's grant and seals each chosen target's tokens.
    method: 'POST',
    path: '/v1/channels/connect/{state}/targets',
    entry: 'functions/http/channels/targets-choose.ts',
    grants: [...base, 'appSecrets:read', 'connectGrant:decrypt', 'channelToken:encrypt'],
  },
  {
    method: 'POST',
    path: '/v1/channels',
    entry: 'functions/http/channels/create.ts',
    grants: [...base, 'appSecrets:read', 'channelToken:encrypt'],
  },
  { method: 'GET', path: '/v1/channels/{id}', entry: 'functions/http/channels/get.ts', grants: base },
  {
    // Opens the tokens to revoke them at the network.
    method: 'DELETE',
    path: '/v1/channels/{id}',
    entry: 'functions/http/channels/delete.ts',
    grants: [...base, 'appSecrets:read', 'channelToken:decrypt'],
  },
  { method: 'GET', path: '/v1/tags', entry: 'functions/http/tags/list.ts', grants: base },
  { method: 'POST', path: '/v1/tags', entry: 'functions/http/tags/create.ts', grants: keyOnly },
  { method: 'GET', path: '/v1/usage', entry: 'functions/http/usage/get.ts', grants: base },
  {
    method: 'POST',
    path: '/v1/posts',
    entry: 'functions/http/posts/create.ts',
    // Intent `now`, and a schedule inside the lead time, go straight on the publish queue.
    grants: [...base, 'scheduler:manage', 'publishQueue:send'],
  },
  { method: 'GET', path: '/v1/posts', entry: 'functions/http/posts/list.ts', grants: base },
  { method: 'GET', path: '/v1/posts/{id}', entry: 'functions/http/posts/get.ts', grants: base },
  { method: 'GET', path: '/v1/posts/{id}/metrics', entry: 'functions/http/posts/metrics.ts', grants: base },
  { method: 'GET', path: '/v1/posts/{id}/timeline', entry: 'functions/http/posts/timeline.ts', grants: base },
  {
    // Reads each channel's network; the token service may refresh the channel's tokens.
    method: 'GET',
    path: '/v1/posts/{id}/comments',
    entry: 'functions/http/posts/comments.ts',
    grants: [...base, ...tokenRefresh],
  },
  {
    // Images in a reply reach the network as presigned GETs.
    method: 'POST',
    path: '/v1/posts/{id}/comments/{commentId}/replies',
    entry: 'functions/http/posts/reply.ts',
    grants: [...base, ...tokenRefresh, 'bucket:read'],
  },
  {
    method: 'DELETE',
    path: '/v1/posts/{id}/comments/{commentId}/replies/{replyId}',
    entry: 'functions/http/posts/delete-reply.ts',
    grants: [...base, ...tokenRefresh],
  },
  { method: 'GET', path: '/v1/stats', entry: 'functions/http/stats/get.ts', grants: base },
  {
    method: 'PUT',
    path: '/v1/posts/{id}',
    entry: 'functions/http/posts/replace.ts',
    grants: [...base, 'scheduler:manage', 'publishQueue:send'],
  },
  {
    method: 'POST',
    path: '/v1/posts/{id}/publish',
    entry: 'functions/http/posts/publish.ts',
    grants: [...base, 'publishQueue:send'],
  },
  {
    method: 'POST',
    path: '/v1/posts/{id}/revise',
    entry: 'functions/http/posts/revise.ts',
    // The token service may refresh the channel's tokens (sealing the new ones with the app's
    // credentials), or mark the channel needs_reconnect and hand its event on.
    grants: [...base, ...tokenRefresh],
  },
  {
    method: 'POST',
    path: '/v1/posts/{id}/retract',
    entry: 'functions/http/posts/retract.ts',
    // The token service may refresh the channel's tokens (sealing the new ones with the app's
    // credentials), or mark the channel needs_reconnect and hand its event on.
    grants: [...base, ...tokenRefresh],
  },
  {
    method: 'DELETE',
    path: '/v1/posts/{id}',
    entry: 'functions/http/posts/delete.ts',
    grants: [...base, 'scheduler:manage'],
  },
  // Media: responses carry presigned GETs (signed with the function's own read permission).
  {
    method: 'POST',
    path: '/v1/media',
    entry: 'functions/http/media/upload.ts',
    grants: [...base, 'bucket:read', 'bucket:write'],
  },
  {
    method: 'GET',
    path: '/v1/media',
    entry: 'functions/http/media/list.ts',
    grants: [...base, 'bucket:read'],
  },
  {
    method: 'POST',
    path: '/v1/media/uploads',
    entry: 'functions/http/media/start-upload.ts',
    grants: [...base, 'bucket:write'],
  },
  {
    method: 'POST',
    path: '/v1/media/{id}/complete',
    entry: 'functions/http/media/complete-upload.ts',
    // It HEADs an upload that may never have arrived: S3 says 404 (not 403) only to a caller that
    // may list the bucket.
    grants: [...base, 'bucket:read', 'bucket:write', 'bucket:list'],
  },
  {
    method: 'GET',
    path: '/v1/media/{id}',
    entry: 'functions/http/media/get.ts',
    grants: [...base, 'bucket:read'],
  },
  {
    method: 'PUT',
    path: '/v1/media/{id}',
    entry: 'functions/http/media/update.ts',
    grants: [...base, 'bucket:read'],
  },
  {
    method: 'DELETE',
    path: '/v1/media/{id}',
    entry: 'functions/http/media/delete.ts',
    grants: [...base, 'bucket:write'],
  },
  {
    method: 'POST',
    path: '/v1/webhooks',
    entry: 'functions/http/webhooks/create.ts',
    // Seals the new secret; an Idempotency-Key replay opens the sealed one again (webhook secrets
    // only: the grant cannot open a channel's token).
    grants: [...base, 'webhookSecret:encrypt', 'webhookSecret:decrypt'],
  },
  { method: 'GET', path: '/v1/webhooks', entry: 'functions/http/webhooks/list.ts', grants: base },
  { method: 'GET', path: '/v1/webhooks/{id}', entry: 'functions/http/webhooks/get.ts', grants: base },
  { method: 'PUT', path: '/v1/webhooks/{id}', entry: 'functions/http/webhooks/update.ts', grants: base },
  { method: 'DELETE', path: '/v1/webhooks/{id}', entry: 'functions/http/webhooks/delete.ts', grants: base },
  {
    method: 'POST',
    path: '/v1/webhooks/{id}/roll-secret',
    entry: 'functions/http/webhooks/roll-secret.ts',
    grants: [...base, 'webhookSecret:encrypt'],
  },
  {
    method: 'GET',
    path: '/v1/webhooks/{id}/deliveries',
    entry: 'functions/http/webhooks/deliveries.ts',
    grants: base,
  },
];

/**
 * The dashboard's management routes (issue 29): people, not programs. Each takes only a user's
 * JWT, checked before the function runs (API Gateway's JWT authorizer on AWS, the local server as
 * its stand-in), and never an API key; the REST routes above never take a JWT. Paths start with
 * /v1/account; a `{workspaceId}` must belong to the user's account.
 */
export const userRoutes: RouteDef[] = [
  // Each counts the request in the user's own window (`RATE#user:<sub>`, an UpdateItem) and reads
  // the user's item (and, under {workspaceId}, the workspace's) first: `base`, as a key route.
  { method: 'GET', path: '/v1/account', entry: 'functions/http/account/get.ts', grants: base },
  { method: 'GET', path: '/v1/account/usage', entry: 'functions/http/account/usage.ts', grants: base },
  {
    method: 'GET',
    path: '/v1/account/workspaces',
    entry: 'functions/http/account/workspaces/list.ts',
    grants: base,
  },
  {
    method: 'POST',
    path: '/v1/account/workspaces',
    entry: 'functions/http/account/workspaces/create.ts',
    grants: base,
  },
  {
    method: 'PATCH',
    path: '/v1/account/workspaces/{workspaceId}',
    entry: 'functions/http/account/workspaces/rename.ts',
    grants: base,
  },
  {
    method: 'GET',
    path: '/v1/account/workspaces/{workspaceId}/keys',
    entry: 'functions/http/account/keys/list.ts',
    grants: base,
  },
  {
    method: 'POST',
    path: '/v1/account/workspaces/{workspaceId}/keys',
    entry: 'functions/http/account/keys/create.ts',
    grants: base,
  },
  {
    method: 'DELETE',
    path: '/v1/account/workspaces/{workspaceId}/keys/{keyId}',
    entry: 'functions/http/account/keys/revoke.ts',
    grants: base,
  },
  {
    method: 'POST',
    path: '/v1/account/workspaces/{workspaceId}/keys/{keyId}/roll',
    entry: 'functions/http/account/keys/roll.ts',
    grants: base,
  },
  // The channel routes run the key routes' own code: the same grants as theirs.
  {
    method: 'GET',
    path: '/v1/account/workspaces/{workspaceId}/channels',
    entry: 'functions/http/account/channels/list.ts',
    grants: base,
  },
  {
    method: 'POST',
    path: '/v1/account/workspaces/{workspaceId}/channels/connect',
    entry: 'functions/http/account/channels/connect.ts',
    grants: [...base, 'appSecrets:read'],
  },
  {
    method: 'POST',
    path: '/v1/account/workspaces/{workspaceId}/channels/connect/complete',
    entry: 'functions/http/account/channels/complete.ts',
    grants: [...base, 'connectGrant:decrypt', 'channelToken:encrypt'],
  },
  {
    method: 'GET',
    path: '/v1/account/workspaces/{workspaceId}/channels/connect/{state}/targets',
    entry: 'functions/http/account/channels/targets-list.ts',
    grants: base,
  },
  {
    method: 'POST',
    path: '/v1/account/workspaces/{workspaceId}/channels/connect/{state}/targets',
    entry: 'functions/http/account/channels/targets-choose.ts',
    grants: [...base, 'appSecrets:read', 'connectGrant:decrypt', 'channelToken:encrypt'],
  },
  {
    method: 'DELETE',
    path: '/v1/account/workspaces/{workspaceId}/channels/{id}',
    entry: 'functions/http/account/channels/delete.ts',
    grants: [...base, 'appSecrets:read', 'channelToken:decrypt'],
  },
  {
    method: 'GET',
    path: '/v1/account/workspaces/{workspaceId}/posts',
    entry: 'functions/http/account/posts/list.ts',
    grants: base,
  },
  {
    method: 'GET',
    path: '/v1/account/workspaces/{workspaceId}/posts/{id}',
    entry: 'functions/http/account/posts/get.ts',
    grants: base,
  },
  {
    method: 'GET',
    path: '/v1/account/workspaces/{workspaceId}/posts/{id}/metrics',
    entry: 'functions/http/account/posts/metrics.ts',
    grants: base,
  },
  {
    method: 'GET',
    path: '/v1/account/workspaces/{workspaceId}/posts/{id}/timeline',
    entry: 'functions/http/account/posts/timeline.ts',
    grants: base,
  },
  {
    method: 'GET',
    path: '/v1/account/workspaces/{workspaceId}/webhooks',
    entry: 'functions/http/account/webhooks/list.ts',
    grants: base,
  },
  {
    // Opens the endpoint's sealed signing secret (webhook secrets only).
    method: 'GET',
    path: '/v1/account/workspaces/{workspaceId}/webhooks/{id}/secret',
    entry: 'functions/http/account/webhooks/secret.ts',
    grants: [...base, 'webhookSecret:decrypt'],
  },
  {
    method: 'GET',
    path: '/v1/account/workspaces/{workspaceId}/webhooks/{id}/deliveries',
    entry: 'functions/http/account/webhooks/deliveries.ts',
    grants: base,
  },
];

/**
 * Public routes (no key, no rate limit): the OpenAPI document and its reference page. Kept apart
 * from `routes`, whose every entry requires a key.
 */
export const publicRoutes: RouteDef[] = [
  { method: 'GET', path: '/v1/openapi.json', entry: 'functions/http/openapi/document.ts', grants: [] },
  {
    method: 'GET',
    path: '/docs',
    entry: 'functions/http/openapi/docs.ts',
    grants: [],
    assets: ['swagger-ui-dist/swagger-ui-bundle.js', 'swagger-ui-dist/swagger-ui.css'],
  },
  {
    method: 'GET',
    path: '/docs/{asset}',
    entry: 'functions/http/openapi/docs.ts',
    grants: [],
    assets: ['swagger-ui-dist/swagger-ui-bundle.js', 'swagger-ui-dist/swagger-ui.css'],
  },
];

/** Answers every request no route matched (API Gateway's `$default` route): 404 or 405 in our envelope. */
export const fallbackEntry = 'functions/http/fallback.ts';
/** The fallback finds an optional key and counts the rate limit too (one UpdateItem of the key's or the address's item). */
export const fallbackGrants: Grant[] = ['table:countRequests'];

/** Liveness route outside /v1, no authentication. */
export const healthRoute: RouteDef = {
  method: 'GET',
  path: '/health',
  entry: 'functions/http/health.ts',
  grants: [],
};
