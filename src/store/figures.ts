// What the journal says of a bot's figures beyond its fills: its counts (the deployment's, across restarts),
// the venue's last traded price of each symbol with its time (the mark every surface values positions at), and
// each symbol's instrument (its minimum order quantity tells dust from a position).
import type { Instrument } from '../api/index.js';
import { Decimal } from '../market/decimal.js';
import { parseInstrument, type InstrumentRules } from '../market/instrument-rules.js';
import type { Store } from './store.js';

/** A bot's intents, denials, orders and fills in the journal: the deployment's, across restarts. */
export interface JournalCounts {
  readonly intents: number;
  readonly denials: number;
  readonly orders: number;
  readonly fills: number;
}

const count = (s: Store, table: keyof JournalCounts, bot: string): number =>
  s.db.prepare(`SELECT COUNT(*) FROM ${table} WHERE bot = ?`).pluck().get(bot) as number;

/** The journal's counts of one bot. */
export function journalCounts(s: Store, bot: string): JournalCounts {
  return {
    intents: count(s, 'intents', bot),
    denials: count(s, 'denials', bot),
    orders: count(s, 'orders', bot),
    fills: count(s, 'fills', bot),
  };
}

/** The journal's counts by the labels of the daemon's counters: what a restarted daemon's metrics start from. */
export interface JournalCounters {
  readonly bot: string;
  readonly intents: number;
  /** Denials by code. */
  readonly denials: Readonly<Record<string, number>>;
  /** Orders answered, by outcome (acked, rejected); one still pending has no outcome yet. */
  readonly orders: Readonly<Record<string, number>>;
  /** Fills by source: venue (read from the venue) or estimated (their execId starts with `estimatedPrefix`). */
  readonly fills: { readonly venue: number; readonly estimated: number };
  /** Margin liquidations' fills by symbol. */
  readonly liquidations: Readonly<Record<string, number>>;
}

/** Every bot's counts in the journal, by label (see JournalCounters). */
export function journalCounters(s: Store, estimatedPrefix: string): JournalCounters[] {
  type Row = { bot: string; key: string; n: number };
  const rows = (sql: string, ...args: unknown[]): Row[] => s.db.prepare(sql).all(...args) as Row[];
  const out = new Map<
    string,
    {
      intents: number;
      denials: Record<string, number>;
      orders: Record<string, number>;
      fills: { venue: number; estimated: number };
      liquidations: Record<string, number>;
    }
  >();
  const of = (bot: string) => {
    let c = out.get(bot);
    if (c === undefined)
      out.set(
        bot,
        (c = { intents: 0, denials: {}, orders: {}, fills: { venue: 0, estimated: 0 }, liquidations: {} }),
      );
    return c;
  };
  for (const r of rows(
    `SELECT bot, '' AS key, COUNT(*) AS n FROM intents WHERE bot IS NOT NULL GROUP BY bot`,
  ))
    of(r.bot).intents = r.n;
  for (const r of rows(
    `SELECT bot, code AS key, COUNT(*) AS n FROM denials WHERE bot IS NOT NULL GROUP BY bot, code`,
  ))
    of(r.bot).denials[r.key] = r.n;
  for (const r of rows(
    `SELECT bot, state AS key, COUNT(*) AS n FROM orders WHERE bot IS NOT NULL AND state <> 'pending' GROUP BY bot, state`,
  ))
    of(r.bot).orders[r.key] = r.n;
  for (const r of rows(
    `SELECT bot, CASE WHEN substr(exec_id, 1, length(?)) = ? THEN 'estimated' ELSE 'venue' END AS key, COUNT(*) AS n
       FROM fills WHERE bot IS NOT NULL GROUP BY bot, key`,
    estimatedPrefix,
    estimatedPrefix,
  ))
    of(r.bot).fills[r.key as 'venue' | 'estimated'] = r.n;
  for (const r of rows(
    `SELECT bot, symbol AS key, COUNT(*) AS n FROM fills WHERE bot IS NOT NULL AND liquidation = 1 GROUP BY bot, symbol`,
  ))
    of(r.bot).liquidations[r.key] = r.n;
  return [...out].map(([bot, c]) => ({ bot, ...c }));
}

/** The venue's last traded price of a symbol and the venue time it was read at. */
export interface LastPrice {
  readonly price: Decimal;
  readonly ts: number;
}

const lastPriceKey = (symbol: string): string => `last-price:${symbol}`;

/**
 * Journals a symbol's last traded price (deferred: it commits with the next journal write, or at close), so a
 * reader of the journal (`tradebot status`, a restart) values positions as the running daemon did.
 */
export function journalLastPrice(s: Store, symbol: string, price: string, ts: number): void {
  const key = lastPriceKey(symbol);
  const value = JSON.stringify({ price, ts });
  s.deferWrite(key, () => s.meta.set(key, value));
}

const instrumentKey = (symbol: string): string => `instrument:${symbol}`;
/** Per journal, the instrument last journaled of each symbol, and its JSON. */
const journaled = new WeakMap<Store, Map<string, { readonly wire: Instrument; readonly json: string }>>();

/**
 * Journals a symbol's instrument as the venue gave it (deferred, as the last price), so a reader of the journal
 * (`tradebot status`, `positions`) tells dust from a position by the venue's minimum order quantity. Undefined (no
 * rules yet) journals nothing.
 */
export function journalInstrument(s: Store, instrument: Instrument | undefined): void {
  if (instrument === undefined) return;
  // Written when it changes: the caller may ask at every price, with the same instrument until the next poll of them.
  let seen = journaled.get(s);
  if (seen === undefined) journaled.set(s, (seen = new Map()));
  const last = seen.get(instrument.symbol);
  if (last?.wire === instrument) return;
  const value = JSON.stringify(instrument);
  seen.set(instrument.symbol, { wire: instrument, json: value });
  if (last?.json === value) return;
  const key = instrumentKey(instrument.symbol);
  s.deferWrite(key, () => s.meta.set(key, value));
}

/** A symbol's journaled instrument rules; undefined when none was journaled (or it is unreadable). */
export function readInstrumentRules(s: Store, symbol: string): InstrumentRules | undefined {
  const raw = s.meta.get(instrumentKey(symbol));
  if (raw === undefined) return undefined;
  try {
    return parseInstrument(JSON.parse(raw) as Instrument);
  } catch {
    return undefined;
  }
}

/** A symbol's journaled last traded price; undefined when none (or unreadable: then the fill price stands). */
export function readLastPrice(s: Store, symbol: string): LastPrice | undefined {
  const raw = s.meta.get(lastPriceKey(symbol));
  if (raw === undefined) return undefined;
  try {
    const v = JSON.parse(raw) as { price?: unknown; ts?: unknown };
    if (typeof v.price !== 'string' || typeof v.ts !== 'number') return undefined;
    const price = new Decimal(v.price);
    return price.gt(0) ? { price, ts: v.ts } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The daemon's reading of the venue's clock: its time at a wall-clock time, its speed, and whether it is a
 * simulator's (whose clock runs only while it does). Written at the start and at a clean stop.
 */
export interface VenueClockReading {
  readonly venueTs: number;
  readonly wallTs: number;
  readonly speed: number;
  readonly simulated: boolean;
}

const VENUE_CLOCK_KEY = 'venue-clock';
const RUN_MARKER = 'daemon:run';

/** Where the running daemon of a journal answers /readyz (journaled when it starts serving it). */
const HEALTH_URL_KEY = 'daemon:health-url';

/** Journals where the daemon of this journal serves /readyz, so `tradebot status` can ask it. */
export function journalHealthUrl(s: Store, url: string): void {
  s.meta.set(HEALTH_URL_KEY, url);
}

/** Where the daemon of this journal said it serves /readyz, while its run marker says it runs. */
export function runningHealthUrl(s: Store): string | undefined {
  return s.meta.get(RUN_MARKER) === 'running' ? s.meta.get(HEALTH_URL_KEY) : undefined;
}

export function journalVenueClock(s: Store, r: VenueClockReading): void {
  s.meta.set(VENUE_CLOCK_KEY, JSON.stringify(r));
}

/**
 * The venue clock's now, for a reader of the journal (`trades --since 10m`): while the daemon runs, its last
 * reading advanced by the wall time since at its speed; after it stopped, the wall clock for a real venue, and
 * for a simulator the newest venue time the journal holds (its clock stopped with the run). Without a reading
 * (a journal older than it), the wall clock.
 */
/** Whether the journal says its daemon runs (started, no clean stop since; a killed one still reads running). */
export const daemonRunning = (s: Store): boolean => s.meta.get(RUN_MARKER) === 'running';

export function venueNow(s: Store, wallNow: number): number {
  let r: VenueClockReading | undefined;
  try {
    r = JSON.parse(s.meta.get(VENUE_CLOCK_KEY) ?? 'null') as VenueClockReading | undefined;
  } catch {
    r = undefined;
  }
  if (r === null || r === undefined || typeof r.venueTs !== 'number') return wallNow;
  if (s.meta.get(RUN_MARKER) === 'running') return Math.floor(r.venueTs + (wallNow - r.wallTs) * r.speed);
  if (!r.simulated) return wallNow;
  const newest = s.db
    .prepare(
      `SELECT MAX(t) FROM (SELECT MAX(ts) AS t FROM fills UNION ALL SELECT MAX(ts) FROM intents
        UNION ALL SELECT MAX(CAST(json_extract(value, '$.ts') AS INTEGER)) FROM meta WHERE key LIKE 'last-price:%')`,
    )
    .pluck()
    .get() as number | null;
  return Math.max(r.venueTs, newest ?? 0);
}
