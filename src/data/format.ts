// The recorded-candle format (documented in backtest/README.md): CSV or JSONL, optionally gzipped, with a
// metadata header (symbol, category, interval and the instrument rules that applied). Files are read as
// a stream of columnar batches, so a run never holds a whole series in memory.
import {
  accessSync,
  closeSync,
  constants,
  createReadStream,
  createWriteStream,
  existsSync,
  openSync,
  readSync,
  readdirSync,
  statSync,
  truncateSync,
  type WriteStream,
} from 'node:fs';
import { join } from 'node:path';
import { constants as zlibConstants, createGunzip, gunzipSync } from 'node:zlib';
import { z } from 'zod';
import {
  CANDLE_INTERVALS,
  INTERVAL_MS,
  InstrumentSchema,
  type CandleInterval,
  type Instrument,
} from '../api/index.js';
import type { Candle } from '../market/candle.js';
import { candleProblem } from './candle-checks.js';

export const FORMAT_NAME = 'tradebot-candles';
export const FORMAT_VERSION = 1;
export const CSV_HEADER = 'openTime,open,high,low,close,volume,turnover';

export const CandleFileMetaSchema = z.strictObject({
  format: z.literal(FORMAT_NAME),
  version: z.literal(FORMAT_VERSION),
  symbol: z.string().min(1),
  category: z.enum(['SPOT', 'MARGIN', 'USDT-FUTURES', 'COIN-FUTURES', 'USDC-FUTURES']),
  interval: z.enum(CANDLE_INTERVALS),
  instrument: InstrumentSchema,
  source: z.string().optional(),
});
export type CandleFileMeta = z.infer<typeof CandleFileMetaSchema>;

/** Candles in columns: fast to fill and to loop over. */
export interface CandleBatch {
  length: number;
  readonly openTime: Float64Array;
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
  readonly volume: Float64Array;
  readonly turnover: Float64Array;
}

export const BATCH_SIZE = 16_384;

export function newBatch(size = BATCH_SIZE): CandleBatch {
  return {
    length: 0,
    openTime: new Float64Array(size),
    open: new Float64Array(size),
    high: new Float64Array(size),
    low: new Float64Array(size),
    close: new Float64Array(size),
    volume: new Float64Array(size),
    turnover: new Float64Array(size),
  };
}

/** Columns of `length` candles cut into batches of at most BATCH_SIZE: views over them, nothing copied. */
export function* batchesOf(cols: Omit<CandleBatch, 'length'>, length: number): Generator<CandleBatch> {
  for (let from = 0; from < length; from += BATCH_SIZE) {
    const to = Math.min(length, from + BATCH_SIZE);
    yield {
      length: to - from,
      openTime: cols.openTime.subarray(from, to),
      open: cols.open.subarray(from, to),
      high: cols.high.subarray(from, to),
      low: cols.low.subarray(from, to),
      close: cols.close.subarray(from, to),
      volume: cols.volume.subarray(from, to),
      turnover: cols.turnover.subarray(from, to),
    };
  }
}

/** Appends one candle to `b` (which must have room): open time, open, high, low, close, volume, turnover. */
export function appendCandle(
  b: CandleBatch,
  t: number,
  o: number,
  h: number,
  l: number,
  c: number,
  v: number,
  q: number,
): void {
  const i = b.length++;
  b.openTime[i] = t;
  b.open[i] = o;
  b.high[i] = h;
  b.low[i] = l;
  b.close[i] = c;
  b.volume[i] = v;
  b.turnover[i] = q;
}

/** A source of candles: its metadata and its batches (each batch may be reused after the next call). */
export interface CandleSource {
  readonly meta: CandleFileMeta;
  batches(): AsyncIterable<CandleBatch>;
}

export class CandleFileError extends Error {
  override readonly name = 'CandleFileError';
}

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | null)?.code;

/** Names of candle files, by extension: what a folder given as a dataset may hold. */
const CANDLE_FILE_RE = /\.(csv|jsonl|json|feather|arrow|ipc|parquet)(\.gz)?$/i;

/**
 * Checks that a dataset path names a readable regular file before any reader opens it, so a folder, a device or
 * a file this user cannot read is a sentence naming the path and the fix, not a bare EISDIR or EACCES.
 * `missing` is the fix for a path where there is nothing.
 */
export function checkCandleFile(path: string, missing: string): void {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    if (errno(e) === 'ENOENT' || errno(e) === 'ENOTDIR')
      throw new CandleFileError(`${path}: no such file; ${missing}`);
    throw new CandleFileError(
      `${path} cannot be read (${errno(e) ?? String(e)}); check the path and its permissions`,
    );
  }
  if (st.isDirectory()) {
    let inside: string[] = [];
    try {
      inside = readdirSync(path)
        .filter((n) => CANDLE_FILE_RE.test(n))
        .sort();
    } catch {
      // An unreadable folder: the sentence goes without its files.
    }
    const some = inside.slice(0, 3).map((n) => join(path, n));
    throw new CandleFileError(
      `${path} is a folder, not a candle file: name one file${some.length > 0 ? `, such as ${some.join(', ')}${inside.length > 3 ? ` (${inside.length} candle files there)` : ''}` : ' (a .csv, .jsonl, .feather or .parquet file)'}`,
    );
  }
  if (!st.isFile())
    throw new CandleFileError(
      `${path} is not a regular file (a device, pipe or socket): save the candles to a file and name that`,
    );
  try {
    accessSync(path, constants.R_OK);
  } catch (e) {
    throw new CandleFileError(
      `${path} cannot be read by this user (${errno(e) ?? 'error'}); fix its permissions or copy it somewhere readable`,
    );
  }
}

const isGz = (path: string) => path.endsWith('.gz');
const isJsonl = (path: string) => /\.jsonl(\.gz)?$/.test(path);

/** The first line of a (possibly gzipped) text file, without a byte-order mark. */
export function readFirstLine(path: string): string {
  // The header is small: read only the first 256 KiB of the (possibly gzipped) file.
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(1 << 18);
  const n = readSync(fd, buf, 0, buf.length, 0);
  closeSync(fd);
  const head = buf.subarray(0, n);
  let text: string;
  try {
    text = (isGz(path) ? gunzipSync(head, { finishFlush: zlibConstants.Z_SYNC_FLUSH }) : head).toString(
      'utf8',
    );
  } catch (e) {
    throw new CandleFileError(
      `${path}: not a gzip file (${e instanceof Error ? e.message : String(e)}); a name ending in .gz must hold gzip data`,
    );
  }
  // A byte-order mark (spreadsheets write one) is not part of the header.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const nl = text.indexOf('\n');
  return nl < 0 ? text : text.slice(0, nl);
}

function parseMeta(path: string, line: string): CandleFileMeta {
  const json = isJsonl(path) ? line : line.replace(/^#\s*tradebot-candles\s+v\d+\s+/, '');
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new CandleFileError(
      `${path}:1: the first line must be the metadata header (${isJsonl(path) ? '{"format":"tradebot-candles",...}' : '# tradebot-candles v1 {json}'}); see backtest/README.md`,
    );
  }
  const r = CandleFileMetaSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new CandleFileError(`${path}:1: metadata ${i?.path.join('.') ?? ''}: ${i?.message ?? 'invalid'}`);
  }
  return r.data;
}

/** Opens a recorded candle file (CSV or JSONL, .gz allowed). */
export function openCandleFile(path: string): CandleSource {
  checkCandleFile(path, 'record one with `tradebot record` or use a bundled dataset');
  const meta = parseMeta(path, readFirstLine(path));
  return { meta, batches: () => readBatches(path, meta) };
}

const FIELDS = CSV_HEADER.split(',');

/**
 * The columns of a tradebot CSV by its header line, by name (case aside): for each field of a row, the index of the
 * candle column it holds in CSV_HEADER's order, so columns written in another order read the same. A header that
 * is not the seven candle columns is refused with what it has and what is expected.
 */
export function csvColumnOrder(path: string, lineNo: number, header: string): number[] {
  const names = header.split(',').map((n) => n.trim().replace(/^"(.*)"$/, '$1'));
  const order = names.map((n) => FIELDS.findIndex((f) => f.toLowerCase() === n.toLowerCase()));
  const unknown = names.filter((_, i) => order[i] === -1);
  const twice = FIELDS.filter((_, k) => order.filter((o) => o === k).length > 1);
  const missing = FIELDS.filter((_, k) => !order.includes(k));
  if (unknown.length + twice.length + missing.length === 0) return order;
  const why = [
    unknown.length > 0
      ? `${unknown.map((n) => JSON.stringify(n)).join(', ')} ${unknown.length === 1 ? 'is no candle column' : 'are no candle columns'}`
      : '',
    twice.length > 0 ? `${twice.join(', ')} ${twice.length === 1 ? 'appears' : 'appear'} twice` : '',
    missing.length > 0 ? `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing` : '',
  ].filter((w) => w !== '');
  throw new CandleFileError(
    `${path}:${lineNo}: the header ${JSON.stringify(header)} is not a candle header (${why.join('; ')}); a tradebot candle CSV has the columns ${CSV_HEADER} (in any order): name them so, or read another tool's CSV without the \`# tradebot-candles\` line`,
  );
}

const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * One unsigned decimal of `s[start, end)` as the venue writes it (digits with at most one '.', no sign, no
 * exponent), or NaN when it is anything else. Up to 15 significant digits the value is an exact integer
 * divided by an exact power of ten, which IEEE division rounds exactly as Number() would, without the
 * substring Number() needs; longer fields take Number().
 */
export function parseDecimalField(s: string, start: number, end: number): number {
  let m = 0;
  let digits = 0;
  let dot = -1;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      m = m * 10 + (c - 48);
      digits++;
    } else if (c === 46 && dot < 0) dot = i;
    else return Number.NaN;
  }
  if (digits === 0 || dot === start || dot === end - 1) return Number.NaN;
  if (digits > 15) return Number(s.slice(start, end));
  return dot < 0 ? m : m / (POW10[end - dot - 1] as number);
}

/**
 * The lines of one tradebot CSV or JSONL file, each taken in turn into a batch: the metadata line, blank lines and
 * comments pass, a CSV header is read by name, and every row is parsed and checked against the one before it.
 */
class CandleRows {
  /** Lines taken so far: the line number a refusal names. */
  lineNo = 0;
  /** Candles read so far. */
  rows = 0;
  private readonly jsonl: boolean;
  private readonly step: number;
  private prev = -Infinity;
  private readonly fields = new Array<number>(7);
  // Field k of a row holds column slot[k]: CSV_HEADER's order unless the file's header says otherwise.
  private slot = [0, 1, 2, 3, 4, 5, 6];
  private header = CSV_HEADER;
  private seenRow = false;

  constructor(
    private readonly path: string,
    private readonly interval: CandleInterval,
  ) {
    this.jsonl = isJsonl(path);
    this.step = INTERVAL_MS[interval];
  }

  /** Refuses the file at a line (the last one taken unless told). */
  fail(msg: string, lineNo = this.lineNo): never {
    throw new CandleFileError(`${this.path}:${lineNo}: ${msg}`);
  }

  /** One line, without its end of line: its candle appended to `batch`, if it holds one. */
  take(line: string, batch: CandleBatch): void {
    this.lineNo++;
    if (this.holdsNoCandle(line)) return;
    this.parseFields(this.jsonl ? this.jsonArray(line) : line);
    const [t, o, h, l, c, v, q] = this.fields as [number, number, number, number, number, number, number];
    const problem = candleProblem(t, o, h, l, c, v, q, this.prev, this.step, this.interval);
    if (problem !== undefined) this.fail(problem);
    this.prev = t;
    this.rows++;
    appendCandle(batch, t, o, h, l, c, v, q);
  }

  /** The metadata line, a blank line, a comment or the CSV header (whose column order is kept). */
  private holdsNoCandle(line: string): boolean {
    if (this.lineNo === 1 || line === '') return true;
    if (this.jsonl) return false;
    if (line === this.header || line.charCodeAt(0) === 35) return true;
    if (this.seenRow) return false;
    this.seenRow = true;
    // The first line after the metadata that does not start with a digit is the header: read by name.
    const c = line.charCodeAt(0);
    if (c >= 48 && c <= 57) return false;
    this.slot = csvColumnOrder(this.path, this.lineNo, line);
    this.header = line;
    return true;
  }

  /** The inside of a JSONL row's array, its quotes dropped: the fields as a CSV row has them. */
  private jsonArray(line: string): string {
    const s = line.trim();
    if (s[0] !== '[' || s[s.length - 1] !== ']')
      this.fail('each line must be an array [openTime,open,high,low,close,volume,turnover]');
    return s.slice(1, -1).replaceAll('"', '');
  }

  /** The seven fields of a row, each into its column's place in `fields`. */
  private parseFields(s: string): void {
    let start = 0;
    for (let k = 0; k < 7; k++) {
      let end = s.indexOf(',', start);
      if (end < 0) {
        if (k < 6) this.fail(`${k + 1} fields where a candle has 7 (${CSV_HEADER})`);
        end = s.length;
      } else if (k === 6) this.fail(`${s.split(',').length} fields where a candle has 7 (${CSV_HEADER})`);
      const v = parseDecimalField(s, start, end);
      const col = this.slot[k] as number;
      if (Number.isNaN(v))
        this.fail(
          `field ${k + 1} (${FIELDS[col]}) ${JSON.stringify(s.slice(start, end))} is not a plain decimal: digits with at most one '.', no sign, no exponent (as the venue writes it)`,
        );
      this.fields[col] = v;
      start = end + 1;
    }
  }
}

/** A tradebot CSV or JSONL file (gzipped or not) as batches of checked candles, streamed. */
async function* readBatches(path: string, meta: CandleFileMeta): AsyncGenerator<CandleBatch> {
  let stream: NodeJS.ReadableStream = createReadStream(path, { highWaterMark: 1 << 20 });
  if (isGz(path)) stream = stream.pipe(createGunzip());
  const rows = new CandleRows(path, meta.interval);
  let batch = newBatch();
  let rest = '';
  try {
    for await (const chunk of stream) {
      const text = rest + (typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('latin1'));
      let pos = 0;
      for (let nl = text.indexOf('\n', pos); nl >= 0; nl = text.indexOf('\n', pos)) {
        rows.take(text.charCodeAt(nl - 1) === 13 ? text.slice(pos, nl - 1) : text.slice(pos, nl), batch);
        pos = nl + 1;
        if (batch.length === BATCH_SIZE) {
          yield batch;
          batch = newBatch();
        }
      }
      rest = text.slice(pos);
    }
  } catch (e) {
    if (e instanceof CandleFileError) throw e;
    // zlib's own words ("unexpected end of file", "incorrect header check") say what, not which file.
    throw new CandleFileError(
      `${path}: ${isGz(path) ? 'not a complete gzip file' : 'unreadable'} (${e instanceof Error ? e.message : String(e)}); ${isGz(path) ? 'download or compress it again' : 'check the file'}`,
    );
  }
  // The writer ends every line: a last line without one is what an interrupted download or recording leaves.
  if (rest.trim() !== '')
    rows.fail(
      'the last line has no end of line, so the file looks cut off; delete that line (or, if it is whole, end it with a newline) and resume with `tradebot record`',
      rows.lineNo + 1,
    );
  if (rows.rows === 0)
    throw new CandleFileError(
      `${path}: no candles after the header; record some with \`tradebot record\` or pick another file`,
    );
  if (batch.length > 0) yield batch;
}

/** Candles one by one (convenient, slower than batches). */
export async function* candlesOf(src: CandleSource): AsyncGenerator<Candle> {
  const { symbol, interval } = src.meta;
  for await (const b of src.batches()) {
    for (let i = 0; i < b.length; i++) {
      yield {
        symbol,
        interval,
        openTime: b.openTime[i] as number,
        open: b.open[i] as number,
        high: b.high[i] as number,
        low: b.low[i] as number,
        close: b.close[i] as number,
        volume: b.volume[i] as number,
        turnover: b.turnover[i] as number,
      };
    }
  }
}

/**
 * Appends candles to a CSV or JSONL file (header written when the file is new or empty). Not gzip: compress after.
 * To resume a recording, check the file first with `resumePoint`. The file is opened here, so a path that cannot be
 * written throws now; a write that fails later (a full disk) rejects `close()`.
 */
export class CandleFileWriter {
  private readonly out: WriteStream;
  private readonly jsonl: boolean;
  private failed: Error | undefined;
  constructor(
    readonly path: string,
    meta: CandleFileMeta,
  ) {
    if (isGz(path)) throw new CandleFileError(`${path}: write plain CSV or JSONL, then gzip it`);
    this.jsonl = isJsonl(path);
    // An interrupted recording may end in half a line: drop it, so the resumed lines follow a whole one.
    const keep = existsSync(path) ? completeLength(path) : 0;
    if (existsSync(path)) truncateSync(path, keep);
    const fresh = keep === 0;
    this.out = createWriteStream(path, { fd: openSync(path, 'a') });
    this.out.on('error', (e) => (this.failed ??= e));
    if (fresh)
      this.out.write(
        this.jsonl
          ? `${JSON.stringify(meta)}\n`
          : `# ${FORMAT_NAME} v${FORMAT_VERSION} ${JSON.stringify(meta)}\n${CSV_HEADER}\n`,
      );
  }
  /** Writes one candle given as wire strings [openTime, open, high, low, close, volume, turnover]. */
  write(row: readonly string[]): void {
    this.out.write(this.jsonl ? `${JSON.stringify(row)}\n` : `${row.join(',')}\n`);
  }
  close(): Promise<void> {
    return new Promise((resolve, reject) =>
      this.out.end((e?: Error | null) => {
        const err = e ?? this.failed;
        if (err) reject(err);
        else resolve();
      }),
    );
  }
}

/** Bytes of a file up to and including its last end of line (its whole size when it ends in one). */
function completeLength(path: string): number {
  const size = statSync(path).size;
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(Math.min(size, 1 << 16));
    readSync(fd, buf, 0, buf.length, size - buf.length);
    const nl = buf.lastIndexOf(10);
    return nl < 0 ? (size > buf.length ? size : 0) : size - buf.length + nl + 1;
  } finally {
    closeSync(fd);
  }
}

/** The whole lines at the end of a file (up to its last 64 KiB, the first partial line of that left out). */
function tailLines(path: string): string[] {
  const size = completeLength(path);
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(Math.min(size, 1 << 16));
  try {
    readSync(fd, buf, 0, buf.length, size - buf.length);
  } finally {
    closeSync(fd);
  }
  const lines = buf.toString('utf8').trimEnd().split('\n');
  // The first line of a window that does not start the file may be the end of a longer one.
  return size > buf.length ? lines.slice(1) : lines;
}

/** Open time of the last whole candle line of a file, to resume a recording (undefined when empty or missing). */
export function lastOpenTime(path: string): number | undefined {
  if (!existsSync(path)) return undefined;
  const lines = tailLines(path);
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = (lines[i] as string).trim();
    if (l === '' || l.startsWith('#') || l === CSV_HEADER) continue;
    const first = l.replace(/^\["?/, '').split(/[",]/)[0];
    const t = Number(first);
    if (Number.isFinite(t)) return t;
  }
  return undefined;
}

/** How many of the last candles `resumePoint` reads to check their spacing. */
const RESUME_CHECKED_ROWS = 50;

/**
 * Where a recording into `path` resumes: undefined for a new file (missing, or empty), else the open time of its last
 * whole candle, once the file is known to hold this recording: tradebot's metadata naming the same symbol, category
 * and interval, tradebot's CSV header (columns in the order the recorder appends them), and last candles that read as
 * candles of that interval (on its boundaries, in order). Anything else is refused with a CandleFileError that says
 * what the file holds and what to do: appending there would mix two series or write into a file of another kind.
 */
export function resumePoint(
  path: string,
  want: { readonly symbol: string; readonly category: string; readonly interval: CandleInterval },
): number | undefined {
  if (!existsSync(path)) return undefined;
  // A folder (or a device) where the file would be: said with its path, not a raw EISDIR.
  checkCandleFile(path, 'record into a new file');
  if (completeLength(path) === 0) return undefined;
  const fix = 'record into a new file (another --out), or move this one away';
  let meta: CandleFileMeta;
  try {
    meta = parseMeta(path, readFirstLine(path));
  } catch (e) {
    if (!(e instanceof CandleFileError)) throw e;
    throw new CandleFileError(
      `${path} exists and is not a tradebot candle file, so a recording cannot resume there (${e.message}); ${fix}`,
    );
  }
  const differs = [
    meta.symbol !== want.symbol ? `symbol ${meta.symbol}` : '',
    meta.category !== want.category ? `category ${meta.category}` : '',
    meta.interval !== want.interval ? `interval ${meta.interval}` : '',
  ].filter((d) => d !== '');
  if (differs.length > 0)
    throw new CandleFileError(
      `${path} holds ${meta.symbol} ${meta.category} ${meta.interval} candles (its header), not ${want.symbol} ${want.category} ${want.interval}: a recording resumes only into a file of the same ${differs.map((d) => d.split(' ')[0]).join(', ')}; ${fix}`,
    );
  const jsonl = isJsonl(path);
  const lines = tailLines(path);
  const rows: string[] = [];
  for (let i = lines.length - 1; i >= 0 && rows.length < RESUME_CHECKED_ROWS; i--) {
    const l = (lines[i] as string).trim();
    if (l === '' || l.startsWith('#') || (!jsonl && l === CSV_HEADER)) continue;
    // A header of another order (or another tool) at the file's start: appended rows would not match it.
    if (!jsonl && !/^\d/.test(l))
      throw new CandleFileError(
        `${path}: the line ${JSON.stringify(l.slice(0, 80))} is no candle of this recorder (its columns are ${CSV_HEADER}); ${fix}`,
      );
    if (jsonl && i === 0 && l.startsWith('{')) continue; // the metadata line of a short JSONL file
    rows.unshift(jsonl ? l.replace(/^\[|\]$/g, '').replaceAll('"', '') : l);
  }
  const step = INTERVAL_MS[want.interval];
  let prev = -Infinity;
  for (const row of rows) {
    const f = row.split(',');
    const v = f.map((x) => parseDecimalField(x, 0, x.length));
    const problem =
      f.length !== 7 || v.some(Number.isNaN)
        ? `${JSON.stringify(row.slice(0, 80))} is not a candle (${CSV_HEADER})`
        : candleProblem(
            ...(v as [number, number, number, number, number, number, number]),
            prev,
            step,
            want.interval,
          );
    if (problem !== undefined)
      throw new CandleFileError(
        `${path}: its last candles do not read as ${want.interval} candles (${problem}), so a recording cannot resume there; ${fix}`,
      );
    prev = v[0] as number;
  }
  return rows.length === 0 ? undefined : prev;
}

/** Metadata for a new file from a wire instrument. */
export const metaFor = (
  instrument: Instrument,
  interval: CandleInterval,
  source?: string,
): CandleFileMeta => ({
  format: FORMAT_NAME,
  version: FORMAT_VERSION,
  symbol: instrument.symbol,
  category: instrument.category,
  interval,
  instrument,
  ...(source !== undefined ? { source } : {}),
});
