import { objectOf } from './http.ts';
import type { SimGrant } from './token-store.ts';
import type { SimRoute } from './types.ts';

/**
 * The permissions a user took back after consenting (the Instagram and Threads simulators mount it):
 * Meta takes back a permission an app has not used for 90 days ("the app user must regrant your
 * app that permission", https://developers.facebook.com/docs/permissions/), and a user may remove
 * one in the app's settings. `POST /_sim/oauth/permissions` `{ user, drop: string[] }` → 204 takes
 * them from the grants of the account `user` consented as (`sim_user`); a new consent of the
 * account grants what it asks again, and a simulator reset forgets every drop. `scopesOf(grant)`
 * is what a grant holds now.
 */
export const droppedPermissions = (accountIdOf: (user: string) => string) => {
  const dropped = new Map<string, Set<string>>();
  const route: SimRoute = {
    method: 'POST',
    path: '/_sim/oauth/permissions',
    auth: false,
    handler: (ctx) => {
      const { drop, user } = objectOf(ctx.body) ?? {};
      if (!Array.isArray(drop) || !drop.every((p) => typeof p === 'string') || typeof user !== 'string') {
        return { status: 400, body: { message: 'Send { user: string, drop: string[] }' } };
      }
      const id = accountIdOf(user);
      dropped.set(id, new Set([...(dropped.get(id) ?? []), ...(drop as string[])]));
      return { status: 204 };
    },
  };
  return {
    route,
    /** The account consented again: it holds what it granted this time. */
    regranted: (accountId: string) => dropped.delete(accountId),
    scopesOf: (grant: SimGrant): string[] =>
      grant.scopes.filter((scope) => !dropped.get(grant.account.id)?.has(scope)),
    reset: () => dropped.clear(),
  };
};
