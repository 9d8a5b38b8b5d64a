// Validation of command-line flags at the boundary: every problem names the flag and the fix.
import { z } from 'zod';
import { didYouMean, plainIssue } from '../market/spelling.js';

/** A flag problem; the CLI prints it and exits 2. */
export class FlagError extends Error {
  readonly exitCode = 2;
}

/** A flag that takes one of `values`; a miss is answered with the list and the nearest value ("1h": "1H"). */
export function enumFlag<const T extends readonly [string, ...string[]]>(flag: string, values: T) {
  return z.enum(values, {
    error: (iss) =>
      `${flag} must be one of ${values.join(', ')}${typeof iss.input === 'string' ? didYouMean(iss.input, values) : ''}`,
  });
}

const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** Parses commander's option object with a zod schema; throws FlagError listing every problem. */
export function parseFlags<T extends z.ZodType>(schema: T, raw: Record<string, unknown>): z.output<T> {
  const r = schema.safeParse(raw, { error: plainIssue });
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => {
    const key = String(i.path[0] ?? '');
    const msg = i.message.startsWith('--') ? i.message : `${flagName(key)}: ${i.message}`;
    return `  ${msg} (got ${JSON.stringify(raw[key])})`;
  });
  // One sentence per problem: a pair's two halves (or two rules) broken alike are said once.
  throw new FlagError(`invalid options:\n${[...new Set(lines)].join('\n')}`);
}

/** A number as written on a command line: digits, a fraction, an exponent; nothing else is read as one. */
const NUMBER_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/**
 * A number flag checked by `schema` (the one the same option's YAML spelling is checked by). Commander
 * hands a string: a blank or garbled one is refused with the schema's sentence, never read as 0
 * (`--port ""` is no port).
 */
export const numberFlag = <T extends z.ZodType<unknown, number>>(schema: T) =>
  z.string().transform(flagNumber).pipe(schema);

/** A number as written on a command line, or NaN (which every number schema refuses) for anything else. */
export const flagNumber = (s: string): number => (NUMBER_RE.test(s.trim()) ? Number(s.trim()) : Number.NaN);

const DATE_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * A date or date-time flag, strictly: `2026-01-31` (midnight UTC) or an ISO date-time such as
 * `2026-01-31T14:30:00Z`. Refuses what `Date.parse` would quietly roll over or accept (`2026-02-30`,
 * `99999-01-01`, `tomorrow`), naming the flag. Answers Unix milliseconds.
 */
export function parseDateFlag(flag: string, s: string): number {
  const m = DATE_RE.exec(s.trim());
  const fix = `${flag} must be a date such as 2026-01-31 (UTC) or 2026-01-31T14:30:00Z`;
  if (!m) throw new FlagError(fix);
  const [y, mo, d, h = '0', mi = '0', sec = '0', zone] = m.slice(1) as [string, string, string, ...string[]];
  // The calendar check is on the date as written, before any zone shift: 2026-02-30 does not exist.
  const probe = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec)));
  if (
    probe.getUTCFullYear() !== Number(y) ||
    probe.getUTCMonth() !== Number(mo) - 1 ||
    probe.getUTCDate() !== Number(d) ||
    probe.getUTCHours() !== Number(h) ||
    probe.getUTCMinutes() !== Number(mi) ||
    probe.getUTCSeconds() !== Number(sec)
  )
    throw new FlagError(`${flag}: ${s} is not a date of the calendar (${fix})`);
  if (Number(y) < 1970) throw new FlagError(`${flag}: ${s} is before 1970 (${fix})`);
  // A date-time without a zone would be read in the machine's zone by Date.parse: make it UTC as documented.
  return Date.parse(m[4] !== undefined && zone === undefined ? `${s.trim()}Z` : s.trim());
}

const toDate =
  (flag: string) =>
  (s: string, ctx: z.RefinementCtx): number => {
    try {
      return parseDateFlag(flag, s);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
      return z.NEVER;
    }
  };

/** A zod field for an optional date flag (see parseDateFlag); the issue names the flag and the fix. */
export const dateFlag = (flag: string) => z.string().transform(toDate(flag)).optional();

/** A zod field for a required date flag. */
export const requiredDateFlag = (flag: string) =>
  z.string({ error: `${flag} is required` }).transform(toDate(flag));

const day = (t: number) => new Date(t).toISOString().replace('T00:00:00.000Z', '').replace('.000Z', 'Z');

/** `--to` must come after `--from` when both are given. */
export function checkRange(from: number | undefined, to: number | undefined): void {
  if (from !== undefined && to !== undefined && to <= from)
    throw new FlagError(`--to (${day(to)}) must be after --from (${day(from)})`);
}

/** A run that found no candle: the dataset is empty or the range misses it. Invalid input, not a failure. */
export function noCandles(o: {
  dataset: string;
  from?: number | undefined;
  to?: number | undefined;
}): FlagError {
  const range =
    o.from !== undefined || o.to !== undefined
      ? ` between ${o.from !== undefined ? day(o.from) : 'its start'} and ${o.to !== undefined ? day(o.to) : 'its end'}`
      : '';
  return new FlagError(
    `dataset ${o.dataset} has no candles${range}: pick a range inside the data (--from/--to) or another dataset`,
  );
}

/** A length of time such as 90d, 12h or 30m (walk-forward windows), in milliseconds. */
export const lengthFlag = (flag: string) =>
  z
    .string()
    .regex(/^\d+[dhm]$/, `${flag} must be a length such as 90d, 12h or 30m`)
    .transform(
      (s) =>
        Number(s.slice(0, -1)) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[s.slice(-1) as 'd' | 'h' | 'm'],
    );
