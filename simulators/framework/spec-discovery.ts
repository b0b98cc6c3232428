import type { Ajv, ValidateFunction } from 'ajv';
import {
  asObject,
  isJson,
  issueOfAjv,
  type Json,
  newAjv,
  type RequestSpec,
  readJson,
  type SpecIssue,
} from './spec-common.ts';

/** Google API discovery documents (YouTube): see spec-validation.ts. */

interface DiscoveryParameter {
  type?: string;
  location?: string;
  required?: boolean;
  repeated?: boolean;
  enum?: string[];
  format?: string;
  pattern?: string;
  minimum?: string;
  maximum?: string;
}

interface DiscoveryMethod {
  id: string;
  httpMethod: string;
  path: string;
  parameters?: Record<string, DiscoveryParameter>;
  request?: { $ref: string };
  mediaUpload?: { protocols?: Record<string, { path: string }> };
}

/** A discovery schema as JSON Schema; `required` comes from `annotations.required` naming `methodId`. */
const fromDiscovery = (schema: Json, methodId: string): Json => {
  if (typeof schema.$ref === 'string') return { $ref: `#/definitions/${schema.$ref}` };
  const out: Json = {};
  const type = schema.type;
  if (type === 'any') return {};
  if (typeof type === 'string') out.type = type;
  if (Array.isArray(schema.enum)) out.enum = schema.enum;
  if (schema.format === 'date-time') out.format = 'date-time';
  if (asObject(schema.items)) out.items = fromDiscovery(schema.items as Json, methodId);
  if (asObject(schema.additionalProperties)) {
    out.additionalProperties = fromDiscovery(schema.additionalProperties as Json, methodId);
  }
  const properties = asObject(schema.properties);
  if (properties) {
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([name, value]) => [
        name,
        fromDiscovery(asObject(value) ?? {}, methodId),
      ]),
    );
    const required = Object.entries(properties)
      .filter(([, value]) => {
        const annotations = asObject(asObject(value)?.annotations);
        return Array.isArray(annotations?.required) && annotations.required.includes(methodId);
      })
      .map(([name]) => name);
    if (required.length > 0) out.required = required;
  }
  return out;
};

/** A Google discovery document (or an extract of one with the same layout). */
export const discoverySpec = (file: string): RequestSpec => {
  interface Entry {
    method: DiscoveryMethod;
    paths: string[];
    body?: ValidateFunction | null;
  }
  let state: {
    global: Record<string, DiscoveryParameter>;
    methods: Entry[];
    schemas: Json;
    ajv: Ajv;
  } | null = null;
  const load = () => {
    if (state) return state;
    const doc = readJson(file) as Json;
    const root = String(doc.servicePath ?? '');
    const methods: Entry[] = [];
    for (const resource of Object.values(asObject(doc.resources) ?? {})) {
      for (const method of Object.values(asObject(asObject(resource)?.methods) ?? {})) {
        const def = method as DiscoveryMethod;
        const paths = [`/${root}${def.path}`];
        for (const protocol of Object.values(def.mediaUpload?.protocols ?? {})) paths.push(protocol.path);
        methods.push({ method: def, paths });
      }
    }
    state = {
      global: (asObject(doc.parameters) ?? {}) as Record<string, DiscoveryParameter>,
      methods,
      schemas: asObject(doc.schemas) ?? {},
      ajv: newAjv(),
    };
    return state;
  };
  const find = (method: string, path: string) =>
    load().methods.find((entry) => entry.method.httpMethod === method && entry.paths.includes(path)) ?? null;

  /** The method's request body validator (null when it takes none), compiled on first use. */
  const compileBody = (entry: Entry): ValidateFunction | null => {
    if (entry.body !== undefined) return entry.body;
    const { schemas, ajv } = load();
    const ref = entry.method.request?.$ref;
    const definitions = Object.fromEntries(
      Object.entries(schemas).map(([name, schema]) => [
        name,
        fromDiscovery(asObject(schema) ?? {}, entry.method.id),
      ]),
    );
    entry.body = ref ? ajv.compile({ $ref: `#/definitions/${ref}`, definitions }) : null;
    return entry.body;
  };

  const checkParameter = (
    name: string,
    def: DiscoveryParameter,
    values: string[],
    id: string,
  ): SpecIssue | null => {
    const base = { location: 'query' as const, name, path: [name], operation: id };
    if (values.length > 1 && !def.repeated) {
      return { ...base, kind: 'invalid', value: values, message: `Parameter ${name} must not be repeated` };
    }
    for (const value of values) {
      if (def.enum && !def.enum.includes(value)) {
        return {
          ...base,
          kind: 'enum',
          value,
          allowed: def.enum,
          message: `Invalid string value: '${value}'. Allowed values: [${def.enum.join(', ')}]`,
        };
      }
      if (def.type === 'integer') {
        const number = Number(value);
        const outside =
          (def.minimum !== undefined && number < Number(def.minimum)) ||
          (def.maximum !== undefined && number > Number(def.maximum));
        if (!/^-?\d+$/.test(value)) {
          return {
            ...base,
            kind: 'type',
            value,
            message: `Invalid value '${value}'. Values must be integers.`,
          };
        }
        if (outside) {
          return {
            ...base,
            kind: 'invalid',
            value,
            message: `Invalid value '${value}'. Values must be within the range: [${def.minimum ?? ''}, ${def.maximum ?? ''}]`,
          };
        }
      }
      if (def.type === 'boolean' && value !== 'true' && value !== 'false') {
        return { ...base, kind: 'type', value, message: `Invalid boolean value: '${value}'.` };
      }
      if (def.pattern && !new RegExp(def.pattern).test(value)) {
        return {
          ...base,
          kind: 'invalid',
          value,
          message: `Invalid value '${value}'. Values must match the following regular expression: '${def.pattern}'`,
        };
      }
    }
    return null;
  };

  return {
    source: file,
    operationOf: (method, path) => find(method, path)?.method.id ?? null,
    prepare(method, path) {
      const entry = find(method, path);
      if (entry) compileBody(entry);
    },
    check(request) {
      const entry = find(request.method, request.path);
      if (!entry) return null;
      const { method } = entry;
      const { global } = load();
      const own = method.parameters ?? {};
      const id = method.id;
      for (const name of new Set(request.query.keys())) {
        if (!own[name] && !global[name]) {
          return {
            kind: 'unknown',
            location: 'query',
            name,
            path: [name],
            value: request.query.getAll(name).join(','),
            allowed: [...Object.keys(own), ...Object.keys(global)],
            message: `Unexpected parameter: ${name}`,
            operation: id,
          };
        }
      }
      for (const [name, def] of Object.entries({ ...global, ...own })) {
        if (def.location !== 'query') continue;
        const values = request.query.getAll(name);
        if (values.length === 0) {
          if (def.required) {
            return {
              kind: 'required',
              location: 'query',
              name,
              path: [name],
              message: `Required parameter: ${name}`,
              operation: id,
            };
          }
          continue;
        }
        const issue = checkParameter(name, def, values, id);
        if (issue) return issue;
      }
      if (!method.request || request.body === undefined || !isJson(request.contentType)) return null;
      const body = compileBody(entry);
      if (!body || body(request.body)) return null;
      const error = body.errors?.[0];
      return error ? issueOfAjv(error, 'body', [], request.body, id) : null;
    },
  };
};
