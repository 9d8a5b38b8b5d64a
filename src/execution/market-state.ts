// The market state the risk gate judges an intent against: each symbol's rules and latest quote, the US
// session and the suspensions. The live bot fills it from its feeds, the backtester from replayed candles.
import type { DeliveryStatus } from '../api/index.js';
import { Decimal } from '../market/decimal.js';
import type { InstrumentRules } from '../market/instrument-rules.js';
import type { SessionState } from '../market/sessions.js';
import type { MarketSnapshot } from '../risk/gate.js';

/** A symbol's latest quote as the gate needs it. Kept raw (wire strings or floats) until an intent needs it. */
export interface Quote {
  last: string | number;
  bid: string | number | undefined;
  ask: string | number | undefined;
  /** When the quote was received (a poll's time) or produced (a candle's close). */
  ts: number;
  deliveryStatus: DeliveryStatus | undefined;
}

/** A quote record before any price is known (every quote record has this shape). */
export function emptyQuote(): Quote {
  return { last: 0, bid: undefined, ask: undefined, ts: 0, deliveryStatus: undefined };
}

/**
 * The market state the gate judges an intent against, fed by the driver: the live bot from its feeds
 * (instruments, tickers, session, suspensions), the backtester from the replayed candles.
 */
export class MarketState {
  private readonly rulesBySymbol = new Map<string, InstrumentRules>();
  private readonly quotes = new Map<string, Quote>();
  private readonly suspendedSymbols = new Set<string>();
  private current: SessionState | undefined;

  setRules(symbol: string, rules: InstrumentRules): void {
    this.rulesBySymbol.set(symbol, rules);
  }
  rules(symbol: string): InstrumentRules | undefined {
    return this.rulesBySymbol.get(symbol);
  }
  /** The quote record of a symbol, created on first use; the driver updates its fields in place. */
  quote(symbol: string): Quote {
    let q = this.quotes.get(symbol);
    if (q === undefined) {
      q = emptyQuote();
      this.quotes.set(symbol, q);
    }
    return q;
  }
  hasQuote(symbol: string): boolean {
    return this.quotes.has(symbol);
  }
  setSession(s: SessionState): void {
    this.current = s;
  }
  session(): SessionState | undefined {
    return this.current;
  }
  setSuspended(symbol: string, suspended: boolean): void {
    if (suspended) this.suspendedSymbols.add(symbol);
    else this.suspendedSymbols.delete(symbol);
  }
  suspended(symbol: string): boolean {
    return this.suspendedSymbols.has(symbol);
  }
  /** The market snapshot of a symbol, in Decimals (built per intent, never per candle). */
  snapshot(symbol: string): MarketSnapshot | undefined {
    const q = this.quotes.get(symbol);
    if (q === undefined) return undefined;
    const last = new Decimal(q.last);
    return {
      last,
      bid: q.bid === undefined || q.bid === '' ? undefined : new Decimal(q.bid),
      ask: q.ask === undefined || q.ask === '' ? undefined : new Decimal(q.ask),
      ts: q.ts,
    };
  }
}
