/**
 * The HTTP API's CORS configuration comes from the `corsOrigins` context (none by default), with
 * the methods and headers the local server uses too (functions/shared/cors.ts).
 */
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import {
  CORS_ALLOW_HEADERS,
  CORS_EXPOSE_HEADERS,
  CORS_MAX_AGE_SECONDS,
} from '../../functions/shared/cors.ts';
import { buildTestApp } from './fixture.ts';

const apiOf = (context?: Record<string, unknown>) => {
  const { stateless } = buildTestApp(context ? { context } : {});
  const apis = Object.values(Template.fromStack(stateless).findResources('AWS::ApiGatewayV2::Api'));
  expect(apis).toHaveLength(1);
  return apis[0]?.Properties as Record<string, unknown>;
};

describe('CORS on the HTTP API', () => {
  it('allows no origin unless the corsOrigins context lists some', () => {
    expect(apiOf().CorsConfiguration).toBeUndefined();
    expect(apiOf({ corsOrigins: '' }).CorsConfiguration).toBeUndefined();
  }, 120_000);

  it('allows exactly the listed origins, from -c (comma-separated) or cdk.json (a list)', () => {
    const expected = {
      AllowOrigins: ['https://app.example.com', 'http://localhost:5173'],
      AllowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      AllowHeaders: [...CORS_ALLOW_HEADERS],
      ExposeHeaders: [...CORS_EXPOSE_HEADERS],
      MaxAge: CORS_MAX_AGE_SECONDS,
    };
    expect(
      apiOf({ corsOrigins: 'https://app.example.com, http://localhost:5173/' }).CorsConfiguration,
    ).toEqual(expected);
    expect(
      apiOf({ corsOrigins: ['https://app.example.com', 'http://localhost:5173'] }).CorsConfiguration,
    ).toEqual(expected);
  }, 120_000);

  it('refuses what is not an origin (a path, a wildcard, another scheme)', () => {
    for (const nonsense of [
      'https://app.example.com/app',
      '*',
      'ftp://files.example.com',
      'app.example.com',
    ]) {
      expect(() => buildTestApp({ context: { corsOrigins: nonsense } }), nonsense).toThrow(
        /Context corsOrigins must list origins/,
      );
    }
  });
});
