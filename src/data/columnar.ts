// Feather/Arrow IPC and Parquet candle files: read straight into the columnar batches the engine loops over
// (no text to parse, which is what makes a backtest from a file as fast as from memory), and written with the
// tradebot metadata. Files without that metadata, such as freqtrade's `<pair>-<timeframe>.feather`, are read
// through the column mapping documented in backtest/README.md, with the instrument given by the caller.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import {
  CompressionType,
  DataType,
  TimeUnit,
  compressionRegistry,
  tableFromIPC,
  type RecordBatch,
  type Table,
  type Vector,
} from 'apache-arrow';
import { parquetMetadata, parquetRead, type FileMetaData } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import lz4 from 'lz4js';
import type { z } from 'zod';
import {
  CANDLE_INTERVALS,
  INTERVAL_MS,
  InstrumentSchema,
  type CandleInterval,
  type Instrument,
} from '../api/index.js';
import { formatDuration } from '../market/duration.js';
import {
  batchesOf,
  CandleFileError,
  CandleFileMetaSchema,
  FORMAT_NAME,
  FORMAT_VERSION,
  type CandleBatch,
  type CandleFileMeta,
  type CandleSource,
} from './format.js';
import { candleProblem } from './candle-checks.js';

/** The key of the tradebot metadata (the CSV header's JSON) in an Arrow schema or Parquet key-value metadata. */
export const META_KEY = FORMAT_NAME;

// freqtrade writes Feather with LZ4 frames by default; apache-arrow decodes them through a registered codec.
compressionRegistry.set(CompressionType.LZ4_FRAME, {
  encode: (data: Uint8Array) => lz4.compress(data),
  decode: (data: Uint8Array) => lz4.decompress(data),
});

export type ColumnarKind = 'arrow' | 'parquet';

/** Which columnar format a path names by its extension, or undefined for any other file. */
export function columnarKind(path: string): ColumnarKind | undefined {
  if (/\.(feather|arrow|ipc)$/i.test(path)) return 'arrow';
  if (/\.parquet$/i.test(path)) return 'parquet';
  return undefined;
}

/** Instrument rules given by the user for a file that carries none (command line or backtest YAML). */
export const InstrumentOverrideSchema = InstrumentSchema.partial();
export type InstrumentOverride = z.infer<typeof InstrumentOverrideSchema>;

export interface ColumnarOptions {
  /** Instrument rules for a file without tradebot metadata; symbol, coins and category default from the name. */
  readonly instrument?: InstrumentOverride | undefined;
  /**
   * The rows were checked when the file was written (the columnar cache writes only validated candles, and its
   * name is their source's content hash): skip the row checks. Never set for a file a user gives.
   */
  readonly checked?: boolean | undefined;
}

// The column mapping: first name found wins (case-insensitive). freqtrade: date, open, high, low, close, volume.
const TIME_NAMES = ['openTime', 'open_time', 'date', 'datetime', 'timestamp', 'time'];
const VALUE_NAMES = {
  open: ['open'],
  high: ['high'],
  low: ['low'],
  close: ['close'],
  volume: ['volume'],
  turnover: ['turnover', 'quote_volume', 'quoteVolume'],
} as const;
export type ValueColumn = keyof typeof VALUE_NAMES;
export const VALUE_COLUMNS = Object.keys(VALUE_NAMES) as ValueColumn[];

const FREQTRADE_TIMEFRAMES: Readonly<Record<string, CandleInterval>> = {
  '1m': '1m',
  '3m': '3m',
  '5m': '5m',
  '15m': '15m',
  '30m': '30m',
  '1h': '1H',
  '4h': '4H',
  '6h': '6H',
  '12h': '12H',
  '1d': '1D',
};

/** `BTC_USDT-1m.feather`, `BTC_USDT_USDT-1h-futures.feather`: the pair and interval freqtrade encodes in a name. */
export function parseFreqtradeName(
  path: string,
): { base: string; quote: string; interval: CandleInterval | undefined; futures: boolean } | undefined {
  const m = /^([A-Z0-9]+)_([A-Z0-9]+)(?:_[A-Z0-9]+)?-(\d+[a-zA-Z])(?:-([a-z_]+))?\.[a-z]+$/i.exec(
    basename(path).replace(/\.gz$/i, ''),
  );
  if (!m) return undefined;
  const tf = m[3] as string;
  return {
    base: (m[1] as string).toUpperCase(),
    quote: (m[2] as string).toUpperCase(),
    interval:
      FREQTRADE_TIMEFRAMES[tf] ??
      ((CANDLE_INTERVALS as readonly string[]).find((i) => i === tf) as CandleInterval | undefined),
    futures: m[4] === 'futures',
  };
}

const find = (names: readonly string[], present: readonly string[]) => {
  const lower = new Map(present.map((p) => [p.toLowerCase(), p]));
  for (const n of names) {
    const hit = lower.get(n.toLowerCase());
    if (hit !== undefined) return hit;
  }
  return undefined;
};

function parseMetaJson(path: string, json: string): CandleFileMeta {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new CandleFileError(
      `${path}: the ${META_KEY} metadata is not JSON; write the file again with \`tradebot data convert\``,
    );
  }
  const r = CandleFileMetaSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new CandleFileError(`${path}: metadata ${i?.path.join('.') ?? ''}: ${i?.message ?? 'invalid'}`);
  }
  return r.data;
}

/** The metadata of a file that carries none: interval from the name or the data, instrument from the caller. */
export function inferMeta(path: string, firstTimes: Float64Array, o: ColumnarOptions): CandleFileMeta {
  const ft = parseFreqtradeName(path);
  let interval = ft?.interval;
  if (interval === undefined) {
    // The smallest gap among the first candles is the interval (gaps only ever make it larger; the rows'
    // order is checked later, with its line).
    let gap = Infinity;
    for (let i = 1; i < firstTimes.length; i++) {
      const d = (firstTimes[i] as number) - (firstTimes[i - 1] as number);
      if (d > 0) gap = Math.min(gap, d);
    }
    interval = CANDLE_INTERVALS.find((i) => INTERVAL_MS[i] === gap);
    if (interval === undefined) {
      const ext = /(\.[a-z]+(\.gz)?)$/i.exec(basename(path))?.[1] ?? '.feather';
      const why =
        gap === Infinity
          ? 'too few candles to tell it by'
          : `its first candles are ${formatDuration(gap)} apart, which is no candle interval (${CANDLE_INTERVALS.join(', ')})`;
      throw new CandleFileError(
        `${path}: no tradebot metadata and no interval in the name, and ${why}; name it like freqtrade, <BASE>_<QUOTE>-<timeframe>${ext} (e.g. BTC_USDT-1m${ext})`,
      );
    }
  }
  const given = o.instrument ?? {};
  const base = given.baseCoin ?? ft?.base;
  const quote = given.quoteCoin ?? ft?.quote;
  const candidate = {
    category: ft?.futures ? 'USDT-FUTURES' : 'SPOT',
    status: 'online',
    ...(base !== undefined && quote !== undefined
      ? { symbol: `${base}${quote}`, baseCoin: base, quoteCoin: quote }
      : {}),
    ...given,
  };
  const r = InstrumentSchema.safeParse(candidate);
  if (!r.success) {
    const fields = r.error.issues.map((i) => i.path.join('.'));
    // The example names what is missing: the coins only when the name did not give them.
    const example = JSON.stringify({
      ...(fields.some((f) => ['symbol', 'baseCoin', 'quoteCoin'].includes(f))
        ? { symbol: 'AAPLUSDT', baseCoin: 'AAPL', quoteCoin: 'USDT' }
        : {}),
      pricePrecision: '2',
      quantityPrecision: '4',
    });
    throw new CandleFileError(
      `${path} carries no instrument rules (a freqtrade or foreign file): give them with --instrument '${example}' or \`instrument:\` in the backtest YAML (missing or invalid: ${fields.join(', ')}); see backtest/README.md`,
    );
  }
  const instrument: Instrument = r.data;
  return {
    format: FORMAT_NAME,
    version: FORMAT_VERSION,
    symbol: instrument.symbol,
    category: instrument.category as CandleFileMeta['category'],
    interval,
    instrument,
    source: basename(path),
  };
}

const TIME_SCALE: Record<number, number> = {
  [TimeUnit.SECOND]: 1000,
  [TimeUnit.MILLISECOND]: 1,
  [TimeUnit.MICROSECOND]: 1e-3,
  [TimeUnit.NANOSECOND]: 1e-6,
};

/** Any numeric or temporal column as Float64 (a Float64 column without nulls is used as is, not copied). */
function toFloat64(values: ArrayLike<number | bigint>, scale = 1): Float64Array {
  if (values instanceof Float64Array && scale === 1) return values;
  const out = new Float64Array(values.length);
  if (values instanceof BigInt64Array) {
    // Nanoseconds and microseconds divide exactly into milliseconds on any candle grid.
    const div = scale < 1 ? BigInt(Math.round(1 / scale)) : 1n;
    const mul = scale >= 1 ? scale : 1;
    for (let i = 0; i < values.length; i++) out[i] = Number((values[i] as bigint) / div) * mul;
  } else for (let i = 0; i < values.length; i++) out[i] = Number(values[i]) * scale;
  return out;
}

function arrowTimeScale(v: Vector): number {
  const t = v.type as DataType;
  if (DataType.isTimestamp(t)) return TIME_SCALE[t.unit] ?? 1;
  if (DataType.isDate(t)) return t.unit === 0 ? 86_400_000 : 1; // DateUnit.DAY or MILLISECOND
  if (DataType.isInt(t) || DataType.isFloat(t)) return 1;
  throw new Error(`the time column is ${String(t)}; it must be a timestamp, a date or Unix milliseconds`);
}

/** One part of a file's candles as columns (`values.turnover` may be absent). */
export interface Columns {
  readonly length: number;
  readonly time: Float64Array;
  readonly values: Record<ValueColumn, Float64Array | undefined>;
}

/**
 * Index of the first row from `from` that may not be a valid candle after `prev`, or -1: the common case in one
 * expression (NaN fails every comparison; the floor test is exact below 2^53 and far cheaper than %). A plain
 * function rather than a loop inside the generator, so V8 optimises it; candleProblem then words the sentence.
 */
function firstBadRow(
  t: Float64Array,
  open: Float64Array,
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  volume: Float64Array,
  turnover: Float64Array,
  from: number,
  prev: number,
  step: number,
): number {
  for (let i = from; i < t.length; i++) {
    const ti = t[i] as number;
    const o = open[i] as number;
    const h = high[i] as number;
    const l = low[i] as number;
    const c = close[i] as number;
    const v = volume[i] as number;
    const q = turnover[i] as number;
    if (!(
      ti > prev &&
      ti <= Number.MAX_SAFE_INTEGER &&
      Math.floor(ti / step) * step === ti &&
      l > 0 &&
      l <= o &&
      l <= c &&
      h >= o &&
      h >= c &&
      h < Infinity &&
      v >= 0 &&
      v < Infinity &&
      q >= 0 &&
      q < Infinity
    ))
      return i;
    prev = ti;
  }
  return -1;
}

/**
 * Checks every row (same rules as the CSV reader) and yields engine batches; rows are numbered across parts,
 * and `where(i)` names row i (from 0) in a refusal after the path (`: row 7` by default, `:8` for a line).
 */
export function* validated(
  path: string,
  meta: CandleFileMeta,
  parts: Iterable<Columns>,
  checked = false,
  where: (row: number) => string = (i) => `: row ${i + 1}`,
): Generator<CandleBatch> {
  const step = INTERVAL_MS[meta.interval];
  let prev = -Infinity;
  let row = 0;
  for (const p of parts) {
    const { open, high, low, close, volume } = p.values;
    if (!open || !high || !low || !close || !volume) throw new Error('unreachable: columns checked at open');
    let turnover = p.values.turnover;
    if (turnover === undefined) {
      // freqtrade keeps no quote volume: estimate it as volume x close (only reports use it).
      turnover = new Float64Array(p.length);
      for (let i = 0; i < p.length; i++) turnover[i] = (volume[i] as number) * (close[i] as number);
    }
    const t = p.time;
    if (!checked) {
      for (let from = 0; ;) {
        const bad = firstBadRow(
          t,
          open,
          high,
          low,
          close,
          volume,
          turnover,
          from,
          from > 0 ? (t[from - 1] as number) : prev,
          step,
        );
        if (bad < 0) break;
        const before = bad > 0 ? (t[bad - 1] as number) : prev;
        const problem = candleProblem(
          t[bad] as number,
          open[bad] as number,
          high[bad] as number,
          low[bad] as number,
          close[bad] as number,
          volume[bad] as number,
          turnover[bad] as number,
          before,
          step,
          meta.interval,
        );
        if (problem !== undefined) throw new CandleFileError(`${path}${where(row + bad)}: ${problem}`);
        from = bad + 1;
      }
    }
    if (p.length > 0) prev = t[p.length - 1] as number;
    row += p.length;
    yield* batchesOf({ openTime: t, open, high, low, close, volume, turnover }, p.length);
  }
  if (row === 0) throw new CandleFileError(`${path}: no candles in the file`);
}

/** The file's column for openTime and for each value (turnover may be missing), or a refusal naming them. */
export function columnNames(path: string, present: readonly string[]) {
  const time = find(TIME_NAMES, present);
  const cols = {} as Record<ValueColumn, string | undefined>;
  for (const c of VALUE_COLUMNS) cols[c] = find(VALUE_NAMES[c], present);
  const missing = [
    ...(time === undefined ? ['openTime (or date)'] : []),
    ...(['open', 'high', 'low', 'close', 'volume'] as const).filter((c) => cols[c] === undefined),
  ];
  if (time === undefined || missing.length > 0)
    throw new CandleFileError(
      `${path}: no column ${missing.join(', ')} (it has ${present.join(', ')}); candle columns are openTime or date, open, high, low, close, volume and optionally turnover`,
    );
  return { time, cols };
}

function openArrow(path: string, o: ColumnarOptions): CandleSource {
  let table: Table;
  try {
    table = tableFromIPC(readFileSync(path));
  } catch (e) {
    throw new CandleFileError(
      `${path}: not a readable Feather/Arrow IPC file (${e instanceof Error ? e.message : String(e)}); freqtrade's Feather (uncompressed or LZ4) and tradebot's own are read`,
    );
  }
  const { time, cols } = columnNames(
    path,
    table.schema.fields.map((f) => f.name),
  );
  const partOf = (b: RecordBatch): Columns => {
    const tv = b.getChild(time) as Vector;
    const nulls = [tv, ...VALUE_COLUMNS.map((c) => (cols[c] ? b.getChild(cols[c]) : null))].find(
      (v) => v && v.nullCount > 0,
    );
    if (nulls)
      throw new CandleFileError(
        `${path}: a column holds empty (null) values; every candle needs every field`,
      );
    let scale: number;
    try {
      scale = arrowTimeScale(tv);
    } catch (e) {
      throw new CandleFileError(`${path}: ${(e as Error).message}`);
    }
    const values = {} as Record<ValueColumn, Float64Array | undefined>;
    for (const c of VALUE_COLUMNS) {
      const name = cols[c];
      values[c] =
        name === undefined
          ? undefined
          : toFloat64((b.getChild(name) as Vector).toArray() as ArrayLike<number>);
    }
    return { length: b.numRows, time: toFloat64(tv.toArray() as ArrayLike<number | bigint>, scale), values };
  };
  const json = table.schema.metadata.get(META_KEY);
  let meta: CandleFileMeta;
  if (json !== undefined) meta = parseMetaJson(path, json);
  else {
    const first = table.batches[0];
    meta = inferMeta(path, first ? partOf(first).time.subarray(0, 1000) : new Float64Array(0), o);
  }
  return {
    meta,
    async *batches() {
      yield* validated(
        path,
        meta,
        (function* () {
          for (const b of table.batches) yield partOf(b);
        })(),
        o.checked,
      );
    },
  };
}

function openParquet(path: string, o: ColumnarOptions): CandleSource {
  const buf = readFileSync(path);
  const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
  let md: FileMetaData;
  try {
    md = parquetMetadata(file);
  } catch (e) {
    throw new CandleFileError(
      `${path}: not a readable Parquet file (${e instanceof Error ? e.message : String(e)})`,
    );
  }
  const present = md.schema.slice(1).map((s) => s.name);
  const { time, cols } = columnNames(path, present);
  const timeElement = md.schema.find((s) => s.name === time);
  // hyparquet turns TIMESTAMP columns into Date objects or bigints; either becomes milliseconds below.
  const unit = timeElement?.logical_type?.type === 'TIMESTAMP' ? timeElement.logical_type.unit : undefined;
  const timeScale =
    unit === 'MICROS'
      ? 1e-3
      : unit === 'NANOS'
        ? 1e-6
        : timeElement?.converted_type === 'TIMESTAMP_MICROS'
          ? 1e-3
          : 1;
  const n = Number(md.num_rows);
  const read = async (): Promise<Columns> => {
    const wanted = [time, ...VALUE_COLUMNS.map((c) => cols[c]).filter((c): c is string => c !== undefined)];
    const out = new Map<string, Float64Array>(wanted.map((w) => [w, new Float64Array(n)]));
    await parquetRead({
      file,
      metadata: md,
      columns: wanted,
      onChunk: ({ columnName, columnData, rowStart }) => {
        const dst = out.get(columnName);
        if (!dst) return;
        const isTime = columnName === time;
        for (let i = 0; i < columnData.length && rowStart + i < n; i++) {
          const v = columnData[i] as unknown;
          let x: number;
          if (typeof v === 'number') x = isTime ? v * timeScale : v;
          else if (typeof v === 'bigint')
            // Nanoseconds since 1970 exceed 2^53: divide as bigints first, then convert exactly.
            x = isTime && timeScale < 1 ? Number(v / BigInt(Math.round(1 / timeScale))) : Number(v);
          else if (v instanceof Date) x = v.getTime();
          else
            throw new CandleFileError(
              `${path}: row ${rowStart + i + 1}: ${columnName} is ${v === null || v === undefined ? 'empty' : typeof v}; every field must be a number`,
            );
          dst[rowStart + i] = x;
        }
      },
    });
    const values = {} as Record<ValueColumn, Float64Array | undefined>;
    for (const c of VALUE_COLUMNS) values[c] = cols[c] === undefined ? undefined : out.get(cols[c] as string);
    return { length: n, time: out.get(time) as Float64Array, values };
  };
  const json = md.key_value_metadata?.find((kv) => kv.key === META_KEY)?.value;
  let metaP: CandleFileMeta | undefined = json !== undefined ? parseMetaJson(path, json) : undefined;
  let columnsP: Promise<Columns> | undefined;
  if (metaP === undefined) {
    // Without metadata the interval may have to come from the data: read it now (once).
    const ft = parseFreqtradeName(path);
    if (ft?.interval === undefined)
      throw new CandleFileError(
        `${path}: no tradebot metadata and no interval in the name; name it like freqtrade, <BASE>_<QUOTE>-<timeframe>.parquet (e.g. BTC_USDT-1m.parquet)`,
      );
    metaP = inferMeta(path, new Float64Array(0), o);
  }
  const meta = metaP;
  return {
    meta,
    async *batches() {
      columnsP ??= read();
      const cols = await columnsP;
      columnsP = undefined;
      yield* validated(path, meta, [cols]);
    },
  };
}

/** Opens a Feather/Arrow IPC or Parquet candle file (the whole file is read at once; columns are not copied). */
export function openColumnarFile(path: string, o: ColumnarOptions = {}): CandleSource {
  const kind = columnarKind(path);
  if (kind === undefined) throw new CandleFileError(`${path}: not a .feather, .arrow, .ipc or .parquet file`);
  return kind === 'arrow' ? openArrow(path, o) : openParquet(path, o);
}

export const COLUMNS = ['openTime', 'open', 'high', 'low', 'close', 'volume', 'turnover'] as const;

/** Every batch of a source, copied into whole columns (batches may be reused by their source). */
export async function collectColumns(
  source: CandleSource,
): Promise<Record<(typeof COLUMNS)[number], Float64Array> & { length: number }> {
  const parts: CandleBatch[] = [];
  let length = 0;
  for await (const b of source.batches()) {
    if (b.length === 0) continue;
    const copy = { length: b.length } as CandleBatch & Record<string, unknown>;
    for (const c of COLUMNS) (copy as unknown as Record<string, Float64Array>)[c] = b[c].slice(0, b.length);
    parts.push(copy);
    length += b.length;
  }
  const out = { length } as Record<(typeof COLUMNS)[number], Float64Array> & { length: number };
  for (const c of COLUMNS) {
    const col = new Float64Array(length);
    let at = 0;
    for (const p of parts) {
      col.set(p[c], at);
      at += p.length;
    }
    out[c] = col;
  }
  return out;
}

/** Writes whole columns as a Parquet file (DOUBLE columns, Snappy) with the metadata. */
export function writeParquetFile(
  path: string,
  meta: CandleFileMeta,
  cols: Record<(typeof COLUMNS)[number], Float64Array>,
): void {
  const buf = parquetWriteBuffer({
    columnData: COLUMNS.map((c) => ({ name: c, data: cols[c], type: 'DOUBLE' as const, nullable: false })),
    kvMetadata: [{ key: META_KEY, value: JSON.stringify(meta) }],
    createdBy: 'tradebot',
  });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, new Uint8Array(buf));
  renameSync(tmp, path);
}
