import { objectOf } from '../framework/framework.ts';

/** Vimeo's field filter (`fields=`) and time format. */
/** Vimeo's JSON filter: keeps only the dotted `fields` paths of an object. */
export const filterFields = (
  value: Record<string, unknown>,
  fields: string | null,
): Record<string, unknown> => {
  if (!fields) return value;
  const out: Record<string, unknown> = {};
  for (const path of fields
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean)) {
    const keys = path.split('.');
    let from: unknown = value;
    for (const key of keys) from = objectOf(from)?.[key];
    if (from === undefined) continue;
    let into = out;
    keys.slice(0, -1).forEach((key) => {
      into[key] = objectOf(into[key]) ?? {};
      into = into[key] as Record<string, unknown>;
    });
    into[keys.at(-1) as string] = from;
  }
  return out;
};

export const vimeoTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
