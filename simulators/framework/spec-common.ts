import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';

/** What the spec checks share (spec-validation.ts says what they are for). */
export interface SpecIssue {
  /**
   * `unknown`: a parameter or field the operation does not have; `required`: a required one is
   * missing; `enum`: a value outside the listed ones; `type`: a value of the wrong type; `invalid`:
   * anything else (format, pattern, range, length).
   */
  kind: 'unknown' | 'required' | 'enum' | 'type' | 'invalid';
  location: 'path' | 'query' | 'body';
  /** The parameter's name, or the body field's path as segments (empty for the body itself). */
  name: string;
  path: string[];
  /** The value sent; for `required` and unknown body fields, the object that lacks or holds the field. */
  value?: unknown;
  /** For `enum`: the values the spec allows. For `unknown` query parameters: the names it allows. */
  allowed?: readonly unknown[];
  /** A plain English description. */
  message: string;
  /** The spec's name for the operation (`operationId`, discovery method id, lexicon NSID). */
  operation: string;
}

export interface SpecRequest {
  method: string;
  /** The URL's path, as received. */
  path: string;
  query: URLSearchParams;
  /** The parsed JSON body; undefined when there was none or it was not JSON. */
  body: unknown;
  contentType: string | undefined;
}

/** A network's published description of its API. */
export interface RequestSpec {
  /** Where the description comes from (`vendor/specs/<network>/...`). */
  readonly source: string;
  /** The operation the spec names for a request, or null when it describes none. */
  operationOf(method: string, path: string): string | null;
  /** The first problem with a request, or null (also for requests the spec describes no operation for). */
  check(request: SpecRequest): SpecIssue | null;
  /** Compiles what checking requests to `method path` needs now, so the first request is as fast as the rest. */
  prepare(method: string, path: string): void;
}

const VENDOR = new URL('../../vendor/specs/', import.meta.url);
export const readJson = (relative: string): unknown =>
  JSON.parse(readFileSync(new URL(relative, VENDOR), 'utf8'));

export const isJson = (contentType: string | undefined) =>
  contentType === undefined || /^application\/([\w.+-]+\+)?json\b/i.test(contentType);

export const newAjv = (extra: { coerceTypes?: boolean } = {}) => {
  const ajv = new Ajv({
    ...extra,
    strict: false,
    allErrors: false,
    logger: false,
    validateFormats: true,
    verbose: true,
  });
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  return ajv;
};

export type Json = Record<string, unknown>;
export const asObject = (value: unknown): Json | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;

/** A query value as the JSON type its schema asks for (left as sent when it does not parse). */
export const coerce = (value: string, type: unknown): unknown => {
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value)) {
    return Number(value);
  }
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
};

/** Turns Ajv's first error into an issue. */
export const issueOfAjv = (
  error: ErrorObject,
  location: SpecIssue['location'],
  prefix: string[],
  root: unknown,
  operation: string,
): SpecIssue => {
  const path = [
    ...prefix,
    ...error.instancePath
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~')),
  ];
  const valueAt = (segments: string[]) => {
    let node: unknown = root;
    for (const segment of segments.slice(prefix.length)) node = (node as Json | undefined)?.[segment];
    return node;
  };
  const params = error.params as Record<string, unknown>;
  const base = { location, operation };
  if (error.keyword === 'required') {
    const missing = [...path, String(params.missingProperty)];
    return {
      ...base,
      kind: 'required',
      name: missing.join('.'),
      path: missing,
      value: valueAt(path),
      message: `${missing.join('.')} is required`,
    };
  }
  if (error.keyword === 'additionalProperties') {
    const extra = [...path, String(params.additionalProperty)];
    return {
      ...base,
      kind: 'unknown',
      name: extra.join('.'),
      path: extra,
      value: valueAt(path),
      message: `${extra.join('.')} is not a known field`,
    };
  }
  const value = valueAt(path);
  const name = path.join('.');
  if (error.keyword === 'enum') {
    const allowed = (params.allowedValues as unknown[]) ?? [];
    return {
      ...base,
      kind: 'enum',
      name,
      path,
      value,
      allowed,
      message: `${name || 'the body'} must be one of ${allowed.join(', ')}`,
    };
  }
  return {
    ...base,
    kind: error.keyword === 'type' ? 'type' : 'invalid',
    name,
    path,
    value,
    message: `${name || 'the body'} ${error.message ?? 'is invalid'}`,
  };
};
