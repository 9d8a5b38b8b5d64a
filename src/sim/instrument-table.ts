// The simulator's instrument table looked up by category and symbol, with the market of each row:
// where every endpoint answer starts.
import type { Category } from '../api/index.js';
import type { SimInstrument } from './instruments.js';
import type { InstrumentMarket, MarketModel } from './market-model.js';
import { SimError } from './sim-error.js';

/** The instruments of a simulator and their markets. */
export class InstrumentTable {
  private readonly bySymbol = new Map<string, SimInstrument>();

  constructor(
    readonly all: readonly SimInstrument[],
    readonly market: MarketModel,
  ) {
    for (const i of all) this.bySymbol.set(`${i.wire.category}:${i.wire.symbol}`, i);
  }

  /** The instrument of a category and symbol (MARGIN pairs answer their own row). */
  get(category: Category, symbol: string): SimInstrument | undefined {
    return this.bySymbol.get(`${category}:${symbol}`);
  }

  /** The instrument of a category and symbol, or the venue's 40034 when there is none. */
  need(category: Category, symbol: string): SimInstrument {
    const i = this.get(category, symbol);
    if (!i) throw new SimError('40034', `symbol ${symbol} does not exist in category ${category}`);
    return i;
  }

  /** The instruments of a category, in table order. */
  inCategory(category: Category): SimInstrument[] {
    return this.all.filter((i) => i.wire.category === category);
  }

  /** The market of an instrument. */
  marketOf(inst: SimInstrument): InstrumentMarket {
    return this.market.of(inst);
  }
}
