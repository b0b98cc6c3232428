import { ApiError } from '../../domain/errors.ts';

/**
 * `YYYY-MM-DDThh:mm[:ss[.fff...]]` and an optional zone (`Z`, `±hh:mm` or `±hhmm`). The zone is
 * optional here only so that its absence can be told apart (`invalid_timezone`) from a string
 * that is no date-time at all (`validation_failed`).
 */
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))?$/;

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/**
 * Parses an ISO 8601 date-time with a timezone into the instant it names. Regex, then range checks
 * per component, then a round trip through Date, because `Date.parse` rolls 30 February into
 * March and accepts times without a zone as local time.
 */
export const parseInstant = (value: string, field: string): Date => {
  const match = ISO_DATE_TIME.exec(value);
  if (!match) {
    throw new ApiError(
      'validation_failed',
      `${field} must be an ISO 8601 date and time with a timezone, such as 2030-01-01T10:00:00Z.`,
      field,
    );
  }
  const [, y, mo, d, h, mi, s = '0', fraction = '', zulu, sign, oh = '0', om = '0'] = match;
  if (zulu === undefined && sign === undefined) {
    throw new ApiError(
      'invalid_timezone',
      `${field} must carry a timezone: Z or an offset such as +02:00.`,
      field,
    );
  }
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  const millis = Number(fraction.slice(0, 3).padEnd(3, '0'));
  const offsetMinutes = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const invalid = (what: string) => new ApiError('invalid_date', `${field}: ${what} does not exist.`, field);
  if (month < 1 || month > 12) throw invalid(`month ${mo}`);
  if (day < 1 || day > daysInMonth(year, month)) throw invalid(`day ${d} of ${y}-${mo}`);
  if (hour > 23) throw invalid(`hour ${h}`);
  if (minute > 59) throw invalid(`minute ${mi}`);
  if (second > 59) throw invalid(`second ${s}`);
  if (Number(om) > 59 || Math.abs(offsetMinutes) > 14 * 60) throw invalid(`offset ${sign}${oh}:${om}`);

  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, millis);
  if (
    local.getUTCFullYear() !== year ||
    local.getUTCMonth() !== month - 1 ||
    local.getUTCDate() !== day ||
    local.getUTCHours() !== hour ||
    local.getUTCMinutes() !== minute ||
    local.getUTCSeconds() !== second
  ) {
    throw invalid(`${value}`);
  }
  return new Date(local.getTime() - offsetMinutes * 60_000);
};
