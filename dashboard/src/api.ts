/**
 * The API client: openapi-fetch typed by the OpenAPI document, every call carrying the user's access
 * token. A 401 triggers one refresh and one retry; a second 401 signs the user out.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../client/schema.d.ts';
import type { Session } from './session.ts';

export type Schemas = components['schemas'];
/** Every route of the OpenAPI document, the management routes included. */
export type Paths = paths;
export type Api = Client<Paths>;
export type AccountView = Schemas['AccountOverview'];
export type ApiKeyView = Schemas['ApiKey'];
export type WorkspaceView = Schemas['Workspace'];
export type Timeline = Schemas['GetPostsIdTimeline200'];
export type TimelineEvent = Timeline['data'][number];

/** The envelope's message, or a plain one for an answer without it (API Gateway's 401). */
export const messageOf = (error: unknown): string => {
  if (error && typeof error === 'object') {
    const body = error as { error?: { message?: string; requestId?: string }; message?: string };
    if (body.error?.message)
      return `${body.error.message}${body.error.requestId ? ` (${body.error.requestId})` : ''}`;
    if (body.message) return body.message;
  }
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
};

export const createApi = (apiBase: string, session: Session): Api => {
  const api = createClient<Paths>({ baseUrl: apiBase || window.location.origin });
  // Each request's unread copy, for the one retry after a refresh (its body is consumed by then).
  const copies = new Map<string, Request>();
  const auth: Middleware = {
    async onRequest({ request, id }) {
      const token = await session.accessToken();
      if (token) request.headers.set('Authorization', `Bearer ${token}`);
      copies.set(id, request.clone());
      return request;
    },
    async onResponse({ response, options, id }) {
      const copy = copies.get(id);
      copies.delete(id);
      if (response.status !== 401 || !copy) return response;
      const tokens = await session.renew();
      if (!tokens) return response;
      copy.headers.set('Authorization', `Bearer ${tokens.accessToken}`);
      const answer = await options.fetch(copy);
      if (answer.status === 401) session.signOut();
      return answer;
    },
    onError({ id }) {
      copies.delete(id);
    },
  };
  api.use(auth);
  return api;
};
