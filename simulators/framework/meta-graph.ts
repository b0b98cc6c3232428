/**
 * Meta's Graph API shapes shared by the Facebook, Instagram and Threads simulators (all three
 * answer as Graph does): the error body, the grant endpoints' fault switch, the redirect URI
 * refusal.
 */
import { objectOf } from './http.ts';
import type { SimOAuthMount, SimResponse, SimRoute, UnauthorizedReason } from './types.ts';

export const GRAPH_ERRORS = {
  error: (status: number, message: string, code: number, subcode?: number): SimResponse => ({
    status,
    body: {
      error: {
        message,
        type: 'OAuthException',
        code,
        ...(subcode === undefined ? {} : { error_subcode: subcode }),
        fbtrace_id: 'AsimFbTrace0',
      },
    },
  }),
  unauthorized: (reason: UnauthorizedReason): SimResponse =>
    reason === 'expired'
      ? GRAPH_ERRORS.error(400, 'Error validating access token: Session has expired.', 190, 463)
      : reason === 'missing'
        ? GRAPH_ERRORS.error(
            400,
            'An active access token must be used to query information about the current user.',
            2500,
          )
        : GRAPH_ERRORS.error(
            400,
            'Error validating access token: The user has not authorized application.',
            190,
            458,
          ),
};

/** What a Meta OAuth simulator's grant endpoints may be switched to answer instead of a token. */
export type GraphGrantFault = 'rate-limited' | 'transient';

/** Graph's throttling codes a grant call may meet: app (4), user (17), page (32), API-specific (613), business use case (80000s). */
const THROTTLE_MESSAGES: Record<number, string> = {
  4: '(#4) Application request limit reached',
  17: '(#17) User request limit reached',
  32: '(#32) Page request limit reached',
  613: '(#613) Calls to this api have exceeded the rate limit.',
  80002: '(#80002) There have been too many calls to this Instagram account. Wait a bit and try again.',
};

/**
 * The fault switch of the Meta OAuth simulators' grant endpoints (code and token exchange,
 * refresh, Facebook's page-token check): `POST /_sim/oauth/grant-fault` `{ answer:
 * 'rate-limited' | 'transient' | null, code?, times? }` → 204. Graph answers both with HTTP 400,
 * like a dead grant: throttling with its code (4 by default; 17, 32, 613, 80002) and the usage
 * headers' `estimated_time_to_regain_access`; a transient failure with code 2 and `is_transient`,
 * or code 1 ("An unknown error occurred", no flag). From Graph's error-handling guide
 * (developers.facebook.com/docs/graph-api/guides/error-handling): codes 1 and 2 are temporary, 4,
 * 17, 32, 613 and 80000s are throttling. `times` answers that many grant calls (default: until
 * switched off).
 */
export const graphGrantFaults = () => {
  let fault: { answer: GraphGrantFault; code: number | null; left: number | null } | null = null;
  const answer = (kind: GraphGrantFault, code: number | null): SimResponse => {
    if (kind === 'rate-limited') {
      const throttle = code !== null && THROTTLE_MESSAGES[code] ? code : 4;
      const response = GRAPH_ERRORS.error(400, THROTTLE_MESSAGES[throttle] as string, throttle);
      (response.body as { error: Record<string, unknown> }).error.is_transient = true;
      return {
        ...response,
        headers: {
          'x-app-usage': JSON.stringify({ call_count: 100, total_cputime: 12, total_time: 40 }),
          'x-business-use-case-usage': JSON.stringify({
            sim: [
              {
                type: 'pages',
                call_count: 100,
                total_cputime: 9,
                total_time: 30,
                estimated_time_to_regain_access: 5,
              },
            ],
          }),
        },
      };
    }
    if (code === 1) return GRAPH_ERRORS.error(400, 'An unknown error occurred', 1);
    const response = GRAPH_ERRORS.error(
      400,
      'An unexpected error has occurred. Please retry your request later.',
      2,
    );
    (response.body as { error: Record<string, unknown> }).error.is_transient = true;
    return response;
  };
  const route: SimRoute = {
    method: 'POST',
    path: '/_sim/oauth/grant-fault',
    auth: false,
    handler: (ctx) => {
      const body = objectOf(ctx.body) ?? {};
      const kind = body.answer;
      if (kind === null || kind === undefined) {
        fault = null;
        return { status: 204 };
      }
      const code = body.code === undefined ? null : body.code;
      const times = body.times === undefined ? null : body.times;
      if (
        (kind !== 'rate-limited' && kind !== 'transient') ||
        (code !== null && typeof code !== 'number') ||
        (times !== null && (typeof times !== 'number' || !(times > 0)))
      ) {
        return {
          status: 400,
          body: {
            message: "Send { answer: 'rate-limited' | 'transient' | null, code?: number, times?: number }",
          },
        };
      }
      fault = { answer: kind, code: code as number | null, left: times as number | null };
      return { status: 204 };
    },
  };
  return {
    route,
    /** The fault's answer for this grant call, or null to answer normally. */
    take: (): SimResponse | null => {
      if (!fault) return null;
      const response = answer(fault.answer, fault.code);
      if (fault.left !== null && --fault.left <= 0) fault = null;
      return response;
    },
    reset: () => {
      fault = null;
    },
  };
};

/** A mount with the grant-fault switch: its route, and a reset that also switches the fault off. */
export const withGrantFaults = <M extends SimOAuthMount>(
  mount: M,
  faults: ReturnType<typeof graphGrantFaults>,
): M => ({
  ...mount,
  routes: [faults.route, ...mount.routes],
  reset: () => {
    faults.reset();
    mount.reset();
  },
});

/** Graph's refusal of a code exchanged with another redirect_uri than the dialog's (Facebook, Threads). */
export const REDIRECT_URI_MISMATCH =
  'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request';
