// Fill synchronisation: polls the account's fills of each traded Reality pair, journals the new ones
// (unique execId: nothing doubled), matches them to orders and applies them to the portfolio.
import type { Instrument, RealityFill } from '../api/index.js';
import { Decimal } from '../market/decimal.js';
import { feeFor } from '../portfolio/fees.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { Store } from '../store/index.js';
import type { StoredFill } from '../store/fills.js';
import type { Venue } from './venue.js';

export interface FillSyncSymbol {
  readonly symbol: string;
  readonly baseCoin: string;
  readonly quoteCoin: string;
  /** Fee rate of the account on this pair (tradebot's convention: quote coin, price x size x rate). */
  readonly feeRate: Decimal;
}

export interface FillSyncOptions {
  readonly venue: Venue;
  readonly store: Store;
  readonly portfolio: Portfolio;
  readonly bot?: string | undefined;
  readonly onFill?: ((fill: StoredFill) => void) | undefined;
}

/** The fields the simulator (and possibly the venue) add to a reality fill beyond spec 2.13. */
type FillWithIds = RealityFill & { orderId?: unknown; clientOid?: unknown };

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Instrument fields the fill sync needs. */
export const fillSymbolOf = (
  i: Pick<Instrument, 'symbol' | 'baseCoin' | 'quoteCoin'>,
  feeRate: Decimal,
): FillSyncSymbol => ({
  symbol: i.symbol,
  baseCoin: i.baseCoin,
  quoteCoin: i.quoteCoin,
  feeRate,
});

export class FillSync {
  constructor(private readonly o: FillSyncOptions) {}

  /**
   * Fetches the latest fills of a pair and applies the new ones, oldest first. The venue answers at most
   * 100 fills per call (newest first), so the poll cadence must keep below 100 fills between polls.
   */
  async sync(s: FillSyncSymbol): Promise<StoredFill[]> {
    const fills = (await this.o.venue.fills(s.symbol, 100)) as FillWithIds[];
    const fresh: StoredFill[] = [];
    const { store, portfolio } = this.o;
    // Oldest first, so the portfolio sees fills in the order they happened.
    const ordered = [...fills].sort(
      (a, b) => Number(a.ts) - Number(b.ts) || a.execId.localeCompare(b.execId),
    );
    for (const f of ordered) {
      if (store.fills.byExecId(f.execId) !== undefined) continue;
      const price = new Decimal(f.price);
      const size = new Decimal(f.size);
      const orderId = str(f.orderId);
      const clientOid =
        str(f.clientOid) ?? (orderId !== undefined ? store.orders.byOrderId(orderId)?.clientOid : undefined);
      const bot =
        clientOid !== undefined ? (store.orders.byClientOid(clientOid)?.bot ?? this.o.bot) : this.o.bot;
      const input = {
        execId: f.execId,
        bot,
        symbol: s.symbol,
        baseCoin: s.baseCoin,
        quoteCoin: s.quoteCoin,
        side: f.side,
        price,
        size,
        fee: feeFor(price, size, s.feeRate),
        feeCoin: s.quoteCoin,
        ts: Number(f.ts),
        orderId,
        clientOid,
      };
      // Journal first: the in-memory portfolio is rebuilt from the journal after a crash.
      if (!store.fills.insertFill(input)) continue;
      const stored = store.fills.byExecId(f.execId);
      if (stored === undefined) continue;
      portfolio.applyFill(stored);
      fresh.push(stored);
      this.o.onFill?.(stored);
    }
    return fresh;
  }
}
