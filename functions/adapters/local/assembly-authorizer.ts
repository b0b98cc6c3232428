/**
 * The template's JWT authorizers, held against the local user pool that stands for the stack's in
 * the deploy rehearsal: the routes they guard must be exactly the user routes, and their issuer
 * and audience, resolved with the template's user pool and app client bound to the local pool's
 * and client's ids, must be that pool's issuer (as Cognito writes it on AWS) and that client. The
 * local server then checks every token on those routes as this authorizer would
 * (jwt-authorizer.ts), against the same pool.
 */
import { type CloudAssemblyModel, functionKey, PSEUDO_PARAMETERS, resolveValue } from './assembly.ts';
import { localPhysicalValues } from './assembly-names.ts';

/** The local user pool and app client standing for the template's. */
export interface StandInUserPool {
  userPoolId: string;
  clientId: string;
}

/** Where API Gateway's JWT authorizer reads the token. */
const AUTHORIZATION_HEADER = '$request.header.Authorization';

/** A user pool's issuer on AWS: `https://cognito-idp.<region>.amazonaws.com/<poolId>`. */
export const cognitoIssuer = (region: string, userPoolId: string): string =>
  `https://cognito-idp.${region}.amazonaws.com/${userPoolId}`;

/** What differs between the template's JWT authorizers and the user routes on the local pool (none: empty). */
export const checkJwtAuthorizers = (
  model: CloudAssemblyModel,
  userRouteKeys: readonly string[],
  pool: StandInUserPool,
): string[] => {
  const problems: string[] = [];
  const expected = new Set(userRouteKeys);
  const guarded = model.routes.filter((route) => route.jwtAuthorizer);
  for (const key of expected) {
    if (!guarded.some((route) => route.routeKey === key))
      problems.push(`the template's route ${key} has no JWT authorizer: anyone could call it`);
  }
  for (const route of guarded) {
    if (!expected.has(route.routeKey))
      problems.push(`the template's route ${route.routeKey} has a JWT authorizer but is no user route`);
  }
  if (guarded.length === 0) return problems;

  const resourcesOf = (type: string) =>
    [...model.stacks.values()].flatMap((stack) =>
      Object.entries(stack.resources)
        .filter(([, resource]) => resource.Type === type)
        .map(([logicalId]) => functionKey(stack.name, logicalId)),
    );
  const pools = resourcesOf('AWS::Cognito::UserPool');
  const clients = resourcesOf('AWS::Cognito::UserPoolClient');
  if (pools.length !== 1 || clients.length !== 1) {
    problems.push(
      `the assembly has ${pools.length} user pool(s) and ${clients.length} app client(s), not one of each`,
    );
    return problems;
  }
  const names = new Map([
    [pools[0] as string, pool.userPoolId],
    [clients[0] as string, pool.clientId],
  ]);
  const physical = localPhysicalValues(names, { apiUrl: '', frontDoorUrl: () => '' });
  const issuer = cognitoIssuer(PSEUDO_PARAMETERS['AWS::Region'], pool.userPoolId);
  const seen = new Set<string>();
  for (const { jwtAuthorizer: authorizer, routeKey } of guarded) {
    if (!authorizer || seen.has(functionKey(authorizer.stack, authorizer.logicalId))) continue;
    seen.add(functionKey(authorizer.stack, authorizer.logicalId));
    const resolve = (value: unknown) => resolveValue(model, authorizer.stack, value, physical);
    const where = `the JWT authorizer ${authorizer.logicalId} (on ${routeKey})`;
    const actualIssuer = resolve(authorizer.issuer);
    if (actualIssuer !== issuer)
      problems.push(`${where} trusts the issuer ${actualIssuer}, not the user pool's ${issuer}`);
    const audience = authorizer.audience.map(resolve);
    if (audience.length !== 1 || audience[0] !== pool.clientId)
      problems.push(
        `${where} accepts the audience [${audience.join(', ')}], not the dashboard's app client alone`,
      );
    const sources = authorizer.identitySource.map(resolve);
    if (sources.length !== 1 || sources[0] !== AUTHORIZATION_HEADER)
      problems.push(`${where} reads the token from [${sources.join(', ')}], not ${AUTHORIZATION_HEADER}`);
  }
  return problems;
};
