// Candle files other tools write as text, read through the column mapping of backtest/README.md:
// - CSV with a header row (Yahoo Finance, TradingView, pandas' to_csv, a spreadsheet), `,` `;` or tab separated;
// - CSV without one: six fields (time, open, high, low, close, volume), seven (+ turnover, tradebot's order) or
//   twelve (Binance's kline dumps, quote volume as turnover);
// - freqtrade's JSON (`<BASE>_<QUOTE>-<timeframe>.json`, `.json.gz`): an array of [date, open, high, low, close,
//   volume], date in Unix ms.
// Times are Unix seconds, ms, us or ns (told apart by size: the first row decides for the file) or ISO dates
// (`2024-01-02`, `2024-01-02 09:30:00`, `2024-01-02T09:30:00-05:00`; without a zone, UTC). The whole file is read
// at once and checked by the same rules as every candle file (with line numbers). A whole read is kept in the
// columnar cache (candle-cache.ts) under the file's bytes, its name and the instrument given: a later run with
// the same three reads the columns instead of parsing text. `tradebot data convert` writes such a file once as a
// tradebot file, which also remembers its instrument.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { basename } from 'node:path';
import { foreignEntryPath, hashRecall, writeCacheEntry } from './candle-cache.js';
import {
  VALUE_COLUMNS,
  columnNames,
  inferMeta,
  openColumnarFile,
  validated,
  type ColumnarOptions,
  type Columns,
  type ValueColumn,
} from './columnar.js';
import { CandleFileError, parseDecimalField, type CandleBatch, type CandleSource } from './format.js';

/** A `.json` file, or a `.csv` whose first line is not tradebot's metadata header (`# tradebot-candles ...`). */
export function isForeignText(path: string, firstLine: () => string): boolean {
  if (/\.json(\.gz)?$/i.test(path)) return true;
  return /\.csv(\.gz)?$/i.test(path) && !firstLine().startsWith('#');
}

function readText(path: string, bytes: Buffer): string {
  let buf = bytes;
  if (/\.gz$/i.test(path)) {
    try {
      buf = gunzipSync(buf);
    } catch (e) {
      throw new CandleFileError(
        `${path}: not a complete gzip file (${e instanceof Error ? e.message : String(e)}); download or compress it again`,
      );
    }
  }
  let text: string;
  try {
    text = buf.toString('utf8');
  } catch {
    throw new CandleFileError(
      `${path}: too large to read as one text (${buf.length.toLocaleString('en-US')} bytes); split it, or convert it in parts with \`tradebot data convert\``,
    );
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (y: number, m: number): number =>
  m === 2 && ((y % 4 === 0 && y % 100 !== 0) || y % 400 === 0) ? 29 : (DAYS_IN_MONTH[m - 1] ?? 0);

/** Unix ms of an ISO date or date-time (no zone: UTC), or undefined when `s` is not one or names no real time. */
export function parseIsoTime(s: string): number | undefined {
  const m = ISO.exec(s);
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const h = m[4] === undefined ? 0 : Number(m[4]);
  const mi = m[5] === undefined ? 0 : Number(m[5]);
  const sec = m[6] === undefined ? 0 : Number(m[6]);
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || sec > 59) return undefined;
  const frac = m[7] === undefined ? 0 : Number(`0.${m[7]}`) * 1000;
  const zone = m[8];
  let offsetMin = 0;
  if (zone !== undefined && zone !== 'Z' && zone !== 'z') {
    // [+-]hh, [+-]hhmm or [+-]hh:mm (the pattern above admits nothing else)
    const mm = zone.length > 3 ? Number(zone.slice(-2)) : 0;
    if (mm > 59) return undefined;
    offsetMin = (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + mm);
  }
  return Date.UTC(y, mo - 1, d, h, mi, sec) + frac - offsetMin * 60_000;
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** A field as a number (plain decimals the fast way, signs and exponents through the pattern), or NaN. */
function numberOf(s: string): number {
  const x = parseDecimalField(s, 0, s.length);
  if (!Number.isNaN(x)) return x;
  return NUMBER.test(s) ? Number(s) : Number.NaN;
}

/** Milliseconds from a numeric time column's values, its unit told by the size of its first value. */
function numericTimeUnit(first: number): (x: number) => number {
  const a = Math.abs(first);
  if (a < 1e11) return (x) => x * 1000; // seconds (1e11 s is the year 5138; 1e11 ms is 1973)
  if (a < 1e14) return (x) => x; // milliseconds
  if (a < 1e17) return (x) => x / 1e3; // microseconds (Binance's spot dumps since 2025)
  return (x) => x / 1e6; // nanoseconds
}

interface Layout {
  readonly time: number;
  readonly values: Record<ValueColumn, number | undefined>;
  readonly names: readonly string[];
}

const HEADERLESS = `a file without a header row has 6 fields (time, open, high, low, close, volume), 7 (+ turnover) or 12 (Binance klines); or add a header row naming the columns`;

function positional(path: string, line: number, n: number): Layout {
  const turnover = n === 12 ? 7 : n === 7 ? 6 : n === 6 ? undefined : -1;
  if (turnover === -1) throw new CandleFileError(`${path}:${line}: ${n} fields; ${HEADERLESS}`);
  return {
    time: 0,
    values: { open: 1, high: 2, low: 3, close: 4, volume: 5, turnover },
    names: ['time', 'open', 'high', 'low', 'close', 'volume', ...(turnover === 6 ? ['turnover'] : [])],
  };
}

function headed(path: string, header: readonly string[]): Layout {
  const { time, cols } = columnNames(path, header);
  const values = {} as Record<ValueColumn, number | undefined>;
  for (const c of VALUE_COLUMNS) values[c] = cols[c] === undefined ? undefined : header.indexOf(cols[c]);
  return { time: header.indexOf(time), values, names: header };
}

const unquote = (f: string): string => {
  const first = f.charCodeAt(0);
  const last = f.charCodeAt(f.length - 1);
  // The common field: no quote, no space at either end.
  if (first > 34 && last > 34) return f;
  const t = f.trim();
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1).trim() : t;
};

const withoutCr = (line: string): string =>
  line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;

/** Which of `,` `;` tab separates the fields of this line (the most frequent; a comma on a tie). */
function separatorOf(line: string): string {
  let best = ',';
  let most = line.split(',').length;
  for (const s of [';', '\t']) {
    const n = line.split(s).length;
    if (n > most) [best, most] = [s, n];
  }
  return best;
}

/** The candle columns of a foreign CSV, with the line of each row for refusals. */
function readCsv(path: string, bytes: Buffer): { cols: Columns; lineOf: Int32Array } {
  const text = readText(path, bytes);
  const lines = text.split('\n');
  let at = 0;
  while (at < lines.length && (lines[at] as string).trim() === '') at++;
  if (at === lines.length) throw new CandleFileError(`${path}: the file is empty`);
  const firstLine = withoutCr(lines[at] as string);
  const sep = separatorOf(firstLine);
  const first = firstLine.split(sep).map(unquote);
  const hasHeader = Number.isNaN(numberOf(first[0] ?? '')) && parseIsoTime(first[0] ?? '') === undefined;
  const layout = hasHeader ? headed(path, first) : positional(path, at + 1, first.length);
  if (hasHeader) at++;
  const cap = lines.length - at;
  const time = new Float64Array(cap);
  const values = {} as Record<ValueColumn, Float64Array | undefined>;
  for (const c of VALUE_COLUMNS)
    values[c] = layout.values[c] === undefined ? undefined : new Float64Array(cap);
  const lineOf = new Int32Array(cap);
  const width = Math.max(layout.time, ...VALUE_COLUMNS.map((c) => layout.values[c] ?? 0)) + 1;
  let toMs: ((x: number) => number) | undefined;
  let n = 0;
  for (let i = at; i < lines.length; i++) {
    const raw = withoutCr(lines[i] as string);
    if (raw.length === 0 || raw.trim() === '') continue;
    const line = i + 1;
    const f = raw.split(sep);
    if (f.length < width)
      throw new CandleFileError(
        `${path}:${line}: ${f.length} fields where the ${hasHeader ? 'header names' : 'first line has'} ${hasHeader ? layout.names.length : width}; every line needs every column`,
      );
    const ts = unquote(f[layout.time] as string);
    let t: number | undefined;
    const x = numberOf(ts);
    if (!Number.isNaN(x)) {
      if (toMs === undefined) {
        // A compact date (20240102) or a row counter is a number too, but no time a candle file holds.
        if (Math.abs(x) < 1e8)
          throw new CandleFileError(
            `${path}:${line}: ${layout.names[layout.time] ?? 'time'} ${ts} is no Unix time (as seconds it would be ${new Date(x * 1000).toISOString().slice(0, 10)}); write Unix seconds or milliseconds, or an ISO date such as 2024-01-02`,
          );
        toMs = numericTimeUnit(x);
      }
      t = toMs(x);
    } else t = parseIsoTime(ts);
    if (t === undefined)
      throw new CandleFileError(
        `${path}:${line}: ${layout.names[layout.time] ?? 'time'} ${JSON.stringify(ts)} is not a time: write Unix seconds or milliseconds, or an ISO date such as 2024-01-02 or 2024-01-02T14:30:00Z`,
      );
    time[n] = t;
    for (const c of VALUE_COLUMNS) {
      const k = layout.values[c];
      if (k === undefined) continue;
      const s = unquote(f[k] as string);
      const v = numberOf(s);
      if (Number.isNaN(v))
        throw new CandleFileError(
          /^[+-]?\d+,\d+$/.test(s)
            ? `${path}:${line}: ${layout.names[k] ?? c} ${JSON.stringify(s)} has a decimal comma; export the file with a decimal point (${s.replace(',', '.')})`
            : `${path}:${line}: ${layout.names[k] ?? c} ${JSON.stringify(s)} is not a number; every candle needs every field (delete the line, or fill it in)`,
        );
      (values[c] as Float64Array)[n] = v;
    }
    lineOf[n] = line;
    n++;
  }
  const cut = (a: Float64Array | undefined) => a?.subarray(0, n);
  const cutValues = {} as Record<ValueColumn, Float64Array | undefined>;
  for (const c of VALUE_COLUMNS) cutValues[c] = cut(values[c]);
  return { cols: { length: n, time: time.subarray(0, n), values: cutValues }, lineOf };
}

/** freqtrade's JSON candles: [[date, open, high, low, close, volume], ...], date in Unix ms. */
function readFreqtradeJson(path: string, bytes: Buffer): Columns {
  let rows: unknown;
  try {
    rows = JSON.parse(readText(path, bytes));
  } catch (e) {
    if (e instanceof CandleFileError) throw e;
    throw new CandleFileError(
      `${path}: not JSON (${e instanceof Error ? e.message : String(e)}); freqtrade's JSON candles are an array of [date, open, high, low, close, volume]`,
    );
  }
  if (!Array.isArray(rows))
    throw new CandleFileError(
      `${path}: not an array; freqtrade's JSON candles are an array of [date, open, high, low, close, volume]`,
    );
  const n = rows.length;
  const time = new Float64Array(n);
  const values = {} as Record<ValueColumn, Float64Array | undefined>;
  for (const c of VALUE_COLUMNS) values[c] = c === 'turnover' ? undefined : new Float64Array(n);
  const order = ['open', 'high', 'low', 'close', 'volume'] as const;
  for (let i = 0; i < n; i++) {
    const r = rows[i] as unknown;
    if (!Array.isArray(r) || r.length < 6 || !r.slice(0, 6).every((x) => typeof x === 'number'))
      throw new CandleFileError(
        `${path}: row ${i + 1}: ${JSON.stringify(r)?.slice(0, 80)} is not [date, open, high, low, close, volume] (numbers, date in Unix ms)`,
      );
    time[i] = r[0] as number;
    order.forEach((c, k) => ((values[c] as Float64Array)[i] = r[k + 1] as number));
  }
  return { length: n, time, values };
}

/**
 * Opens a foreign CSV or freqtrade JSON candle file; `o.instrument` gives the rules a file has none of. With a
 * cache folder, a file read whole before (same bytes, name and instrument) opens from its cached columns.
 */
export function openForeignText(
  path: string,
  o: ColumnarOptions = {},
  cacheDir: string | undefined = undefined,
): CandleSource {
  // A file read before opens from its cached columns without reading its bytes (its hash remembered).
  const recall = cacheDir === undefined ? undefined : hashRecall(path, cacheDir);
  const entryOf = (sha256: string) =>
    cacheDir === undefined ? undefined : foreignEntryPath(cacheDir, sha256, basename(path), o.instrument);
  const cached = (entry: string | undefined): CandleSource | undefined => {
    if (entry === undefined || !existsSync(entry)) return undefined;
    try {
      return openColumnarFile(entry, { checked: true });
    } catch {
      return undefined; // an entry that cannot be read is parsed over (and written again)
    }
  };
  const recalled = recall?.sha256 === undefined ? undefined : cached(entryOf(recall.sha256));
  if (recalled !== undefined) return recalled;
  const bytes = readFileSync(path);
  let entry: string | undefined;
  if (recall !== undefined) {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    recall.remember(sha256);
    entry = entryOf(sha256);
    const hit = cached(entry);
    if (hit !== undefined) return hit;
  }
  const json = /\.json(\.gz)?$/i.test(path);
  const { cols, lineOf } = json
    ? { cols: readFreqtradeJson(path, bytes), lineOf: undefined }
    : readCsv(path, bytes);
  if (cols.length === 0) throw new CandleFileError(`${path}: no candles in the file`);
  const meta = inferMeta(path, cols.time.subarray(0, 1000), o);
  const where = lineOf === undefined ? undefined : (i: number) => `:${lineOf[i] as number}`;
  return {
    meta,
    async *batches() {
      // The batches are views of whole columns (never reused): kept as they are for the cache.
      const parts: CandleBatch[] = [];
      for (const b of validated(path, meta, [cols], false, where)) {
        if (entry !== undefined) parts.push(b);
        yield b;
      }
      if (cacheDir !== undefined && entry !== undefined)
        writeCacheEntry(cacheDir, entry, meta, parts, cols.length);
    },
  };
}
