// An order as it goes on the wire to place-reality-order (spec 4.3): strings, with its idempotency key.
// Declared here, at the bottom, because the risk gate approves it, the journal stores it and the venue
// adapters send it.

/** An order as sent on the wire (strings), with its idempotency key. */
export interface VenueOrder {
  readonly category: 'SPOT' | 'MARGIN';
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly orderType: 'limit' | 'market';
  /** Quote coin for a market buy, base coin otherwise. */
  readonly qty: string;
  readonly price?: string;
  readonly clientOid: string;
}
