// What the drift monitor reads and keeps: each candle a bot decided on, with the OHLCV it saw and the venue
// time it decided (warm-up, replay or live), and each drift report (src/drift) as JSON with its counts.
import type { Database, Statement } from 'better-sqlite3';
import { StoreError, textColumn, tsColumn } from './columns.js';

export const DECISION_PHASES = ['warm_up', 'replay', 'live'] as const;
/**
 * How a candle reached the strategy: `warm_up` (its intents are not sent: the strategy's warm-up, or a
 * candle decided before a restart), `replay` (closed longer ago than signals may be: a backfill, a gap),
 * `live` (a signal on it may trade).
 */
export type DecisionPhase = (typeof DECISION_PHASES)[number];

/** A candle as a bot decided on it; prices and volume as decimal text. */
export interface DecidedCandle {
  readonly bot: string;
  readonly symbol: string;
  readonly interval: string;
  readonly openTime: number;
  readonly open: string;
  readonly high: string;
  readonly low: string;
  readonly close: string;
  readonly volume: string;
  /** Venue time (the daemon's clock of it) when the strategy saw the candle. */
  readonly decidedTs: number;
  readonly phase: DecisionPhase;
}

interface DecidedRow {
  bot: string;
  symbol: string;
  interval: string;
  open_time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  decided_ts: number;
  phase: string;
}

const toDecided = (r: DecidedRow): DecidedCandle => ({
  bot: r.bot,
  symbol: r.symbol,
  interval: r.interval,
  openTime: r.open_time,
  open: r.open,
  high: r.high,
  low: r.low,
  close: r.close,
  volume: r.volume,
  decidedTs: r.decided_ts,
  phase: r.phase as DecisionPhase,
});

/** The decided candles of the journal, in the order they were decided. */
export class DecidedCandleRepository {
  private readonly insertStmt: Statement<
    [string, string, string, number, string, string, string, string, string, number, string],
    unknown
  >;
  private readonly listStmt: Statement<[string, number, number], DecidedRow>;

  constructor(db: Database) {
    this.insertStmt = db.prepare(
      `INSERT INTO decided_candles (bot, symbol, interval, open_time, open, high, low, close, volume, decided_ts, phase)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.listStmt = db.prepare(
      `SELECT bot, symbol, interval, open_time, open, high, low, close, volume, decided_ts, phase
       FROM decided_candles WHERE bot = ? AND decided_ts >= ? AND decided_ts < ? ORDER BY id`,
    );
  }

  record(c: DecidedCandle): void {
    if (!(DECISION_PHASES as readonly string[]).includes(c.phase))
      throw new StoreError(
        `decided candle phase must be one of ${DECISION_PHASES.join(', ')}, got ${c.phase}`,
      );
    this.insertStmt.run(
      textColumn(c.bot, 'bot'),
      textColumn(c.symbol, 'symbol'),
      textColumn(c.interval, 'interval'),
      tsColumn(c.openTime, 'openTime'),
      c.open,
      c.high,
      c.low,
      c.close,
      c.volume,
      tsColumn(c.decidedTs, 'decidedTs'),
      c.phase,
    );
  }

  /** A bot's decided candles with `fromTs <= decidedTs < toTs`, in the order decided. */
  list(bot: string, fromTs = 0, toTs = Number.MAX_SAFE_INTEGER): DecidedCandle[] {
    return this.listStmt.all(bot, fromTs, toTs).map(toDecided);
  }
}

/** A kept drift report: its span, counts and the report itself (JSON, as src/drift writes it). */
export interface DriftReportRecord {
  readonly id: number;
  readonly bot: string;
  readonly from: number;
  readonly to: number;
  readonly differences: number;
  readonly unexplained: number;
  readonly report: unknown;
  readonly ts: number;
}

interface ReportRow {
  id: number;
  bot: string;
  span_from: number;
  span_to: number;
  differences: number;
  unexplained: number;
  report: string;
  ts: number;
}

const toReport = (r: ReportRow): DriftReportRecord => ({
  id: r.id,
  bot: r.bot,
  from: r.span_from,
  to: r.span_to,
  differences: r.differences,
  unexplained: r.unexplained,
  report: JSON.parse(r.report) as unknown,
  ts: r.ts,
});

/** The drift reports, oldest first. */
export class DriftReportRepository {
  private readonly insertStmt: Statement<[string, number, number, number, number, string, number], unknown>;
  private readonly listStmt: Statement<[string, string, number], ReportRow>;
  private readonly latestStmt: Statement<[], ReportRow>;
  private readonly latestIdStmt: Statement<[string], { id: number | null }>;
  private readonly briefStmt: Statement<[], Omit<ReportRow, 'report'>>;
  private readonly byIdStmt: Statement<[number], ReportRow>;

  constructor(db: Database) {
    this.insertStmt = db.prepare(
      `INSERT INTO drift_reports (bot, span_from, span_to, differences, unexplained, report, ts)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.listStmt = db.prepare(
      `SELECT * FROM (SELECT id, bot, span_from, span_to, differences, unexplained, report, ts FROM drift_reports
         WHERE (? = '' OR bot = ?) ORDER BY id DESC LIMIT ?) ORDER BY id`,
    );
    this.latestStmt = db.prepare(
      `SELECT id, bot, span_from, span_to, differences, unexplained, report, ts FROM drift_reports
        WHERE id IN (SELECT MAX(id) FROM drift_reports GROUP BY bot) ORDER BY bot`,
    );
    this.latestIdStmt = db.prepare(`SELECT MAX(id) AS id FROM drift_reports WHERE bot = ?`);
    this.briefStmt = db.prepare(
      `SELECT id, bot, span_from, span_to, differences, unexplained, ts FROM drift_reports
        WHERE id IN (SELECT MAX(id) FROM drift_reports GROUP BY bot) ORDER BY bot`,
    );
    this.byIdStmt = db.prepare(
      `SELECT id, bot, span_from, span_to, differences, unexplained, report, ts FROM drift_reports WHERE id = ?`,
    );
  }

  /** Keeps a report; answers its id. */
  record(r: Omit<DriftReportRecord, 'id'>): number {
    const out = this.insertStmt.run(
      textColumn(r.bot, 'bot'),
      tsColumn(r.from, 'from'),
      tsColumn(r.to, 'to'),
      r.differences,
      r.unexplained,
      JSON.stringify(r.report),
      tsColumn(r.ts),
    ) as { lastInsertRowid: number | bigint };
    return Number(out.lastInsertRowid);
  }

  /** The newest `limit` reports (of one bot, or of all), oldest first. */
  list(bot?: string, limit = 100): DriftReportRecord[] {
    return this.listStmt.all(bot ?? '', bot ?? '', limit).map(toReport);
  }

  /** The id of a bot's newest report (undefined before the first): cheap, for a reader that caches reports. */
  latestId(bot: string): number | undefined {
    return this.latestIdStmt.get(bot)?.id ?? undefined;
  }

  /** One report by its id. */
  byId(id: number): DriftReportRecord | undefined {
    const r = this.byIdStmt.get(id);
    return r === undefined ? undefined : toReport(r);
  }

  /** Each bot's newest report's span and counts, without the report (cheap: /readyz reads it at every probe). */
  latestBrief(): Omit<DriftReportRecord, 'report'>[] {
    return this.briefStmt.all().map((r) => ({
      id: r.id,
      bot: r.bot,
      from: r.span_from,
      to: r.span_to,
      differences: r.differences,
      unexplained: r.unexplained,
      ts: r.ts,
    }));
  }

  /** Each bot's newest report. */
  latestByBot(): Map<string, DriftReportRecord> {
    return new Map(this.latestStmt.all().map((r) => [r.bot, toReport(r)]));
  }
}
