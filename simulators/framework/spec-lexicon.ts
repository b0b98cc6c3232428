import { asObject, isJson, type Json, type RequestSpec, readJson, type SpecIssue } from './spec-common.ts';

/** AT Protocol Lexicons (Bluesky): see spec-validation.ts. */

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
