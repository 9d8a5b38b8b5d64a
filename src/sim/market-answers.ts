// The simulator's answers to the public market endpoints (spec 4.1): instruments, RPI symbols, tickers
// with their futures and delivery fields, order books as raw JSON numbers, candles, and the US market's
// states and calendar.
import type { CandleInterval, Category, Instrument, ParamsOut, RpiSymbol, Ticker } from '../api/index.js';
import { INTERVAL_MS, isFuturesCategory } from '../api/index.js';
import { isEasternDst } from '../market/sessions.js';
import { US_SESSIONS, US_SPECIFIC_CLOSURES, US_WEEKLY_CLOSURES } from '../market/us-calendar.js';
import type { InstrumentTable } from './instrument-table.js';
import { formatUnits } from './day-block.js';

/** instruments: a category's rows, or one symbol's. */
export function instrumentsOf(
  table: InstrumentTable,
  category: Category,
  symbol: string | undefined,
): Instrument[] {
  if (symbol !== undefined) return [table.need(category, symbol).wire];
  return table.inCategory(category).map((i) => i.wire);
}

/** rpi-symbols: the symbols with RPI liquidity, by lower-case category (MARGIN pairs are not listed). */
export function rpiSymbols(table: InstrumentTable): RpiSymbol[] {
  return table.all
    .filter((i) => i.rpi && i.wire.category !== 'MARGIN')
    .map((i) => ({ category: i.wire.category.toLowerCase(), symbol: i.wire.symbol }));
}

/** Delivery status of a delivery contract at an instant (spec 3.2). */
export function deliveryStatus(wire: Instrument, now: number): string | undefined {
  if (wire.deliveryTime === undefined || wire.deliveryStartTime === undefined) return undefined;
  const start = Number(wire.deliveryStartTime);
  const time = Number(wire.deliveryTime);
  if (now < start) return 'delivery_config_period';
  if (now < time - 10 * 60_000) return 'delivery_normal';
  if (now < time) return 'delivery_before';
  return 'delivery_period';
}

/** tickers: a category's, or one symbol's, at an instant. */
export function tickers(
  table: InstrumentTable,
  category: Category,
  symbol: string | undefined,
  now: number,
): Ticker[] {
  const list = symbol !== undefined ? [table.need(category, symbol)] : table.inCategory(category);
  return list.map((inst) => {
    const m = table.marketOf(inst);
    const extra: Partial<Ticker> = {};
    if (isFuturesCategory(category)) Object.assign(extra, m.futuresFields(now));
    const status = deliveryStatus(inst.wire, now);
    if (status !== undefined) {
      Object.assign(extra, {
        deliveryStartTime: inst.wire.deliveryStartTime,
        deliveryTime: inst.wire.deliveryTime,
        deliveryStatus: status,
      });
    }
    const t = m.ticker(now, extra);
    if (inst.wire.isReality === 'yes') t.platformTurnover24h = t.turnover24h;
    return { ...t, category: inst.wire.category };
  });
}

/**
 * tickers as the JSON text of the wire array, kept per query: within one second and book cadence, with
 * the same delivery statuses, the list differs only in its `ts` fields (the ticker's fields move no faster,
 * see InstrumentMarket.ticker), so it is kept cut at them and joined with each instant's `ts`.
 */
export class TickerLists {
  private readonly kept = new Map<string, { sec: number; slot: number; statuses: string; parts: string[] }>();

  constructor(
    private readonly table: InstrumentTable,
    private readonly cadenceMs: number,
  ) {}

  json(category: Category, symbol: string | undefined, now: number): string {
    const list = symbol !== undefined ? [this.table.need(category, symbol)] : this.table.inCategory(category);
    const statuses = list.map((i) => deliveryStatus(i.wire, now) ?? '').join(',');
    const sec = Math.floor(now / 1000);
    const slot = Math.floor(now / this.cadenceMs);
    const key = `${category}|${symbol ?? ''}`;
    const ts = `"ts":"${now}"`;
    let k = this.kept.get(key);
    if (k?.sec !== sec || k.slot !== slot || k.statuses !== statuses) {
      k = {
        sec,
        slot,
        statuses,
        parts: JSON.stringify(tickers(this.table, category, symbol, now)).split(ts),
      };
      this.kept.set(key, k);
    }
    return k.parts.join(ts);
  }
}

/** orderbook and rpi-orderbook: the book's JSON, levels as raw JSON numbers. */
export function bookJson(
  table: InstrumentTable,
  category: Category,
  symbol: string,
  limit: number,
  rpi: boolean,
  now: number,
): string {
  const m = table.marketOf(table.need(category, symbol));
  const { asks, bids } = m.book(now, limit);
  // Levels are JSON numbers on the wire (spec 2.4): written as raw literals from exact decimal strings.
  const lv = (l: { price: number; qty: number; rpiQty: number }): string =>
    rpi
      ? `[${formatUnits(l.price, m.pp)},${formatUnits(l.qty, m.qp)},${formatUnits(l.rpiQty, m.qp)}]`
      : `[${formatUnits(l.price, m.pp)},${formatUnits(l.qty, m.qp)}]`;
  return `{"a":[${asks.map(lv).join(',')}],"b":[${bids.map(lv).join(',')}],"ts":"${now}"}`;
}

/**
 * Candles newest-anchored, as the JSON text of the wire array: the latest `limit` open times up to endTime (or now). History candles
 * follow spec 4.1 rule 1 as the venue does: startTime bounds the first open time, except that when
 * endTime passes an interval boundary (is not a multiple of the interval) the answer starts one
 * interval earlier. Clients must drop what they did not ask for (client/candles-range.ts does).
 */
export function candlesJson(
  table: InstrumentTable,
  p: ParamsOut<'candles'>,
  now: number,
  history = false,
): string {
  const m = table.marketOf(table.need(p.category, p.symbol));
  const interval = p.interval as CandleInterval;
  const step = INTERVAL_MS[interval];
  const end = Math.min(p.endTime ?? now, now);
  const lastOpen = Math.floor(end / step) * step;
  const extra = history && p.endTime !== undefined && p.endTime % step !== 0 ? step : 0;
  const firstAllowed =
    p.startTime === undefined
      ? -Infinity
      : history
        ? Math.ceil(p.startTime / step) * step - extra
        : Math.floor(p.startTime / step) * step;
  if (lastOpen < firstAllowed) return '[]';
  const count = Math.min(
    p.limit,
    Math.floor((lastOpen - Math.max(firstAllowed, lastOpen - (p.limit - 1) * step)) / step) + 1,
  );
  const firstOpen = lastOpen - (count - 1) * step;
  const type = m.inst.wire.category === 'SPOT' || m.inst.wire.category === 'MARGIN' ? 'market' : p.type;
  return m.candlesJson(interval, firstOpen, lastOpen, now, type);
}

/** market-states: the US market's sessions, with whether Eastern time is on DST at `now`. */
export function marketStates(now: number) {
  return [
    {
      market: 'US',
      daylightType: isEasternDst(now) ? 'dst' : 'standard',
      stateList: US_SESSIONS.map((s) => ({
        state: s.state,
        timeZone: 'ET',
        startTime: s.startTime,
        endTime: s.endTime,
      })),
    },
  ];
}

/** market-calendar: the US market's holidays, early closes and weekly closures. */
export function marketCalendar() {
  return {
    timeZone: 'EST',
    // Holidays (00:00-23:59) and early closes (13:00-20:00), from the one list the client's
    // built-in calendar is made of.
    specificConfig: US_SPECIFIC_CLOSURES.map((c) => ({ ...c })),
    regularConfig: [...US_WEEKLY_CLOSURES],
  };
}
