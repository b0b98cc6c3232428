import type { Ajv, ValidateFunction } from 'ajv';
import {
  asObject,
  coerce,
  isJson,
  issueOfAjv,
  type Json,
  newAjv,
  type RequestSpec,
  readJson,
  type SpecIssue,
} from './spec-common.ts';

/** OpenAPI 3 descriptions (Pinterest, X, Vimeo): see spec-validation.ts. */

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
      const itemsType = items.$ref ? undefined : items.type;
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
