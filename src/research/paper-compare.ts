// A paper run against the backtest of the same candles, trade by trade: each execution (an order's fills)
// of the paper journal paired with the backtest's execution of the same symbol, side and tag nearest in time, with
// the price difference and the fill model's reason for it (docs/paper.md, "What a paper fill means").
import type { Decimal } from '../market/decimal.js';
import { groupFills } from '../market/fill-groups.js';

/** One execution: an order's fills together (size-weighted price). */
export interface Execution {
  readonly ts: number;
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly tag: string;
  readonly price: Decimal;
  readonly size: Decimal;
  readonly fills: number;
  readonly liquidity: 'maker' | 'taker' | 'mixed';
  /** Paper only: the age of the order book the taker fills were priced on, ms. */
  readonly bookAgeMs?: number | undefined;
}

/** A fill as either side gives it. */
export interface CompareFill {
  readonly ts: number;
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly price: Decimal;
  readonly size: Decimal;
  readonly liquidity: 'maker' | 'taker';
  readonly tag: string;
  /** What makes fills one execution: the paper order's clientOid; the backtest's ts and tag. */
  readonly key: string;
  readonly bookAgeMs?: number | undefined;
}

/** One row of the comparison. */
export interface ComparedTrade {
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly tag: string;
  readonly paper: Execution | undefined;
  readonly backtest: Execution | undefined;
  /** (paper - backtest) / backtest in basis points, signed so that positive is worse for the trader. */
  readonly costBps: number | undefined;
  readonly why: string;
}

/** Fills grouped into executions, in the order of their first fill. */
export function executionsOf(fills: readonly CompareFill[]): Execution[] {
  return groupFills(fills).map(({ fills: g, first, size, price }) => {
    const kinds = new Set(g.map((f) => f.liquidity));
    const ages = g.flatMap((f) => (f.bookAgeMs === undefined ? [] : [f.bookAgeMs]));
    return {
      ts: first.ts,
      symbol: first.symbol,
      side: first.side,
      tag: first.tag,
      price,
      size,
      fills: g.length,
      liquidity: kinds.size > 1 ? 'mixed' : first.liquidity,
      ...(ages.length > 0 ? { bookAgeMs: Math.max(...ages) } : {}),
    };
  });
}

/** Why a paper execution's price differs from the backtest's, in the fill model's terms. */
function reasonOf(p: Execution | undefined, b: Execution | undefined): string {
  if (p === undefined)
    return 'only the backtest traded here: its candle crossed a price no public trade went through on paper, or the paper run ended first';
  if (b === undefined)
    return 'only the paper run traded here: a public trade went through a price the candles did not cross, or the backtest ended first';
  // A quote amount becomes a size at the price the gate sees: the polled ticker on paper, the candle's close in a backtest.
  const size = p.size.eq(b.size)
    ? ''
    : "; the sizes differ: a quote amount is sized at the last price paper polled, in the backtest at the candle's close";
  if (p.liquidity === 'maker' && b.liquidity === 'maker')
    return p.price.eq(b.price)
      ? `both resting limits filled at their price: paper on a public trade through it, the backtest on a candle through it (times differ, prices agree)${size}`
      : `both filled as resting limits, at different prices (paper ${p.price.toFixed()}, backtest ${b.price.toFixed()}): the limits differ (each run priced its order from what it saw when it decided), or one filled better than its limit on a price that opened through it${size}`;
  const levels = p.fills > 1 ? `walked ${p.fills} levels of the book` : 'took the best level of the book';
  const age = p.bookAgeMs === undefined ? '' : ` polled ${p.bookAgeMs} ms before`;
  return `paper ${levels}${age} (spread and depth); the backtest filled at the candle's open, moved by its slippage${size}`;
}

/**
 * Pairs each paper execution with the backtest's of the same symbol, side and tag nearest to it in time, within
 * `windowMs` (the candle it traded on: the backtest fills at the next candle's open, paper within the candle after
 * the signal), each used once; an unmatched one is a row alone. Pairing by place in a list let one missing trade
 * shift every later pair onto the wrong candle.
 */
export function comparePaperBacktest(
  paper: readonly Execution[],
  backtest: readonly Execution[],
  windowMs: number,
): ComparedTrade[] {
  const key = (e: Execution) => `${e.symbol}|${e.side}|${e.tag}`;
  const open = new Map<string, Execution[]>();
  for (const b of backtest) open.set(key(b), [...(open.get(key(b)) ?? []), b]);
  const rows: ComparedTrade[] = [];
  for (const p of [...paper].sort((x, y) => x.ts - y.ts)) {
    const candidates = open.get(key(p)) ?? [];
    let best = -1;
    for (let i = 0; i < candidates.length; i++) {
      const d = Math.abs((candidates[i] as Execution).ts - p.ts);
      if (d <= windowMs && (best < 0 || d < Math.abs((candidates[best] as Execution).ts - p.ts))) best = i;
    }
    rows.push(row(p, best < 0 ? undefined : candidates.splice(best, 1)[0]));
  }
  for (const left of open.values()) for (const b of left) rows.push(row(undefined, b));
  const at = (r: ComparedTrade) => (r.paper ?? (r.backtest as Execution)).ts;
  return rows.sort((x, y) => at(x) - at(y));
}

function row(p: Execution | undefined, b: Execution | undefined): ComparedTrade {
  const e = (p ?? b) as Execution;
  let costBps: number | undefined;
  if (p !== undefined && b !== undefined && !b.price.isZero()) {
    const d = p.price.minus(b.price).div(b.price).mul(10_000);
    costBps = Number((e.side === 'buy' ? d : d.neg()).toFixed(2));
  }
  return { symbol: e.symbol, side: e.side, tag: e.tag, paper: p, backtest: b, costBps, why: reasonOf(p, b) };
}

/** An intent and the risk gate's decision on it, as the paper journal or the backtest's result.json gives it. */
export interface IntentDecision {
  /** When it was judged: the backtest at the candle's close; the paper run when the candle reached it. */
  readonly ts: number;
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly tag: string;
  /** `approved`, or the gate's denial code. */
  readonly decision: string;
}

/** One intent of either run beside the other's of the same place in its symbol's sequence. */
export interface ComparedIntent {
  readonly symbol: string;
  readonly paper: IntentDecision | undefined;
  readonly backtest: IntentDecision | undefined;
  /** Same side, tag and gate decision. */
  readonly agree: boolean;
  readonly why: string;
}

/**
 * The intents of each symbol paired in order (the n-th of the paper run with the n-th of the backtest): the
 * same strategy on the same candles emits the same intents, and the same gate decides them the same way. The
 * times are not compared: a paper run judges a candle when its poll brings it, the backtest at its close.
 */
export function compareIntents(
  paper: readonly IntentDecision[],
  backtest: readonly IntentDecision[],
): ComparedIntent[] {
  const bySymbol = (xs: readonly IntentDecision[]) => {
    const m = new Map<string, IntentDecision[]>();
    for (const x of [...xs].sort((a, b) => a.ts - b.ts)) m.set(x.symbol, [...(m.get(x.symbol) ?? []), x]);
    return m;
  };
  const p = bySymbol(paper);
  const b = bySymbol(backtest);
  const rows: ComparedIntent[] = [];
  for (const symbol of new Set([...p.keys(), ...b.keys()])) {
    const ps = p.get(symbol) ?? [];
    const bs = b.get(symbol) ?? [];
    for (let i = 0; i < Math.max(ps.length, bs.length); i++) {
      const x = ps[i];
      const y = bs[i];
      const agree =
        x !== undefined &&
        y !== undefined &&
        x.side === y.side &&
        x.tag === y.tag &&
        x.decision === y.decision;
      rows.push({ symbol, paper: x, backtest: y, agree, why: intentWhy(x, y, agree) });
    }
  }
  const at = (r: ComparedIntent) => (r.backtest ?? (r.paper as IntentDecision)).ts;
  return rows.sort((x, y) => at(x) - at(y));
}

function intentWhy(p: IntentDecision | undefined, b: IntentDecision | undefined, agree: boolean): string {
  if (agree) return 'same intent, same gate decision';
  if (p === undefined)
    return 'only the backtest emitted it: the paper run stopped before that candle, or its candles differ from the recording';
  if (b === undefined)
    return 'only the paper run emitted it: the recording ends before that candle, or its candles differ';
  if (p.side !== b.side || p.tag !== b.tag)
    return 'the strategy emitted another intent: it saw other candles or another portfolio (a fill that differed)';
  return `the gate decided otherwise (paper ${p.decision}, backtest ${b.decision}): its context differed (the portfolio after another fill, the data's age, the session)`;
}
