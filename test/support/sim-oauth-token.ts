import { SIM_DEFAULT_REDIRECT_URI, simOAuthApp } from '../../simulators/framework/oauth.ts';

/**
 * An access token a network simulator's OAuth half issues: consent at `authorizePath` (asking
 * `scope`, granting only `simScopes` when given), then the code redeemed at `tokenPath` with the
 * simulator's default app (HTTP Basic, form). For tests of the scopes a data route requires.
 */
export const simOAuthToken = async (options: {
  simUrl: string;
  network: string;
  authorizePath: string;
  tokenPath: string;
  scope: string;
  simScopes?: string;
  user?: string;
  extra?: Record<string, string>;
}): Promise<{ accessToken: string; scope: string }> => {
  const app = simOAuthApp(options.network);
  const authorize = new URL(`${options.simUrl}${options.authorizePath}`);
  for (const [k, v] of Object.entries({
    client_id: app.clientId,
    redirect_uri: SIM_DEFAULT_REDIRECT_URI,
    response_type: 'code',
    state: 'sim-state',
    scope: options.scope,
    sim_user: options.user ?? 'scope-tester',
    ...(options.simScopes !== undefined ? { sim_scopes: options.simScopes } : {}),
    ...(options.extra ?? {}),
  }))
    authorize.searchParams.set(k, v);
  const back = await fetch(authorize, { redirect: 'manual' });
  const location = back.headers.get('location');
  if (!location) throw new Error(`The simulator's consent answered ${back.status} without a redirect`);
  const code = new URL(location).searchParams.get('code');
  if (!code) throw new Error(`The simulator's consent redirected without a code: ${location}`);
  const res = await fetch(`${options.simUrl}${options.tokenPath}`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: SIM_DEFAULT_REDIRECT_URI,
    }),
  });
  const body = (await res.json()) as { access_token?: string; scope?: string };
  if (!body.access_token) throw new Error(`The simulator issued no token: ${JSON.stringify(body)}`);
  return { accessToken: body.access_token, scope: body.scope ?? '' };
};
