// Round trips from flat to flat, counted as the pipeline books each fill.
import { ZERO, aboveZero, type Decimal } from '../market/decimal.js';
import type { BacktestTrade } from './result.js';

/** A round trip still open: what it holds and what it cost so far (sells of part of it included). */
export interface OpenTrip {
  readonly symbol: string;
  /** long: it opened with a buy; short: with a sell (a MARGIN run's sellShort). */
  readonly side: 'long' | 'short';
  readonly entryTime: number;
  readonly entryTag: string;
  /** Base quantity held, signed (negative while short). */
  readonly quantity: Decimal;
  /** Average price of its entry side (the buys of a long, the sells of a short), to 8 places. */
  readonly entryPrice: string;
  /** Quote spent on its buys, received for its sells, and its fees so far. */
  readonly buyCost: Decimal;
  readonly sellValue: Decimal;
  readonly fees: Decimal;
}

/** A side's average price, to 8 places: the one fill's price, or value / quantity over several fills. */
function averagePrice(only: Decimal | undefined, value: Decimal, qty: Decimal): string {
  return (only ?? value.div(qty)).toDecimalPlaces(8).toFixed();
}

/** A trip's sides so far: quantity, value and the one fill's price while the side has one fill. */
interface TripSides {
  readonly short: boolean;
  readonly buyQty: Decimal;
  readonly buyCost: Decimal;
  readonly buyPrice: Decimal | undefined;
  readonly sellQty: Decimal;
  readonly sellValue: Decimal;
  readonly sellPrice: Decimal | undefined;
}

// A side of one fill averages to that fill's price (its value is price x size, exactly): no division.
const buysPrice = (o: TripSides): string => averagePrice(o.buyPrice, o.buyCost, o.buyQty);
const sellsPrice = (o: TripSides): string => averagePrice(o.sellPrice, o.sellValue, o.sellQty);
/** The entry side's average: a long's buys, a short's sells. */
const entryPrice = (o: TripSides): string => (o.short ? sellsPrice(o) : buysPrice(o));

/** What a round trip needs of a fill: the pipeline's fill, amounts in Decimal. */
interface TripFill {
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly price: Decimal;
  readonly size: Decimal;
  /** price x size */
  readonly notional: Decimal;
  readonly fee: Decimal;
  readonly ts: number;
  /** The intent's tag; an exit of the pipeline's is tagged with its reason. */
  readonly tag: string;
}

/**
 * Round trips from flat to flat, per symbol, with average prices and PnL after fees, in the order they
 * closed: fed each fill as the pipeline books it (its Decimals, not their strings read back). A position
 * left as dust (src/market/dust.ts) is flat: the trip closes there, as the live exits close it, and the dust
 * is sold with the next trip's exit (its proceeds count in that trip).
 */
export class RoundTrips {
  readonly trades: BacktestTrade[] = [];
  /** Symbols with a position open now (for the time in the market). */
  holding = 0;
  private readonly open = new Map<
    string,
    {
      qty: Decimal;
      buyQty: Decimal;
      buyCost: Decimal;
      sellQty: Decimal;
      sellValue: Decimal;
      fees: Decimal;
      entry: number;
      /** The tag of the fill that opened the trade. */
      entryTag: string;
      /** Whether the trade opened with a sell (a short). */
      short: boolean;
      /** The price of the trade's only buy (sell) fill so far; undefined once it has several. */
      buyPrice: Decimal | undefined;
      sellPrice: Decimal | undefined;
    }
  >();

  /** `dust`: whether a symbol's position is dust (default: none is). */
  constructor(private readonly dust: (symbol: string, quantity: Decimal) => boolean = () => false) {}

  /** Whether a position is flat: zero, or only dust. */
  private flat(symbol: string, qty: Decimal): boolean {
    return qty.isZero() || this.dust(symbol, qty);
  }

  add(f: TripFill): void {
    let o = this.open.get(f.symbol);
    if (o === undefined) {
      o = {
        qty: ZERO,
        buyQty: ZERO,
        buyCost: ZERO,
        sellQty: ZERO,
        sellValue: ZERO,
        fees: ZERO,
        entry: 0,
        entryTag: '',
        short: false,
        buyPrice: undefined,
        sellPrice: undefined,
      };
      this.open.set(f.symbol, o);
    }
    const value = f.notional;
    const wasFlat = this.flat(f.symbol, o.qty);
    if (wasFlat) {
      o.entry = f.ts;
      o.entryTag = f.tag;
      o.short = f.side === 'sell';
      o.buyQty = o.buyCost = o.sellQty = o.sellValue = o.fees = ZERO;
    }
    o.fees = o.fees.plus(f.fee);
    if (f.side === 'buy') {
      // The side's first fill is the one that finds its quantity still zero.
      o.buyPrice = o.buyQty.isZero() ? f.price : undefined;
      o.qty = o.qty.plus(f.size);
      o.buyQty = o.buyQty.plus(f.size);
      o.buyCost = o.buyCost.plus(value);
    } else {
      o.sellPrice = o.sellQty.isZero() ? f.price : undefined;
      o.qty = o.qty.minus(f.size);
      o.sellQty = o.sellQty.plus(f.size);
      o.sellValue = o.sellValue.plus(value);
    }
    const flat = this.flat(f.symbol, o.qty);
    if (flat !== wasFlat) this.holding += flat ? -1 : 1;
    if (flat && aboveZero(o.buyQty) && aboveZero(o.sellQty)) {
      this.trades.push({
        symbol: f.symbol,
        side: o.short ? 'short' : 'long',
        entryTime: o.entry,
        exitTime: f.ts,
        entryPrice: entryPrice(o),
        exitPrice: o.short ? buysPrice(o) : sellsPrice(o),
        quantity: (o.short ? o.sellQty : o.buyQty).toFixed(),
        pnl: o.sellValue.minus(o.buyCost).minus(o.fees).toFixed(),
        fees: o.fees.toFixed(),
        entryTag: o.entryTag,
        // The closing fill's tag: the pipeline's exit reason (stop_loss, minimal_roi ...) or the strategy's own.
        exitReason: f.tag,
      });
    }
  }

  /** The trades still open, in the order their symbols first traded. */
  openTrips(): OpenTrip[] {
    const out: OpenTrip[] = [];
    for (const [symbol, o] of this.open) {
      if (o.qty.isZero() || this.dust(symbol, o.qty)) continue;
      out.push({
        symbol,
        side: o.short ? 'short' : 'long',
        entryTime: o.entry,
        entryTag: o.entryTag,
        quantity: o.qty,
        entryPrice: entryPrice(o),
        buyCost: o.buyCost,
        sellValue: o.sellValue,
        fees: o.fees,
      });
    }
    return out;
  }
}
