/**
 * The contract check: every response the e2e suites receive through `rt.api` (test/support/runtime.ts)
 * is checked against the OpenAPI document. The status must be declared for the operation, the
 * body must match that status's schema (ajv, JSON Schema 2020-12 with formats) and every header
 * the document marks required must be there. A mismatch throws, so the test that made the call fails.
 * Paths no operation matches must get the fallback's answer: 404 or 405 in the error envelope.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildDocument } from '../../functions/openapi/document.ts';

type Json = Record<string, any>;

interface Operation {
  method: string;
  template: string;
  regex: RegExp;
  /** Literal segments count: `/v1/media/uploads` wins over `/v1/media/{id}`. */
  literals: number;
  spec: Json;
}

let compiled: { doc: Json; ajv: Ajv2020; operations: Operation[] } | undefined;

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

const setup = () => {
  if (compiled) return compiled;
  const doc = buildDocument();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
  ajv.addSchema(doc, 'openapi');
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries(doc.paths as Record<string, Json>)) {
    const segments = template.split('/');
    const regex = new RegExp(
      `^${segments.map((s) => (s.startsWith('{') ? '([^/]+)' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`,
    );
    for (const [method, spec] of Object.entries(methods)) {
      operations.push({
        method: method.toUpperCase(),
        template,
        regex,
        literals: segments.filter((s) => !s.startsWith('{')).length,
        spec: spec as Json,
      });
    }
  }
  operations.sort((a, b) => b.literals - a.literals);
  compiled = { doc, ajv, operations };
  return compiled;
};

const validateAt = (pointer: string, value: unknown): string[] => {
  const { ajv } = setup();
  const validate = ajv.getSchema(`openapi#${pointer}`);
  if (!validate) throw new Error(`contract: no schema at ${pointer}`);
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '(body)'} ${e.message} ${JSON.stringify(e.params)}`,
  );
};

const mediaTypeMatches = (range: string, actual: string) => {
  const [type, sub] = range.split('/');
  const [aType, aSub] = actual.split(';')[0]?.trim().toLowerCase().split('/') ?? [];
  return type === aType && (sub === '*' || sub === aSub);
};

export interface ContractResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** Problems of one response against the document; empty when it matches. */
export const contractProblems = (method: string, url: string, res: ContractResponse): string[] => {
  const { operations } = setup();
  const path = new URL(url).pathname;
  const byPath = operations.filter((op) => op.regex.test(path));
  const op = byPath.find((candidate) => candidate.method === method.toUpperCase());
  const where = `${method.toUpperCase()} ${path} -> ${res.status}`;
  if (!op) {
    // The fallback ($default): unknown path 404, known path with another method 405, in the envelope;
    // like every keyed function it first refuses a read-only key's write (403) and a caller over the limit (429).
    const problems: string[] = [];
    if (res.status === 413) return []; // the runtime refuses an over-large request before routing
    if (![403, 404, 405, 429].includes(res.status))
      problems.push(`${where}: no operation matches; the fallback answers only 403, 404, 405 or 429`);
    problems.push(...validateAt('/components/schemas/Error', res.body).map((p) => `${where}: ${p}`));
    if (!res.headers.get('x-request-id')) problems.push(`${where}: no X-Request-Id header`);
    return problems;
  }
  const pointerBase = `/paths/${escapePointer(op.template)}/${op.method.toLowerCase()}/responses/${res.status}`;
  const declared = (op.spec.responses as Json)[String(res.status)] as Json | undefined;
  if (!declared) {
    return [
      `${where}: status not declared for ${op.method} ${op.template} (declared: ${Object.keys(op.spec.responses).join(', ')}); body ${res.text.slice(0, 300)}`,
    ];
  }
  const problems: string[] = [];
  for (const [name, header] of Object.entries((declared.headers ?? {}) as Record<string, Json>)) {
    const value = res.headers.get(name);
    if (value === null) {
      if (header.required) problems.push(`${where}: required header ${name} missing`);
      continue;
    }
    const schema = header.schema as Json | undefined;
    if (schema?.type === 'integer' && !/^-?\d+$/.test(value))
      problems.push(`${where}: header ${name}=${value} is not an integer`);
    if (typeof schema?.pattern === 'string' && !new RegExp(schema.pattern).test(value))
      problems.push(`${where}: header ${name}=${value} does not match ${schema.pattern}`);
  }
  const content = declared.content as Record<string, Json> | undefined;
  if (!content) {
    if (res.text !== '') problems.push(`${where}: a body where the document declares none`);
    return problems;
  }
  const contentType = res.headers.get('content-type') ?? '';
  const mediaType = Object.keys(content).find((range) => mediaTypeMatches(range, contentType));
  if (!mediaType) {
    problems.push(`${where}: content type ${contentType} not among ${Object.keys(content).join(', ')}`);
    return problems;
  }
  if (mediaType === 'application/json') {
    problems.push(
      ...validateAt(`${pointerBase}/content/${escapePointer(mediaType)}/schema`, res.body).map(
        (p) => `${where}: ${p}`,
      ),
    );
  }
  return problems;
};

/** Throws when the response contradicts the document (the calling test then fails). */
export const checkContract = (method: string, url: string, res: ContractResponse): void => {
  const problems = contractProblems(method, url, res);
  if (problems.length > 0) {
    throw new Error(`Response does not match openapi.json:\n  ${problems.slice(0, 20).join('\n  ')}`);
  }
};

const checkedOrigins = new Set<string>();
let fetchWrapped = false;

const methodOf = (input: Parameters<typeof fetch>[0], init?: RequestInit) =>
  init?.method ?? (input instanceof Request ? input.method : 'GET');
const urlOf = (input: Parameters<typeof fetch>[0]) =>
  typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;

/**
 * From now on, every answer this test process's `fetch` gets from `origin` (a Herald runtime) is
 * checked against the document: `rt.api` and the suites' own `fetch` calls (multipart uploads,
 * request logs) alike. Other origins (simulators, S3, receivers) are left alone.
 */
export const checkResponsesFrom = (origin: string): void => {
  checkedOrigins.add(new URL(origin).origin);
  if (fetchWrapped) return;
  fetchWrapped = true;
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const response = await original(input, init);
    const url = urlOf(input);
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      return response;
    }
    if (!checkedOrigins.has(origin)) return response;
    const text = await response.clone().text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: the schema check says so where JSON is declared
    }
    checkContract(methodOf(input, init), url, {
      status: response.status,
      headers: response.headers,
      body,
      text,
    });
    return response;
  };
};
