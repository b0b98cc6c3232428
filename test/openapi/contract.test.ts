import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { checkResponsesFrom, contractProblems } from '../support/contract.ts';

const URL_BASE = 'http://localhost:1';
const headers = (extra: Record<string, string> = {}) =>
  new Headers({
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': 'req_0b7c2c1e-5d1a-4c1f-9d8e-2a0b1c2d3e4f',
    'x-ratelimit-limit': '60',
    'x-ratelimit-remaining': '59',
    'x-ratelimit-reset': '30',
    ...extra,
  });
const tag = { id: 'tag_1', name: 'News', color: null, createdAt: '2026-01-01T00:00:00.000Z' };
const response = (status: number, body: unknown, h = headers()) => ({
  status,
  headers: h,
  body,
  text: JSON.stringify(body),
});

describe('the contract check of e2e responses', () => {
  it('accepts an answer the document declares', () => {
    expect(contractProblems('POST', `${URL_BASE}/v1/tags`, response(201, tag))).toEqual([]);
    expect(contractProblems('GET', `${URL_BASE}/v1/tags`, response(200, { data: [tag] }))).toEqual([]);
  });

  it('refuses an undeclared status, a body off the schema, an undeclared field and a missing header', () => {
    expect(contractProblems('POST', `${URL_BASE}/v1/tags`, response(200, tag))[0]).toMatch(
      /status not declared/,
    );
    expect(contractProblems('POST', `${URL_BASE}/v1/tags`, response(201, { ...tag, color: 3 }))).not.toEqual(
      [],
    );
    expect(contractProblems('POST', `${URL_BASE}/v1/tags`, response(201, { ...tag, extra: 1 }))).not.toEqual(
      [],
    );
    expect(
      contractProblems('POST', `${URL_BASE}/v1/tags`, response(201, { ...tag, createdAt: 'yesterday' })),
    ).not.toEqual([]);
    const noRate = headers();
    noRate.delete('x-ratelimit-remaining');
    expect(contractProblems('POST', `${URL_BASE}/v1/tags`, response(201, tag, noRate))[0]).toMatch(
      /X-RateLimit-Remaining missing/,
    );
  });

  it('limits error codes to those the route declares for that status', () => {
    const error = (code: string) => ({ error: { code, message: 'm', requestId: 'req_x' } });
    expect(contractProblems('POST', `${URL_BASE}/v1/tags`, response(409, error('already_exists')))).toEqual(
      [],
    );
    expect(contractProblems('POST', `${URL_BASE}/v1/tags`, response(409, error('conflict')))).not.toEqual([]);
  });

  it('holds unmatched paths to the fallback: 404 or 405 in the envelope', () => {
    const notFound = { error: { code: 'not_found', message: 'm', requestId: 'req_x' } };
    expect(contractProblems('GET', `${URL_BASE}/v1/nothing`, response(404, notFound))).toEqual([]);
    expect(contractProblems('GET', `${URL_BASE}/v1/nothing`, response(200, {}))).not.toEqual([]);
  });

  it("fails a suite's own fetch to a checked runtime when the answer contradicts the document", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'x-request-id': 'req_0b7c2c1e-5d1a-4c1f-9d8e-2a0b1c2d3e4f',
      });
      res.end(JSON.stringify({ data: 'not a list' }));
    });
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      checkResponsesFrom(origin);
      await expect(fetch(`${origin}/v1/tags`, { headers: { 'x-api-key': 'k' } })).rejects.toThrow(
        /does not match openapi.json/,
      );
    } finally {
      server.close();
    }
  });
});
