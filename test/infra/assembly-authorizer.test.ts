/**
 * The deploy rehearsal's reading of the template's JWT authorizer
 * (functions/adapters/local/assembly-authorizer.ts): on a synthesized assembly with user routes,
 * the authorizer guards exactly those routes and trusts exactly the user pool and its app client
 * (bound to a local pool's ids); every way the template could differ is reported.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type CloudAssemblyModel, readCloudAssembly } from '../../functions/adapters/local/assembly.ts';
import { checkJwtAuthorizers } from '../../functions/adapters/local/assembly-authorizer.ts';
import type { RouteDef } from '../../functions/http/routes.ts';
import type { RouteManifest } from '../../lib/constructs/http-api.ts';
import { buildTestApp, manifest } from './fixture.ts';

const userRoutes: RouteDef[] = [
  { method: 'GET', path: '/v1/account', entry: 'functions/http/account/get.ts', grants: ['table:read'] },
  {
    method: 'POST',
    path: '/v1/account/workspaces',
    entry: 'functions/http/account/workspaces/create.ts',
    grants: ['table:write'],
  },
];
const withUsers: RouteManifest = { ...manifest, userRoutes };
const userRouteKeys = userRoutes.map((route) => `${route.method} ${route.path}`);
const pool = { userPoolId: 'local_4Bc9', clientId: 'client9x' };

let model: CloudAssemblyModel;
beforeAll(() => {
  const { app } = buildTestApp({
    manifest: withUsers,
    context: { 'aws:cdk:enable-asset-metadata': true, 'aws:cdk:enable-path-metadata': true },
  });
  model = readCloudAssembly(app.synth().directory);
}, 120_000);

/** The model with its routes changed by `edit` (a template that differs). */
const edited = (edit: (routes: CloudAssemblyModel['routes']) => CloudAssemblyModel['routes']) => ({
  ...model,
  routes: edit(model.routes.map((route) => ({ ...route }))),
});

describe('the template’s JWT authorizer, as the rehearsal reads it', () => {
  it('guards exactly the user routes, with the pool as issuer and the app client as audience', () => {
    const guarded = model.routes.filter((route) => route.jwtAuthorizer).map((route) => route.routeKey);
    expect(guarded.sort()).toEqual([...userRouteKeys].sort());
    expect(checkJwtAuthorizers(model, userRouteKeys, pool)).toEqual([]);
  });

  it('reports a user route without the authorizer, and a key route with it', () => {
    const stripped = edited((routes) =>
      routes.map((route) =>
        route.routeKey === 'GET /v1/account' ? { ...route, jwtAuthorizer: undefined } : route,
      ),
    );
    expect(checkJwtAuthorizers(stripped, userRouteKeys, pool)).toEqual([
      "the template's route GET /v1/account has no JWT authorizer: anyone could call it",
    ]);
    const authorizer = model.routes.find((route) => route.jwtAuthorizer)?.jwtAuthorizer;
    const onKeyRoute = edited((routes) =>
      routes.map((route) =>
        route.routeKey === 'GET /v1/posts' ? { ...route, jwtAuthorizer: authorizer } : route,
      ),
    );
    expect(checkJwtAuthorizers(onKeyRoute, userRouteKeys, pool)).toEqual([
      "the template's route GET /v1/posts has a JWT authorizer but is no user route",
    ]);
  });

  it('reports an authorizer that trusts another issuer, another audience or another header', () => {
    const tampered = edited((routes) =>
      routes.map((route) =>
        route.jwtAuthorizer
          ? {
              ...route,
              jwtAuthorizer: {
                ...route.jwtAuthorizer,
                issuer: 'https://issuer.example',
                audience: [...route.jwtAuthorizer.audience, 'another-client'],
                identitySource: ['$request.header.X-Token'],
              },
            }
          : route,
      ),
    );
    const problems = checkJwtAuthorizers(tampered, userRouteKeys, pool);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(
      /trusts the issuer https:\/\/issuer\.example, not the user pool's https:\/\/cognito-idp\.us-east-1\.amazonaws\.com\/local_4Bc9$/,
    );
    expect(problems[1]).toMatch(/accepts the audience \[client9x, another-client\]/);
    expect(problems[2]).toMatch(/reads the token from \[\$request\.header\.X-Token\]/);
  });

  it('is satisfied by an assembly with no user routes and no authorizer', () => {
    const none = edited((routes) => routes.map((route) => ({ ...route, jwtAuthorizer: undefined })));
    expect(checkJwtAuthorizers(none, [], pool)).toEqual([]);
    expect(checkJwtAuthorizers(none, ['GET /v1/account'], pool)).toHaveLength(1);
  });
});
