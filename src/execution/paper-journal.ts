// The paper account in the deployment's journal: the matching core's whole state (balances, orders, the
// resting ones marked, fills with the book age of each taker fill) as one JSON row of the meta table,
// written synchronously after every change, so a restart or a kill -9 rebuilds it exactly. An order whose
// placement was journaled by the pipeline but never reached this row is resent under its clientOid on the
// next start, as it would be to a venue that never received it.
import { Decimal } from '../market/decimal.js';
import type { Balance, CoreFill, CoreOrder, CoreState } from '../sim/matching.js';

/** The meta key of the paper account. */
export const PAPER_ACCOUNT_KEY = 'paper:account';

/** What the paper venue keeps besides the core: when each taker fill's book was polled (execId -> ms). */
export interface PaperAccountRecord {
  readonly core: CoreState;
  readonly bookAgeMs: Readonly<Record<string, number>>;
}

/** Where the record lives (the store's meta table in the daemon). */
export interface PaperJournal {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}

/** The record as JSON (Decimal writes itself as its exact string). */
export const encodePaperAccount = (r: PaperAccountRecord): string => JSON.stringify(r);

type Raw = Record<string, unknown>;
const dec = (v: unknown, what: string): Decimal => {
  if (typeof v !== 'string' || v === '')
    throw new Error(`the journal's paper account is damaged: ${what} is not a decimal string`);
  return new Decimal(v);
};
const balance = (b: Raw, what: string): Balance => ({
  available: dec(b.available, `${what}.available`),
  frozen: dec(b.frozen, `${what}.frozen`),
});
const fill = (f: Raw): CoreFill =>
  ({
    ...f,
    price: dec(f.price, 'fill.price'),
    size: dec(f.size, 'fill.size'),
    notional: dec(f.notional, 'fill.notional'),
    fee: dec(f.fee, 'fill.fee'),
  }) as unknown as CoreFill;
const order = (o: Raw): CoreOrder & { resting: boolean } =>
  ({
    ...o,
    price: o.price === undefined || o.price === null ? undefined : dec(o.price, 'order.price'),
    qty: dec(o.qty, 'order.qty'),
    filledQty: dec(o.filledQty, 'order.filledQty'),
    filledQuote: dec(o.filledQuote, 'order.filledQuote'),
    fee: dec(o.fee, 'order.fee'),
    reserved: dec(o.reserved, 'order.reserved'),
  }) as unknown as CoreOrder & { resting: boolean };

/** The record written by `encodePaperAccount`, its Decimals exact again; throws on a damaged row. */
export function decodePaperAccount(text: string): PaperAccountRecord {
  const r = JSON.parse(text) as { core: Raw; bookAgeMs?: Record<string, number> };
  const core = r.core as { orderSeq: number; execSeq: number; accounts: Raw[]; orders: Raw[] };
  return {
    bookAgeMs: r.bookAgeMs ?? {},
    core: {
      orderSeq: core.orderSeq,
      execSeq: core.execSeq,
      accounts: core.accounts.map((a) => ({
        id: String(a.id),
        maker: dec(a.maker, 'maker'),
        taker: dec(a.taker, 'taker'),
        balances: Object.fromEntries(
          Object.entries(a.balances as Record<string, Raw>).map(([c, b]) => [c, balance(b, c)]),
        ),
        clientOids: a.clientOids as string[],
        fills: (a.fills as Raw[]).map(fill),
      })),
      orders: core.orders.map(order),
    },
  };
}
