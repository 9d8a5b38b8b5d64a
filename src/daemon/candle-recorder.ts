// A paper run's candles recorded as it goes (venue.record): the candles each bot decides on, warm-up included,
// written by the `tradebot record` writer into one file per symbol and interval, so that the same period can be
// backtested afterwards and compared with the run (`tradebot compare`, docs/paper.md). A restart appends where
// the file stops, after the record command's resume checks: no candle twice, never into another recording.
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { CandleInterval, Instrument } from '../api/index.js';
import type { RestClient } from '../client/index.js';
import type { Deployment } from '../config/index.js';
import { CandleFileError, CandleFileWriter, metaFor, resumePoint } from '../data/format.js';
import { OutputPathError, prepareOutput } from '../data/output-path.js';
import type { Candle } from '../market/candle.js';
import type { Logger } from './logger.js';
import { StartRefused } from './start-checks.js';

/** The file a paper run records a symbol's candles of an interval into: `<dir>/<SYMBOL>-<interval>.csv`. */
export const recordedCandlesPath = (dir: string, symbol: string, interval: CandleInterval): string =>
  join(dir, `${symbol}-${interval}.csv`);

/** A candle as the recorded format's row: [openTime, open, high, low, close, volume, turnover] as text. */
const rowOf = (c: Candle): string[] =>
  [c.openTime, c.open, c.high, c.low, c.close, c.volume, c.turnover].map(String);

/** One file being appended to: its writer, and the open time of the last candle in it. */
interface RecordedFile {
  readonly writer: CandleFileWriter;
  last: number | undefined;
}

/** The recorder of a paper run: `see` each candle a bot decides on, `close` at shutdown. */
export interface CandleRecorder {
  see(c: Candle): void;
  close(): Promise<void>;
}

/**
 * Opens one file per symbol and interval the bots trade (bots trading the same share it). A file already
 * there must be a recording of the same symbol, category and interval (`resumePoint`, which throws a
 * CandleFileError naming the fix); every file is checked before one is opened. A candle at or before the
 * file's last one (a warm-up replayed after a restart, a second bot on the same symbol) is not written again.
 */
export function openCandleRecorder(
  dir: string,
  pairs: readonly { readonly symbol: string; readonly interval: CandleInterval }[],
  instruments: readonly Instrument[],
  source: string,
): { recorder: CandleRecorder; files: { path: string; resumesAfter: number | undefined }[] } {
  const plans = new Map<
    string,
    { path: string; instrument: Instrument; interval: CandleInterval; last: number | undefined }
  >();
  for (const { symbol, interval } of pairs) {
    const instrument = instruments.find((i) => i.symbol === symbol);
    const path = recordedCandlesPath(dir, symbol, interval);
    if (instrument === undefined || plans.has(path)) continue; // an unknown symbol is refused by checkPairs
    const last = resumePoint(path, { symbol, category: instrument.category, interval });
    plans.set(path, { path, instrument, interval, last });
  }
  const files = new Map<string, RecordedFile>();
  for (const p of plans.values()) {
    prepareOutput(p.path, { what: 'venue.record.dir', kind: 'file', example: 'paper-candles' });
    files.set(p.path, {
      writer: new CandleFileWriter(p.path, metaFor(p.instrument, p.interval, source)),
      last: p.last,
    });
  }
  const recorder: CandleRecorder = {
    see(c) {
      const f = files.get(recordedCandlesPath(dir, c.symbol, c.interval));
      if (f === undefined || (f.last !== undefined && c.openTime <= f.last)) return;
      f.writer.write(rowOf(c));
      f.last = c.openTime;
    },
    async close() {
      await Promise.all([...files.values()].map((f) => f.writer.close()));
    },
  };
  return {
    recorder,
    files: [...plans.values()].map((p) => ({ path: p.path, resumesAfter: p.last })),
  };
}

/**
 * The recorder of a paper deployment with `venue.record` (none otherwise), its files announced on the log. A
 * file that cannot be resumed or written refuses the start with exit 2 and the sentence that says the fix.
 */
export async function startPaperRecording(
  cfg: Deployment,
  client: Pick<RestClient, 'instruments'>,
  logger: Logger,
  stderr: Writable,
): Promise<CandleRecorder | undefined> {
  const v = cfg.venue;
  if (v.kind !== 'paper' || v.record === undefined) return undefined;
  const instruments = await client.instruments({ category: 'SPOT' });
  const pairs = cfg.bots.flatMap((b) => b.symbols.map((symbol) => ({ symbol, interval: b.interval })));
  try {
    const { recorder, files } = openCandleRecorder(v.record.dir, pairs, instruments, v.baseUrl);
    for (const f of files)
      logger.info('recording candles', {
        file: f.path,
        ...(f.resumesAfter !== undefined ? { resumesAfter: new Date(f.resumesAfter).toISOString() } : {}),
      });
    return recorder;
  } catch (e) {
    if (!(e instanceof CandleFileError) && !(e instanceof OutputPathError)) throw e;
    stderr.write(`tradebot: venue.record.dir: ${e.message}\n`);
    throw new StartRefused(2, 'the candles cannot be recorded there');
  }
}
