import { ApiError } from '../domain/errors.ts';
import { httpHandler } from './pipeline.ts';
import { publicRoutes, routes } from './routes.ts';

const patterns = [...publicRoutes, ...routes].map((route) => ({
  method: route.method,
  regex: new RegExp(`^${route.path.replace(/\{[^/]+\}/g, '[^/]+')}/?$`),
}));

/** Methods served at a path, for the 405 answer's Allow header. */
export const allowedMethods = (path: string): string[] =>
  [...new Set(patterns.filter((p) => p.regex.test(path)).map((p) => p.method))].sort();

/** Every request no route matched: 405 with Allow where the path exists, else 404. */
export const handler = httpHandler({ auth: 'optional' }, async ({ event }) => {
  const allowed = allowedMethods(event.rawPath);
  const method = event.requestContext.http.method;
  if (allowed.includes(method)) {
    // Routes are matched exactly: the same path with a trailing slash reaches no route.
    const bare = event.rawPath.replace(/\/+$/, '');
    throw new ApiError(
      'not_found',
      `No route matches ${method} ${event.rawPath}; did you mean ${bare} (without the trailing slash)?`,
    );
  }
  if (allowed.length > 0) {
    throw new ApiError(
      'method_not_allowed',
      `${event.requestContext.http.method} is not allowed on ${event.rawPath}; use ${allowed.join(', ')}.`,
      undefined,
      { Allow: allowed.join(', ') },
    );
  }
  throw new ApiError('not_found', `No route matches ${method} ${event.rawPath}.`);
});
