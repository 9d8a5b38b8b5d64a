// The delivery state reaches the risk gate from the wire: the feeds poll the contract's ticker, the
// pipeline keeps its deliveryStatus, and the gate denies an intent on a contract in delivery_before or
// delivery_period with DELIVERY_STATE, before any order request is sent.
import { firstValueFrom, filter } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { RestClient } from '../../../src/client/index.js';
import { MemoryJournal } from '../../../src/execution/journal.js';
import { RestVenue } from '../../../src/execution/rest-venue.js';
import { MarketState, Trader, type TraderEvent } from '../../../src/execution/trader.js';
import type { Venue } from '../../../src/execution/venue.js';
import { FeedHub } from '../../../src/feeds/hub.js';
import { Decimal } from '../../../src/market/decimal.js';
import { parseInstrument } from '../../../src/market/instrument-rules.js';
import { Portfolio } from '../../../src/portfolio/index.js';
import { RiskGate, RiskLimitsSchema, TradingStateMachine } from '../../../src/risk/index.js';
import { startSimulator, type Simulator } from '../../../src/sim/index.js';

const CREDS = { apiKey: 'd-key', apiSecret: 'd-secret', passphrase: 'd-pass' };

// Spec 3.2: delivery_before is the 10 minutes before delivery (no new orders), delivery_period the
// delivery itself (no opening or closing of positions). Each case moves its own simulator's clock there.
const CASES = [
  { status: 'delivery_before', fromDeliveryMs: -5 * 60_000 },
  { status: 'delivery_period', fromDeliveryMs: 5 * 60_000 },
] as const;

describe('delivery state through the wire', () => {
  const sims: Simulator[] = [];
  afterAll(async () => {
    for (const s of sims) await s.stop();
  });

  it.each(CASES)(
    'denies an intent on a contract in $status with DELIVERY_STATE, sending nothing',
    async ({ status, fromDeliveryMs }) => {
      const sim = await startSimulator({
        seed: 3,
        startTime: Date.UTC(2026, 10, 23, 15), // Monday 10:00 ET: the delivery contracts are those of this date
        accounts: [{ ...CREDS, whitelisted: true }],
      });
      sims.push(sim);
      const contract = sim.engine.instruments.find(
        (i) =>
          i.wire.category === 'USDT-FUTURES' &&
          i.wire.type === 'delivery' &&
          i.wire.deliveryPeriod === 'this_quarter',
      )?.wire;
      if (!contract?.deliveryTime) throw new Error('the simulator has no this_quarter delivery contract');
      // The simulator's clock moves to five minutes before (after) delivery: its ticker says the status.
      sim.engine.clock.advance(Number(contract.deliveryTime) + fromDeliveryMs - sim.engine.now());

      const client = new RestClient({ baseUrl: sim.baseUrl, credentials: CREDS, clock: sim.engine.clock });
      const hub = new FeedHub({ source: client, clock: sim.engine.clock });
      const market = new MarketState();
      market.setRules(contract.symbol, parseInstrument(contract));
      // The feed fills the pipeline's market state, as the live bot does.
      const fresh = await firstValueFrom(
        hub
          .tickers$('USDT-FUTURES', contract.symbol)
          .pipe(filter((f) => f.value.deliveryStatus !== undefined)),
      );
      const q = market.quote(contract.symbol);
      q.last = fresh.value.lastPrice;
      q.ts = fresh.at;
      q.deliveryStatus = fresh.value.deliveryStatus as typeof q.deliveryStatus;
      expect(q.deliveryStatus).toBe(status);

      const rest = new RestVenue(client);
      let sent = 0;
      const venue: Venue = {
        placeOrder: (o) => {
          sent++;
          return rest.placeOrder(o);
        },
        fills: (s, l) => rest.fills(s, l),
      };
      const limits = RiskLimitsSchema.parse({ allowedSessions: ['regular'] });
      const events: TraderEvent[] = [];
      const trader = new Trader({
        bot: 'delivery',
        pairs: [{ symbol: contract.symbol, baseCoin: contract.baseCoin, quoteCoin: contract.quoteCoin }],
        venue,
        journal: new MemoryJournal(),
        clock: sim.engine.clock,
        gate: new RiskGate(limits),
        tradingState: new TradingStateMachine(limits),
        portfolio: new Portfolio({ quoteCoin: contract.quoteCoin, cash: { [contract.quoteCoin]: '100000' } }),
        market,
        fees: { maker: new Decimal('0.0002'), taker: new Decimal('0.0006') },
      });
      trader.subscribe((e) => events.push(e));
      await trader.submit(
        {
          type: 'limit',
          side: 'buy',
          symbol: contract.symbol,
          category: 'SPOT',
          quantity: new Decimal('1'),
          price: new Decimal(fresh.value.lastPrice),
          tag: 'entry',
          reason: 'test',
        },
        sim.engine.now(),
      );
      expect(events.map((e) => (e.type === 'denied' ? `${e.type} ${e.code}` : e.type))).toEqual([
        'intent',
        'denied DELIVERY_STATE',
      ]);
      expect(sent).toBe(0);
      client.close();
    },
  );
});
