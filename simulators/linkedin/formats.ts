/** LinkedIn's formats: its little text (commentary markup) and its monthly API versions. */
/**
 * What members see of a little-text commentary: `\x` is x, `{hashtag|\#|tag}` is #tag,
 * `@[Name](urn)` is Name, and an unescaped markup character ends the text.
 */
export const fromLittleText = (raw: string): string => {
  const unescapeMarkup = (value: string) => value.replace(/\\(.)/gsu, '$1');
  let out = '';
  let i = 0;
  while (i < raw.length) {
    const rest = raw.slice(i);
    const ch = raw[i] as string;
    if (ch === '\\' && i + 1 < raw.length) {
      const next = String.fromCodePoint(raw.codePointAt(i + 1) as number);
      out += next;
      i += 1 + next.length;
      continue;
    }
    const hashtag = /^\{hashtag\|\\#\|((?:\\.|[^}\\])+)\}/su.exec(rest);
    if (hashtag) {
      out += `#${unescapeMarkup(hashtag[1] as string)}`;
      i += hashtag[0].length;
      continue;
    }
    const mention = /^@\[((?:\\.|[^\]\\])*)\]\((urn:li:[^)]+)\)/su.exec(rest);
    if (mention) {
      out += unescapeMarkup(mention[1] as string);
      i += mention[0].length;
      continue;
    }
    if ('()[]{}<>|@\\'.includes(ch)) break;
    out += ch;
    i += 1;
  }
  return out;
};

/**
 * Whether a `LinkedIn-Version` is live at `now`: monthly versions (`YYYYMM`, optionally `.NN`)
 * are served from their month for twelve months, then sunset; a later month does not exist yet.
 */
export const linkedInVersionActive = (version: string, now: Date): boolean => {
  const match = /^(\d{4})(\d{2})(\.\d{2})?$/.exec(version);
  if (!match) return false;
  const month = Number(match[2]);
  if (month < 1 || month > 12) return false;
  const age = now.getUTCFullYear() * 12 + now.getUTCMonth() - (Number(match[1]) * 12 + month - 1);
  return age >= 0 && age < 12;
};
