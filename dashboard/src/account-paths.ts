/**
 * The management routes (`/v1/account/...`, the user's JWT) as the contract gives them, for
 * any route `client/schema.d.ts` does not have yet: api.ts takes the generated type of every path
 * the document has and this one only for the others (so a route, once generated, is typed by the
 * document alone). The workspace-scoped routes reuse the generated key-route operations with a
 * `workspaceId` path parameter.
 */
import type { components, operations } from '../../client/schema.d.ts';

type Schemas = components['schemas'];
type Json<T> = { headers: { [name: string]: unknown }; content: { 'application/json': T } };
type ErrorAnswer = Json<Schemas['Error']>;

/** A key-route operation, answered under `/v1/account/workspaces/{workspaceId}/...`. */
type Scoped<Op> = Op extends { parameters: infer P; responses: infer R }
  ? Omit<Op, 'parameters'> & {
      parameters: Omit<P, 'path'> & {
        path: { workspaceId: string } & (P extends { path?: infer Path }
          ? Path extends object
            ? Path
            : unknown
          : unknown);
      };
      responses: R;
    }
  : never;

type NewOp<Answer, Path = never, Body = never, Status extends number = 200> = {
  parameters: [Path] extends [never]
    ? { query?: never; header?: never; path?: never; cookie?: never }
    : { query?: never; header?: never; path: Path; cookie?: never };
  responses: { [S in Status]: Json<Answer> } & { default: ErrorAnswer };
} & ([Body] extends [never]
  ? { requestBody?: never }
  : { requestBody: { content: { 'application/json': Body } } });

type Item = { parameters: { query?: never; header?: never; path?: never; cookie?: never } };
type WorkspacePath = { workspaceId: string };

export interface WorkspaceView {
  id: string;
  name: string;
  createdAt: string;
}
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  mode: 'live' | 'test';
  permission: 'read' | 'write';
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}
export interface AccountView {
  user: { id: string; email: string };
  account: { id: string; plan: Schemas['Usage']['plan'] };
  workspaces: WorkspaceView[];
}
export interface TimelineEvent {
  at: string;
  channelId: string;
  block: number | null;
  kind:
    | 'queued'
    | 'sending'
    | 'sent'
    | 'refused'
    | 'answer_lost'
    | 'lookup_found'
    | 'lookup_not_found'
    | 'retry_scheduled'
    | 'rate_limit_wait'
    | 'processing_wait'
    | 'upload_progress'
    | 'unknown'
    | 'channel_published'
    | 'channel_failed'
    | 'revised'
    | 'retracted';
  detail: string;
  attempt?: number;
  until?: string;
  remoteId?: string;
  url?: string;
  error?: { code: string; message: string };
}
export interface Timeline {
  postId: string;
  data: TimelineEvent[];
}

export interface AccountPaths {
  '/v1/account': Item & { get: NewOp<AccountView> };
  '/v1/account/usage': Item & { get: operations['getUsage'] };
  '/v1/account/workspaces': Item & {
    get: NewOp<{ data: WorkspaceView[] }>;
    post: NewOp<WorkspaceView, never, { name: string }, 201>;
  };
  '/v1/account/workspaces/{workspaceId}': Item & {
    patch: NewOp<WorkspaceView, WorkspacePath, { name: string }>;
  };
  '/v1/account/workspaces/{workspaceId}/keys': Item & {
    get: NewOp<{ data: ApiKeyView[] }, WorkspacePath>;
    post: NewOp<
      ApiKeyView & { secret: string },
      WorkspacePath,
      { name?: string; mode: 'live' | 'test'; permission: 'read' | 'write' },
      201
    >;
  };
  '/v1/account/workspaces/{workspaceId}/keys/{keyId}': Item & {
    delete: NewOp<never, WorkspacePath & { keyId: string }, never, 204>;
  };
  '/v1/account/workspaces/{workspaceId}/keys/{keyId}/roll': Item & {
    post: NewOp<
      ApiKeyView & { secret: string },
      WorkspacePath & { keyId: string },
      { graceSeconds?: number },
      201
    >;
  };
  '/v1/account/workspaces/{workspaceId}/channels': Item & { get: Scoped<operations['getChannels']> };
  '/v1/account/workspaces/{workspaceId}/channels/connect': Item & {
    post: Scoped<operations['postChannelsConnect']>;
  };
  '/v1/account/workspaces/{workspaceId}/channels/connect/complete': Item & {
    post: Scoped<operations['postChannelsConnectComplete']>;
  };
  '/v1/account/workspaces/{workspaceId}/channels/connect/{state}/targets': Item & {
    get: Scoped<operations['getChannelsConnectStateTargets']>;
    post: Scoped<operations['postChannelsConnectStateTargets']>;
  };
  '/v1/account/workspaces/{workspaceId}/channels/{id}': Item & {
    delete: Scoped<operations['deleteChannelsId']>;
  };
  '/v1/account/workspaces/{workspaceId}/posts': Item & { get: Scoped<operations['getPosts']> };
  '/v1/account/workspaces/{workspaceId}/posts/{id}': Item & { get: Scoped<operations['getPostsId']> };
  '/v1/account/workspaces/{workspaceId}/posts/{id}/metrics': Item & {
    get: Scoped<operations['getPostsIdMetrics']>;
  };
  '/v1/account/workspaces/{workspaceId}/posts/{id}/timeline': Item & {
    get: NewOp<Timeline, WorkspacePath & { id: string }>;
  };
  '/v1/account/workspaces/{workspaceId}/webhooks': Item & { get: Scoped<operations['getWebhooks']> };
  '/v1/account/workspaces/{workspaceId}/webhooks/{id}/secret': Item & {
    get: NewOp<{ secret: string }, WorkspacePath & { id: string }>;
  };
  '/v1/account/workspaces/{workspaceId}/webhooks/{id}/deliveries': Item & {
    get: Scoped<operations['getWebhooksIdDeliveries']>;
  };
}
