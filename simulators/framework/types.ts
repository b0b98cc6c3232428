import type { IncomingHttpHeaders } from 'node:http';
import type { RequestSpec, SpecIssue } from './spec-validation.ts';

/** What a network simulator declares and what the framework (framework.ts) gives it. */

/** The sim tokens whose answer is a refusal (nothing is stored): see `SimContext.screen`. */
export type RefusingSimToken = 'sim:fail' | 'sim:fail-once' | 'sim:flaky' | 'sim:reconnect';

/**
 * A refusal the simulator answered because of a sim token, in order. What the client did with the
 * answer is the client's: a drill that kills the client can learn from `at` whether the refusal
 * was answered before the kill (a `sim:fail-once` refusal answered to a client killed before it
 * kept it is gone: the resend after the restart is accepted).
 */
export interface SimRefusal {
  token: RefusingSimToken;
  /** The network-side account the content was sent for. */
  account: string;
  /** The refused content (with its sim token). */
  content: string;
  /** The answer's HTTP status. */
  status: number;
  /** ISO 8601 time the simulator refused it. */
  at: string;
}

/** One thing the simulated network did to a post, in order. */
export interface SimRecord {
  kind: 'post' | 'reply' | 'comment' | 'edit' | 'delete';
  /** The network's id of the object created, edited or deleted. */
  id: string;
  /** What a reply or comment attaches to (for edits and deletes of comments: the post). */
  parentId: string | null;
  /** The first post of the thread a reply or comment belongs to. */
  rootId: string | null;
  /** The text as the network stored it; null for deletes. */
  text: string | null;
  /** ISO 8601 time the simulator stored it. */
  at: string;
  /** The network-side account (user id, DID, author URN). */
  account: string;
}

export interface SimResponse {
  status: number;
  /** Serialized as JSON; absent means an empty body. */
  body?: unknown;
  /** An HTML page instead of JSON: what a network's sign-in site shows the user's browser. */
  html?: string;
  headers?: Record<string, string | number>;
  /**
   * The request was accepted (and whatever it did is stored), but its answer is lost: `timeout`
   * holds the socket until the client gives up (closed after `holdMs` at the latest), `reset`
   * resets the connection, `bad-gateway` answers 502 as a gateway in front of the network would.
   */
  lost?: LostAnswer | null;
}

/** How an answer is lost after the network stored the post (`sim:timeout`, `sim:reset`, `sim:bad-gateway`). */
export type LostAnswer = 'timeout' | 'reset' | 'bad-gateway';

/** Thrown by handlers (and by `ctx.screen`) to answer with an error at once. */
export class SimHttpError extends Error {
  constructor(readonly response: SimResponse) {
    super(`simulated ${response.status}`);
    this.name = 'SimHttpError';
  }
}

/** The two throttles every simulator models: a short one, and a spent daily cap. */
export type RateLimitKind = 'short' | 'daily';

/** Why the simulator refuses a token. */
export type UnauthorizedReason = 'missing' | 'expired' | 'revoked';

/** The network's own answers for the situations the framework produces. */
export interface SimErrorBodies {
  unauthorized(reason: UnauthorizedReason): SimResponse;
  /** The network's permanent refusal of content (`sim:fail`, `sim:fail-once` the first time). */
  refused(content: string): SimResponse;
  /** A transient outage (`sim:flaky` the first time): a 503 with the network's body. */
  unavailable(): SimResponse;
  /**
   * The network's rate-limit answer, with its headers: `short` a throttle of seconds or minutes,
   * `daily` a spent daily cap (some networks announce its reset, some answer both alike).
   */
  rateLimited(resetAt: Date, seconds: number, kind: RateLimitKind): SimResponse;
  badRequest(message: string): SimResponse;
  notFound(message: string): SimResponse;
  /** A gateway's 502 (`sim:bad-gateway`); default: a bare `{ message: 'Bad Gateway' }`. */
  badGateway?(): SimResponse;
  /** The network's answer to a request its published spec refuses; default: `badRequest(issue.message)`. */
  invalidRequest?(issue: SpecIssue): SimResponse;
  /** The network's refusal of a token that lacks scopes a route needs (`SimRoute.scopes`), given the missing ones. */
  missingScope?(missing: readonly string[]): SimResponse;
}

export interface SimContext {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; undefined when the request had none. */
  body: unknown;
  /** The request body's bytes as sent (empty when none). */
  rawBody: Buffer;
  /** The bearer token (already checked for `revoked`/`expired` prefixes); null on routes without auth. */
  token: string | null;
  /**
   * Applies the sim tokens in `content` for `account`: throws the network's answer for
   * `sim:fail`, `sim:fail-once` (first time), `sim:flaky` (first time) and `sim:reconnect`;
   * returns how the answer is lost for `sim:timeout`, `sim:reset` and `sim:bad-gateway` (store the
   * post, then answer with `lost` set to it).
   */
  screen(content: string, account: string): LostAnswer | null;
  /** Appends to the inspection log. */
  record(entry: Omit<SimRecord, 'at'>): SimRecord;
  errors: SimErrorBodies;
}

export type SimMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface SimRoute {
  method: SimMethod;
  /** `/2/tweets/:id`: `:name` segments become `params.name` (URL-decoded). */
  path: string;
  /** Default true: the route needs `Authorization: Bearer <token>`. */
  auth?: boolean;
  /** The body is binary (an upload): not parsed as JSON, read from `ctx.rawBody`. */
  rawBody?: boolean;
  /** The largest body the route takes (default 5 MiB): a network's own upload limit. */
  maxBodyBytes?: number;
  /**
   * Scopes the token must all hold. A token the simulator issued (`scopesOf`) that lacks one is
   * refused with `errors.missingScope` before the handler runs; other tokens (tests' made-up ones)
   * carry every scope.
   */
  scopes?: readonly string[];
  handler(ctx: SimContext): SimResponse | Promise<SimResponse>;
}

export interface SimulatorOptions {
  /** The network's name, for messages. */
  name: string;
  routes: SimRoute[];
  errors: SimErrorBodies;
  /** Clears the network module's own state on reset. */
  onReset?: () => void;
  /** How long a `sim:timeout` request is held before the socket is closed (default and maximum 30 s). */
  holdMs?: number;
  /** Default 0: a free port. */
  port?: number;
  /**
   * The network's OAuth endpoints and the tokens they issued (oauth.ts): its routes are
   * mounted next to `routes`, and a bearer token it issued is refused once expired or revoked.
   */
  oauth?: SimOAuthMount;
  /**
   * The network's published description of its API (spec-validation.ts): every request to a route
   * it describes is checked against it before the handler runs, and refused with
   * `errors.invalidRequest`.
   */
  spec?: RequestSpec;
  /**
   * The scopes of a token the simulator issued, null for any other token; default: the OAuth
   * half's `scopesOf`. Routes with `scopes` are checked against it.
   */
  scopesOf?(token: string): readonly string[] | null;
}

/** What a simulator's OAuth half adds to it (see oauth.ts). */
export interface SimOAuthMount {
  routes: SimRoute[];
  /** Why an access token the simulator issued is refused now; null when it is valid or not one it issued. */
  refusal(token: string): UnauthorizedReason | null;
  /** The scopes granted to an access token it issued; null when it did not issue it. */
  scopesOf?(token: string): readonly string[] | null;
  reset(): void;
}

export interface Simulator {
  name: string;
  url: string;
  port: number;
  stop(): Promise<void>;
  /** A copy of the inspection log, oldest first. */
  records(): SimRecord[];
  /** A copy of the sim-token refusals answered, oldest first. */
  refusals(): SimRefusal[];
  /** Forgets records, refusals, network state, `fail-once`/`flaky` memory and the rate limit. */
  reset(): void;
  /**
   * Every authenticated request answers the network's rate-limit refusal for `seconds` (0 or less:
   * off), as a short throttle (default) or a spent daily cap.
   */
  setRateLimited(seconds: number, kind?: RateLimitKind): void;
}
