import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Checks each request a simulator serves against the network's own machine-readable description of
 * its API, vendored under `vendor/specs/<network>/` (SOURCE.md there names the repository, commit
 * and date): OpenAPI for Pinterest, X and Vimeo, Google's discovery document for YouTube, the AT
 * Protocol's Lexicons for Bluesky. Path and query parameter names, required parameters and fields,
 * types, enums, formats and the JSON body's schema are checked; the first problem found is handed
 * to the network's own validation-error body (`SimErrorBodies.invalidRequest`).
 *
 * Each document is read and each operation compiled once per process, on first use: simulators run
 * only in the local runtime and in tests, never in Lambda (nothing bundled imports this module).
 */

/** One thing wrong with a request, as the spec sees it. */
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

const VENDOR = new URL('../../../vendor/specs/', import.meta.url);
const readJson = (relative: string): unknown => JSON.parse(readFileSync(new URL(relative, VENDOR), 'utf8'));

const isJson = (contentType: string | undefined) =>
  contentType === undefined || /^application\/([\w.+-]+\+)?json\b/i.test(contentType);

const newAjv = (extra: { coerceTypes?: boolean } = {}) => {
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

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;

/** A query value as the JSON type its schema asks for (left as sent when it does not parse). */
const coerce = (value: string, type: unknown): unknown => {
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value)) {
    return Number(value);
  }
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
};

/** Turns Ajv's first error into an issue. */
const issueOfAjv = (
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

// ---------------------------------------------------------------------------------------------
// OpenAPI 3 (Pinterest, X, Vimeo)

interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Json;
  explode?: boolean;
  style?: string;
}

interface OpenApiOperation {
  id: string;
  method: string;
  pattern: RegExp;
  names: string[];
  literalSegments: number;
  parameters: OpenApiParameter[];
  body: { required: boolean; schema: Json | null } | null;
  compiled?: { base: string; params: Map<string, ValidateFunction>; body: ValidateFunction | null };
}

const templatePattern = (prefix: string, template: string) => {
  const names: string[] = [];
  const source = `${prefix}${template}`
    .split('/')
    .map((segment) =>
      segment.replace(
        /\{([^}]+)\}|([^{]+)/g,
        (_whole, name: string | undefined, literal: string | undefined) => {
          if (name !== undefined) {
            names.push(name);
            return '([^/]+)';
          }
          return (literal ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        },
      ),
    )
    .join('/');
  return { pattern: new RegExp(`^${source}/?$`), names };
};

/**
 * A copy of a schema as Ajv should read it: local `$ref`s (`#/components/...`) pointing into the
 * document registered as `base` (when given), and a `oneOf` of plain enums read as `anyOf`.
 * Descriptions use `oneOf` for lists of values that overlap (Pinterest's `metric_types` items: the
 * standard and the video metrics both hold IMPRESSION), which the network takes as either list.
 */
const adapted = (node: unknown, base: string | null): unknown => {
  if (Array.isArray(node)) return node.map((item) => adapted(item, base));
  const object = asObject(node);
  if (!object) return node;
  const enumsOnly =
    Array.isArray(object.oneOf) &&
    !object.discriminator &&
    object.oneOf.every((branch) => asObject(branch)?.enum);
  return Object.fromEntries(
    Object.entries(object).map(([key, value]) => [
      key === 'oneOf' && enumsOnly ? 'anyOf' : key,
      key === '$ref' && base && typeof value === 'string' && value.startsWith('#/')
        ? `${base}${value}`
        : adapted(value, base),
    ]),
  );
};

export interface OpenApiOptions {
  /** The server's base path (`/v5` for Pinterest). */
  prefix?: string;
  /** Query parameters the network takes on every operation though the document lists them on none. */
  everywhere?: string[];
  /**
   * Read body values as the network's server does when it is lenient about JSON types (a number
   * where the document says string, `"true"` for true): checked on a coerced copy.
   */
  lenientTypes?: boolean;
}

/** An OpenAPI 3 document. */
export const openApiSpec = (file: string, options: OpenApiOptions = {}): RequestSpec => {
  const prefix = options.prefix ?? '';
  let state: { doc: Json; ajv: Ajv; operations: OpenApiOperation[] } | null = null;
  const load = () => {
    if (state) return state;
    const doc = readJson(file) as Json;
    const ajv = newAjv();
    /** The object a local `$ref` names, refs followed. */
    const deref = (node: Json): Json => {
      const ref = node.$ref;
      if (typeof ref !== 'string' || !ref.startsWith('#/')) return node;
      let target: unknown = doc;
      for (const part of ref.slice(2).split('/')) {
        target = asObject(target)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      }
      return deref(asObject(target) ?? {});
    };
    const operations: OpenApiOperation[] = [];
    for (const [template, item] of Object.entries(asObject(doc.paths) ?? {})) {
      const pathItem = asObject(item) ?? {};
      for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
        const op = asObject(pathItem[method]);
        if (!op) continue;
        const byName = new Map<string, OpenApiParameter>();
        for (const list of [pathItem.parameters, op.parameters]) {
          for (const raw of Array.isArray(list) ? list : []) {
            const param = deref(asObject(raw) ?? {}) as unknown as OpenApiParameter;
            byName.set(`${param.in}:${param.name}`, param);
          }
        }
        let body: OpenApiOperation['body'] = null;
        if (op.requestBody) {
          const node = deref(asObject(op.requestBody) ?? {});
          const content = asObject(node.content) ?? {};
          const jsonType = Object.keys(content).find(
            (type) => isJson(type) && asObject(content[type])?.schema,
          );
          body = {
            required: node.required === true,
            schema: jsonType ? (asObject(asObject(content[jsonType])?.schema) ?? null) : null,
          };
        }
        const { pattern, names } = templatePattern(prefix, template);
        operations.push({
          id: typeof op.operationId === 'string' ? op.operationId : `${method.toUpperCase()} ${template}`,
          method: method.toUpperCase(),
          pattern,
          names,
          literalSegments: template.split('/').filter((segment) => segment && !segment.includes('{')).length,
          parameters: [...byName.values()],
          body,
        });
      }
    }
    // The most literal template wins (`/2/media/upload/initialize` over `/2/media/upload/{id}`).
    operations.sort((a, b) => b.literalSegments - a.literalSegments);
    state = { doc, ajv, operations };
    return state;
  };

  const find = (method: string, path: string) => {
    for (const op of load().operations) {
      if (op.method !== method) continue;
      const match = op.pattern.exec(path);
      if (match) return { op, values: match.slice(1) };
    }
    return null;
  };

  /**
   * Compiles an operation's parameter and body schemas. Only the components they reach (through
   * `$ref`s and discriminator mappings) are registered with Ajv, as a document of their own: having
   * Ajv walk a whole description (2 MB for Pinterest) costs more than every operation a simulator
   * serves.
   */
  let registered = 0;
  let lenient: Ajv | null = null;
  const lenientAjv = () => {
    lenient ??= newAjv({ coerceTypes: true });
    return lenient;
  };
  const compile = (op: OpenApiOperation) => {
    if (op.compiled) return op.compiled;
    const { ajv, doc } = load();
    const reached: Json = {};
    const walk = (node: unknown) => {
      if (Array.isArray(node)) for (const item of node) walk(item);
      const object = asObject(node);
      if (!object) return;
      const refs = [
        ...(typeof object.$ref === 'string' ? [object.$ref] : []),
        ...Object.values(asObject(asObject(object.discriminator)?.mapping) ?? {}),
      ].filter((ref): ref is string => typeof ref === 'string' && ref.startsWith('#/components/'));
      for (const ref of refs) {
        const [, , kind, name] = ref.split('/') as [string, string, string, string];
        reached[kind] ??= {};
        const kinds = reached[kind] as Json;
        if (kinds[name] !== undefined) continue;
        const target = asObject(asObject(doc.components)?.[kind])?.[name];
        kinds[name] = target ?? {};
        walk(target);
      }
      for (const value of Object.values(object)) walk(value);
    };
    walk(op.parameters);
    walk(op.body?.schema);
    registered += 1;
    const base = `spec${registered}`;
    const components = adapted({ components: reached }, null) as Json;
    ajv.addSchema(components, base);
    if (options.lenientTypes) lenientAjv().addSchema(components, base);
    const params = new Map<string, ValidateFunction>();
    for (const param of op.parameters) {
      if (param.schema)
        params.set(`${param.in}:${param.name}`, ajv.compile(adapted(param.schema, base) as Json));
    }
    const body = op.body?.schema
      ? (options.lenientTypes ? lenientAjv() : ajv).compile(adapted(op.body.schema, base) as Json)
      : null;
    op.compiled = { base, params, body };
    return op.compiled;
  };

  /**
   * The first problem with a body. Where a `oneOf` with a `discriminator` fails (Pinterest's
   * `media_source`), the problem is told as the discriminator picks the branch: its property
   * missing, its value not one of the mapping's, or the first problem with the mapped schema.
   */
  const explain = (
    validate: ValidateFunction,
    base: string,
    value: unknown,
    prefix: string[],
    id: string,
  ): SpecIssue | null => {
    if (validate(value)) return null;
    const errors = validate.errors ?? [];
    const oneOf = errors.find(
      (error) => error.keyword === 'oneOf' && asObject(error.parentSchema)?.discriminator,
    );
    if (oneOf) {
      const schema = asObject(oneOf.parentSchema) ?? {};
      const discriminator = asObject(schema.discriminator) ?? {};
      const tag = String(discriminator.propertyName);
      const mapping = (asObject(discriminator.mapping) ?? {}) as Record<string, string>;
      const at = [
        ...prefix,
        ...oneOf.instancePath
          .split('/')
          .slice(1)
          .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~')),
      ];
      const data = asObject(oneOf.data) ?? {};
      const tagValue = data[tag];
      const common = { location: 'body' as const, operation: id };
      if (tagValue === undefined) {
        const path = [...at, tag];
        return {
          ...common,
          kind: 'required',
          name: path.join('.'),
          path,
          message: `${path.join('.')} is required`,
        };
      }
      const target = mapping[String(tagValue)];
      if (!target) {
        const path = [...at, tag];
        const allowed = Object.keys(mapping);
        return {
          ...common,
          kind: 'enum',
          name: path.join('.'),
          path,
          value: tagValue,
          allowed,
          message: `${path.join('.')} must be one of ${allowed.join(', ')}`,
        };
      }
      const branch =
        load().ajv.getSchema(`${base}${target}`) ?? load().ajv.compile({ $ref: `${base}${target}` });
      if (!branch(data)) {
        const error = branch.errors?.[0];
        if (error) return issueOfAjv(error, 'body', at, data, id);
      }
    }
    const error = errors[0];
    return error ? issueOfAjv(error, 'body', prefix, value, id) : null;
  };

  /** The parameter's schema with `$ref`s followed (its type decides how a query string is read). */
  const schemaOf = (param: OpenApiParameter): Json => {
    let schema = param.schema ?? {};
    while (typeof schema.$ref === 'string') {
      let target: unknown = load().doc;
      for (const part of schema.$ref.slice(2).split('/')) target = asObject(target)?.[part];
      schema = asObject(target) ?? {};
    }
    return schema;
  };

  const checkParam = (
    op: OpenApiOperation,
    param: OpenApiParameter,
    raw: string[],
    compiled: Map<string, ValidateFunction>,
  ): SpecIssue | null => {
    const validate = compiled.get(`${param.in}:${param.name}`);
    if (!validate) return null;
    const schema = schemaOf(param);
    let value: unknown;
    if (schema.type === 'array') {
      const items = asObject(schema.items) ?? {};
      const itemsType = (asObject(items.$ref ? {} : items) ?? {}).type;
      const parts = param.explode === false ? raw.flatMap((one) => one.split(',')) : raw;
      value = parts.map((part) => coerce(part, itemsType));
    } else {
      value = coerce(raw[0] ?? '', schema.type);
    }
    if (validate(value)) return null;
    const error = validate.errors?.[0];
    if (!error) return null;
    const issue = issueOfAjv(error, param.in as 'path' | 'query', [param.name], value, op.id);
    const at = issue.path.length > 1 ? `${param.name}[${issue.path.slice(1).join('.')}]` : param.name;
    return {
      ...issue,
      name: param.name,
      message:
        issue.kind === 'enum'
          ? `The ${param.in} parameter ${param.name} value [${String(issue.value)}] is not one of [${(issue.allowed ?? []).join(',')}]`
          : `The ${param.in} parameter ${at} ${error.message ?? 'is invalid'}`,
    };
  };

  return {
    source: file,
    operationOf: (method, path) => find(method, path)?.op.id ?? null,
    prepare(method, path) {
      const found = find(method, path);
      if (found) compile(found.op);
    },
    check(request) {
      const found = find(request.method, request.path);
      if (!found) return null;
      const { op, values } = found;
      const compiled = compile(op);
      const path = op.names.map((name, i) => [name, values[i] ?? ''] as const);
      for (const [name, value] of path) {
        const param = op.parameters.find((p) => p.in === 'path' && p.name === name);
        let decoded = value;
        try {
          decoded = decodeURIComponent(value);
        } catch {
          // checked as sent
        }
        const issue = param ? checkParam(op, param, [decoded], compiled.params) : null;
        if (issue) return issue;
      }
      const query = op.parameters.filter((param) => param.in === 'query');
      const known = new Set([...query.map((param) => param.name), ...(options.everywhere ?? [])]);
      for (const name of new Set(request.query.keys())) {
        if (!known.has(name)) {
          return {
            kind: 'unknown',
            location: 'query',
            name,
            path: [name],
            value: request.query.getAll(name).join(','),
            allowed: [...known],
            message: `The query parameter [${name}] is not one of [${[...known].join(',')}]`,
            operation: op.id,
          };
        }
      }
      for (const param of query) {
        const raw = request.query.getAll(param.name);
        if (raw.length === 0) {
          if (param.required) {
            return {
              kind: 'required',
              location: 'query',
              name: param.name,
              path: [param.name],
              message: `The query parameter [${param.name}] is required`,
              operation: op.id,
            };
          }
          continue;
        }
        const issue = checkParam(op, param, raw, compiled.params);
        if (issue) return issue;
      }
      if (!op.body) return null;
      if (request.body === undefined) {
        if (op.body.required && isJson(request.contentType) && op.body.schema) {
          return {
            kind: 'required',
            location: 'body',
            name: '',
            path: [],
            message: 'A JSON request body is required',
            operation: op.id,
          };
        }
        return null;
      }
      if (!compiled.body || !isJson(request.contentType)) return null;
      const body = options.lenientTypes ? structuredClone(request.body) : request.body;
      return explain(compiled.body, compiled.base, body, [], op.id);
    },
  };
};

// ---------------------------------------------------------------------------------------------
// Google API discovery documents (YouTube)

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

// ---------------------------------------------------------------------------------------------
// AT Protocol Lexicons (Bluesky)

type LexDef = Json & { type: string };

/** Thrown inside the lexicon walk with the atproto validator's own wording. */
class LexError extends Error {
  constructor(
    readonly issue: Omit<SpecIssue, 'location' | 'operation'>,
    message: string,
  ) {
    super(message);
  }
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const graphemeCount = (text: string) => {
  let count = 0;
  for (const _ of graphemes.segment(text)) count += 1;
  return count;
};

/** The string formats of the Lexicon spec (https://atproto.com/specs/lexicon#string-formats), loosely. */
const LEX_FORMATS: Record<string, (value: string) => boolean> = {
  did: (value) => /^did:[a-z]+:[a-zA-Z0-9._:%-]*[a-zA-Z0-9._-]$/.test(value) && value.length <= 2048,
  handle: (value) =>
    /^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/.test(
      value,
    ) && value.length <= 253,
  'at-identifier': (value) => (LEX_FORMATS.did?.(value) ?? false) || (LEX_FORMATS.handle?.(value) ?? false),
  nsid: (value) =>
    /^[a-zA-Z]([a-zA-Z0-9-]{0,62}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,62}[a-zA-Z0-9])?)+(\.[a-zA-Z][a-zA-Z0-9]{0,62})$/.test(
      value,
    ) && value.length <= 317,
  'at-uri': (value) => /^at:\/\/[^/\s]+(\/[a-zA-Z0-9.-]+(\/[a-zA-Z0-9._:~-]+)?)?$/.test(value),
  cid: (value) => /^[a-zA-Z0-9+=]{8,256}$/.test(value),
  datetime: (value) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
    !Number.isNaN(Date.parse(value)),
  'record-key': (value) => /^[a-zA-Z0-9_~.:-]{1,512}$/.test(value) && value !== '.' && value !== '..',
  tid: (value) => /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/.test(value),
  uri: (value) => /^\w+:(?:\/\/)?[^\s/][^\s]*$/.test(value),
  language: (value) => /^(i|[a-z]{2,3})(-[a-zA-Z0-9]+)*$/.test(value),
};

const FORMAT_NAMES: Record<string, string> = {
  did: 'a valid did',
  handle: 'a valid handle',
  'at-identifier': 'a valid did or a handle',
  nsid: 'a valid nsid',
  'at-uri': 'a valid at-uri',
  cid: 'a cid string',
  datetime: 'an valid atproto datetime (both RFC-3339 and ISO-8601)',
  'record-key': 'a valid Record Key',
  tid: 'a valid TID',
  uri: 'a uri',
  language: 'a well-formatted BCP 47 language tag',
};

/** The Lexicons of the methods and records a simulator serves (a folder of `<nsid path>.json`). */
export const lexiconSpec = (folder: string): RequestSpec => {
  const docs = new Map<string, Json | null>();
  const lexicon = (nsid: string): Json | null => {
    if (!docs.has(nsid)) {
      try {
        docs.set(nsid, readJson(`${folder}/${nsid.split('.').join('/')}.json`) as Json);
      } catch {
        docs.set(nsid, null);
      }
    }
    return docs.get(nsid) ?? null;
  };
  const defOf = (ref: string, from: string): LexDef | null => {
    const [nsid, name] = ref.startsWith('#') ? [from, ref.slice(1)] : (ref.split('#') as [string, string?]);
    return (asObject(asObject(lexicon(nsid)?.defs)?.[name ?? 'main']) as LexDef | null) ?? null;
  };
  const nsidOf = (ref: string, from: string) => (ref.startsWith('#') ? from : (ref.split('#')[0] ?? from));
  const fail = (
    kind: SpecIssue['kind'],
    path: string[],
    message: string,
    value?: unknown,
    allowed?: unknown[],
  ) => {
    throw new LexError(
      {
        kind,
        name: path.slice(1).join('/'),
        path: path.slice(1),
        value,
        ...(allowed ? { allowed } : {}),
        message,
      },
      message,
    );
  };

  const validate = (def: LexDef, value: unknown, path: string[], from: string): void => {
    const at = path.join('/');
    switch (def.type) {
      case 'ref': {
        const target = defOf(String(def.ref), from);
        if (target) validate(target, value, path, nsidOf(String(def.ref), from));
        return;
      }
      case 'union': {
        const refs = (def.refs as string[]) ?? [];
        const object = asObject(value);
        if (!object || typeof object.$type !== 'string') {
          fail('type', path, `${at} must be an object which includes the "$type" property`, value);
          return;
        }
        const type = object.$type as string;
        const match = refs.find((ref) => {
          const full = ref.startsWith('#') ? `${from}${ref}` : ref;
          return full === type || (full.endsWith('#main') && full.slice(0, -5) === type);
        });
        if (!match) {
          if (def.closed === true)
            fail('enum', path, `${at} $type must be one of ${refs.join(', ')}`, type, refs);
          return;
        }
        const target = defOf(match, from);
        if (target) validate(target, value, path, nsidOf(match, from));
        return;
      }
      case 'object':
      case 'params': {
        const object = asObject(value);
        if (!object) {
          fail('type', path, `${at} must be an object`, value);
          return;
        }
        const required = (def.required as string[]) ?? [];
        const nullable = (def.nullable as string[]) ?? [];
        for (const [name, propDef] of Object.entries(asObject(def.properties) ?? {})) {
          const prop = object[name];
          if (prop === undefined) {
            if (required.includes(name))
              fail('required', [...path, name], `${at} must have the property "${name}"`);
            continue;
          }
          if (prop === null && nullable.includes(name)) continue;
          validate(propDef as LexDef, prop, [...path, name], from);
        }
        return;
      }
      case 'array': {
        if (!Array.isArray(value)) {
          fail('type', path, `${at} must be an array`, value);
          return;
        }
        if (typeof def.maxLength === 'number' && value.length > def.maxLength) {
          fail('invalid', path, `${at} must not have more than ${def.maxLength} elements`, value);
        }
        if (typeof def.minLength === 'number' && value.length < def.minLength) {
          fail('invalid', path, `${at} must not have fewer than ${def.minLength} elements`, value);
        }
        value.forEach((item, i) => {
          validate(def.items as LexDef, item, [...path, String(i)], from);
        });
        return;
      }
      case 'string': {
        if (typeof value !== 'string') {
          fail('type', path, `${at} must be a string`, value);
          return;
        }
        if (Array.isArray(def.enum) && !def.enum.includes(value)) {
          fail('enum', path, `${at} must be one of (${def.enum.join('|')})`, value, def.enum);
        }
        if (def.const !== undefined && value !== def.const) {
          fail('enum', path, `${at} must be ${String(def.const)}`, value, [def.const]);
        }
        const bytes = Buffer.byteLength(value, 'utf8');
        if (typeof def.maxLength === 'number' && bytes > def.maxLength) {
          fail('invalid', path, `${at} must not be longer than ${def.maxLength} characters`, value);
        }
        if (typeof def.minLength === 'number' && bytes < def.minLength) {
          fail('invalid', path, `${at} must not be shorter than ${def.minLength} characters`, value);
        }
        if (typeof def.maxGraphemes === 'number' && graphemeCount(value) > def.maxGraphemes) {
          fail('invalid', path, `${at} must not be longer than ${def.maxGraphemes} graphemes`, value);
        }
        if (typeof def.minGraphemes === 'number' && graphemeCount(value) < def.minGraphemes) {
          fail('invalid', path, `${at} must not be shorter than ${def.minGraphemes} graphemes`, value);
        }
        const format = typeof def.format === 'string' ? def.format : null;
        if (format && LEX_FORMATS[format] && !LEX_FORMATS[format](value)) {
          fail('invalid', path, `${at} must be ${FORMAT_NAMES[format] ?? `a valid ${format}`}`, value);
        }
        return;
      }
      case 'integer': {
        if (typeof value !== 'number' || !Number.isInteger(value)) {
          fail('type', path, `${at} must be an integer`, value);
          return;
        }
        if (Array.isArray(def.enum) && !def.enum.includes(value)) {
          fail('enum', path, `${at} must be one of (${def.enum.join('|')})`, value, def.enum);
        }
        if (typeof def.maximum === 'number' && value > def.maximum) {
          fail('invalid', path, `${at} can not be greater than ${def.maximum}`, value);
        }
        if (typeof def.minimum === 'number' && value < def.minimum) {
          fail('invalid', path, `${at} can not be less than ${def.minimum}`, value);
        }
        return;
      }
      case 'boolean':
        if (typeof value !== 'boolean') fail('type', path, `${at} must be a boolean`, value);
        else if (def.const !== undefined && value !== def.const) {
          fail('enum', path, `${at} must be ${String(def.const)}`, value, [def.const]);
        }
        return;
      case 'unknown':
        if (!asObject(value)) fail('type', path, `${at} must be an object`, value);
        return;
      case 'blob': {
        const blob = asObject(value);
        if (!blob || (blob.$type !== 'blob' && typeof blob.cid !== 'string')) {
          fail('type', path, `${at} should be a blob ref`, value);
        }
        return;
      }
      case 'cid-link':
        if (typeof asObject(value)?.$link !== 'string') fail('type', path, `${at} must be a CID`, value);
        return;
      case 'bytes':
        if (typeof asObject(value)?.$bytes !== 'string')
          fail('type', path, `${at} must be a byte array`, value);
        return;
      default:
        return;
    }
  };

  const run = (
    def: LexDef,
    value: unknown,
    root: string,
    location: SpecIssue['location'],
    operation: string,
    prefix = '',
  ): SpecIssue | null => {
    try {
      validate(def, value, [root], operation);
      return null;
    } catch (error) {
      if (!(error instanceof LexError)) throw error;
      return { ...error.issue, location, operation, message: `${prefix}${error.message}` };
    }
  };

  /** Query strings as the XRPC server decodes them (`xrpc-server` `decodeQueryParam`). */
  const decodeParams = (params: LexDef, query: URLSearchParams) => {
    const out: Json = {};
    for (const [name, raw] of Object.entries(asObject(params.properties) ?? {})) {
      const def = raw as LexDef;
      const values = query.getAll(name);
      if (values.length === 0) continue;
      const one = (type: string, value: string) =>
        type === 'integer'
          ? Number.parseInt(value, 10) || 0
          : type === 'boolean'
            ? value === 'true'
            : type === 'float'
              ? Number(value)
              : value;
      out[name] =
        def.type === 'array'
          ? values.map((value) => one(String(asObject(def.items)?.type), value))
          : one(def.type, values[0] ?? '');
    }
    return out;
  };

  const methodOf = (method: string, path: string) => {
    const match = /^\/xrpc\/([a-zA-Z0-9.-]+)$/.exec(path);
    if (!match?.[1]) return null;
    const def = defOf(match[1], match[1]);
    if (!def) return null;
    const expected = def.type === 'query' ? 'GET' : def.type === 'procedure' ? 'POST' : null;
    return expected === method ? { nsid: match[1], def } : null;
  };

  return {
    source: folder,
    operationOf: (method, path) => methodOf(method, path)?.nsid ?? null,
    // Lexicons are read on first use; there is nothing to compile.
    prepare(method, path) {
      methodOf(method, path);
    },
    check(request) {
      const found = methodOf(request.method, request.path);
      if (!found) return null;
      const { nsid, def } = found;
      // The PDS ignores query parameters a method does not declare (xrpc-server decodes only
      // the declared ones); a misspelled required one is reported missing.
      const params = asObject(def.parameters) as LexDef | null;
      if (params) {
        const issue = run(params, decodeParams(params, request.query), 'Params', 'query', nsid);
        if (issue) return issue;
      }
      const input = asObject(def.input);
      const schema = asObject(input?.schema) as LexDef | null;
      if (!schema || input?.encoding !== 'application/json') return null;
      if (request.body === undefined || !isJson(request.contentType)) {
        return {
          kind: 'required',
          location: 'body',
          name: '',
          path: [],
          message: 'Request encoding (Content-Type) required but not provided',
          operation: nsid,
        };
      }
      const issue = run(schema, request.body, 'Input', 'body', nsid);
      if (issue) return issue;
      // A record written to a known collection is validated against the collection's Lexicon, as
      // the PDS does (`validate` unset or true).
      const body = asObject(request.body);
      const collection = typeof body?.collection === 'string' ? body.collection : null;
      const recordDef = collection ? defOf(collection, collection) : null;
      const writes = nsid === 'com.atproto.repo.createRecord' || nsid === 'com.atproto.repo.putRecord';
      if (writes && body && collection && recordDef?.type === 'record' && body.validate !== false) {
        const record = asObject(recordDef.record) as LexDef | null;
        if (record)
          return run(record, body.record, 'Record', 'body', collection, `Invalid ${collection} record: `);
      }
      return null;
    },
  };
};

// ---------------------------------------------------------------------------------------------

const specs = new Map<string, RequestSpec>();
const once = (key: string, make: () => RequestSpec) => {
  let spec = specs.get(key);
  if (!spec) {
    spec = make();
    specs.set(key, spec);
  }
  return spec;
};

/** The networks that publish a machine-readable description of their API, and where ours is. */
export const NETWORK_SPECS = {
  pinterest: () => once('pinterest', () => openApiSpec('pinterest/openapi.json', { prefix: '/v5' })),
  x: () => once('x', () => openApiSpec('x/openapi.json')),
  // Vimeo takes its JSON filter (`fields`) on every request
  // (https://developer.vimeo.com/api/common-formats#json-filter), and its API reads numbers and
  // numeric strings alike (the 2019 description types `upload.size` as a string; Vimeo's own
  // vimeo.js sends the file size as a number).
  vimeo: () =>
    once('vimeo', () =>
      openApiSpec('vimeo/openapi-extract.json', { everywhere: ['fields'], lenientTypes: true }),
    ),
  youtube: () => once('youtube', () => discoverySpec('youtube/discovery-extract.json')),
  bluesky: () => once('bluesky', () => lexiconSpec('bluesky/lexicons')),
} as const;

/** The spec of a network (one instance per process, so each operation compiles once). */
export const requestSpecFor = (network: keyof typeof NETWORK_SPECS): RequestSpec => NETWORK_SPECS[network]();
