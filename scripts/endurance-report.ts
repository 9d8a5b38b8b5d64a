// What the endurance run measures of the product, read from the daemon's journal after (or during) the run:
// per simulated day the orders, fills, intents, STALE_SIGNAL and BELOW_MIN_QTY denials, rejected orders,
// acknowledged market orders without a fill, bots stuck on dust, and the decision lateness of the orders
// placed (the journal time of the order minus the close of the candle that triggered it, both venue time:
// the trigger time is written out in every clientOid, see src/execution/client-oid.ts). The US calendar's
// open hours of each day are counted too: a Reality pair makes no candle while the market is closed, so
// orders are compared per open hour.
import Database from 'better-sqlite3';
import { ZERO, type Decimal } from '../src/market/decimal.js';
import { isDust } from '../src/market/dust.js';
import { parseInstrument, type InstrumentRules } from '../src/market/instrument-rules.js';
import { usSessionAt } from '../src/market/sessions.js';
import { simInstruments } from '../src/sim/instruments.js';

export const DAY_MS = 86_400_000;
const MIN = 60_000;

/** One simulated day's figures (day 1 is the first day of the run). */
export interface DayFigures {
  readonly day: number;
  /** Share of the day the run covered (the last one may be partial). */
  readonly covered: number;
  /** Hours of the day (of the part covered) the US market was open in any session. */
  readonly openHours: number;
  readonly intents: number;
  readonly orders: number;
  readonly rejected: number;
  readonly fills: number;
  readonly staleSignal: number;
  readonly belowMinQty: number;
  /** Acknowledged market orders with no fill journaled under their clientOid. */
  readonly ackedWithoutFill: number;
  /** `fill not booked` lines the daemon logged while the venue's clock was in this day. */
  readonly unbooked: number;
  /** Bots that placed no order in the day while holding only dust or denied BELOW_MIN_QTY (open days only). */
  readonly dustStopped: readonly string[];
  /** Decision lateness of the day's orders, venue seconds. */
  readonly latenessP50: number;
  readonly latenessP99: number;
}

const pct = (xs: number[], p: number): number => {
  if (xs.length === 0) return Number.NaN;
  xs.sort((a, b) => a - b);
  return xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] as number;
};

/** The trigger time a clientOid writes out (characters 18-26, base 36), undefined for a hashed one. */
export function triggerTimeOf(clientOid: string): number | undefined {
  if (!/^tb[0-9a-z]{30}$/.test(clientOid)) return undefined;
  const t = parseInt(clientOid.slice(18, 27), 36);
  return Number.isFinite(t) ? t : undefined;
}

/** Open minutes of the US market (any session) in [from, to), minute by minute. */
function openHours(from: number, to: number): number {
  let open = 0;
  for (let t = from; t < to; t += MIN) if (usSessionAt(t).session !== 'closed') open++;
  return open / 60;
}

interface Row {
  readonly ts: number;
}

/**
 * Reads the journal at `path` (read only) for a run that started at `start` (venue ms) and reached `end`;
 * `unbookedAt` are the venue times of the daemon's `fill not booked` lines; `extraPairs` the simulator's.
 */
export function journalDays(
  path: string,
  start: number,
  end: number,
  unbookedAt: readonly number[],
  extraPairs: number,
): DayFigures[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const rules = new Map<string, InstrumentRules>(
      simInstruments(start, extraPairs).map((i) => [i.wire.symbol, parseInstrument(i.wire)]),
    );
    const intents = db.prepare('SELECT ts FROM intents').all() as Row[];
    const denials = db.prepare('SELECT bot, code, ts FROM denials').all() as (Row & {
      bot: string;
      code: string;
    })[];
    const orders = db
      .prepare('SELECT client_oid AS oid, bot, order_type AS type, state, created_ts AS ts FROM orders')
      .all() as (Row & { oid: string; bot: string; type: string; state: string })[];
    const fills = db
      .prepare('SELECT bot, symbol, side, size, ts, client_oid AS oid FROM fills ORDER BY seq')
      .all() as (Row & { bot: string; symbol: string; side: string; size: string; oid: string | null })[];
    const bots = (db.prepare('SELECT DISTINCT bot FROM intents').all() as { bot: string }[]).map(
      (r) => r.bot,
    );
    const filled = new Set(fills.map((f) => f.oid));
    const days = Math.max(1, Math.ceil((end - start) / DAY_MS));
    const dayOf = (ts: number) => Math.floor((ts - start) / DAY_MS);
    const count = <T extends Row>(rows: readonly T[], d: number, keep: (r: T) => boolean = () => true) =>
      rows.reduce((n, r) => n + (dayOf(r.ts) === d && keep(r) ? 1 : 0), 0);
    // Each bot's position by symbol, carried from day to day.
    const held = new Map<string, Map<string, Decimal>>(bots.map((b) => [b, new Map()]));
    let nextFill = 0;
    const out: DayFigures[] = [];
    for (let d = 0; d < days; d++) {
      const from = start + d * DAY_MS;
      const to = Math.min(end, from + DAY_MS);
      for (; nextFill < fills.length && (fills[nextFill] as Row).ts < to; nextFill++) {
        const f = fills[nextFill] as (typeof fills)[number];
        const book = held.get(f.bot) ?? new Map<string, Decimal>();
        held.set(f.bot, book);
        const q = book.get(f.symbol) ?? ZERO;
        book.set(f.symbol, f.side === 'buy' ? q.plus(f.size) : q.minus(f.size));
      }
      const open = openHours(from, to);
      const lateness = orders
        .filter((o) => dayOf(o.ts) === d)
        .flatMap((o) => {
          const t = triggerTimeOf(o.oid);
          return t === undefined ? [] : [(o.ts - t) / 1000];
        });
      const dustStopped =
        open < 6
          ? []
          : bots.filter((b) => {
              if (orders.some((o) => o.bot === b && dayOf(o.ts) === d)) return false;
              const denied = denials.some(
                (x) => x.bot === b && x.code === 'BELOW_MIN_QTY' && dayOf(x.ts) === d,
              );
              const dust = [...(held.get(b) ?? new Map<string, Decimal>())].some(([s, q]) =>
                isDust(rules.get(s), q),
              );
              return denied || dust;
            });
      out.push({
        day: d + 1,
        covered: (to - from) / DAY_MS,
        openHours: open,
        intents: count(intents, d),
        orders: count(orders, d),
        rejected: count(orders, d, (o) => o.state === 'rejected'),
        fills: count(fills, d),
        staleSignal: count(denials, d, (x) => x.code === 'STALE_SIGNAL'),
        belowMinQty: count(denials, d, (x) => x.code === 'BELOW_MIN_QTY'),
        ackedWithoutFill: count(
          orders,
          d,
          (o) => o.state === 'acked' && o.type === 'market' && !filled.has(o.oid),
        ),
        unbooked: unbookedAt.filter((t) => dayOf(t) === d).length,
        dustStopped,
        latenessP50: pct(lateness, 50),
        latenessP99: pct(lateness, 99),
      });
    }
    return out;
  } finally {
    db.close();
  }
}

/** What a short trial at one speed shows: whether the daemon keeps up. */
export interface Trial {
  readonly intents: number;
  readonly staleSignal: number;
  readonly orders: number;
  readonly latenessP50: number;
  readonly latenessP99: number;
}

/** The intents, STALE_SIGNAL denials and the orders' decision lateness (venue seconds) from venue time `from` on. */
export function trialSince(path: string, from: number): Trial {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const one = (sql: string) => (db.prepare(sql).get(from) as { n: number }).n;
    const rows = db
      .prepare('SELECT client_oid AS oid, created_ts AS ts FROM orders WHERE created_ts >= ?')
      .all(from) as { oid: string; ts: number }[];
    const xs = rows.flatMap((r) => {
      const t = triggerTimeOf(r.oid);
      return t === undefined ? [] : [(r.ts - t) / 1000];
    });
    return {
      intents: one('SELECT COUNT(*) AS n FROM intents WHERE ts >= ?'),
      staleSignal: one("SELECT COUNT(*) AS n FROM denials WHERE code = 'STALE_SIGNAL' AND ts >= ?"),
      orders: rows.length,
      latenessP50: pct([...xs], 50),
      latenessP99: pct(xs, 99),
    };
  } finally {
    db.close();
  }
}

/** Candles the bots decided so far, summed over bots and symbols (each bot's journal mark of its last candle). */
export function decidedCandles(path: string, start: number): number {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare("SELECT value FROM meta WHERE key LIKE 'candle:%'").all() as { value: string }[];
    return rows.reduce((n, r) => n + Math.max(0, (Number(r.value) - start) / MIN), 0);
  } finally {
    db.close();
  }
}
