// Cross margin on Reality pairs over the wire: a MARGIN order borrows within the leverage set for the coin,
// interest accrues per period, a cover repays the loan and pays the interest, and a position driven past the
// liquidation ratio is liquidated with its fill in reality-fills; the admin API is the oracle.
import { afterEach, describe, expect, it } from 'vitest';
import { RestClient } from '../../../src/client/index.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { Decimal } from '../../../src/market/decimal.js';
import { DEFAULT_MARGIN_MODEL } from '../../../src/market/margin.js';
import { startSimulator, type Simulator } from '../../../src/sim/index.js';
import type { ReplayCandle } from '../../../src/sim/market-replay.js';

const CREDS = { apiKey: 'mg-key', apiSecret: 'mg-secret', passphrase: 'mg-pass' };
const START = Date.UTC(2026, 10, 23, 15); // a Monday, 10:00 in New York: the market is open
const MIN = 60_000;

/** Flat AAPL candles at 190, then at `jumpAt` minutes a jump to `jumpTo`. */
function candles(jumpAt: number, jumpTo: string): ReplayCandle[] {
  return Array.from({ length: 240 }, (_, i) => {
    const p = i < jumpAt ? '190' : jumpTo;
    return { openTime: START + i * MIN, open: p, high: p, low: p, close: p, volume: '1000' };
  });
}

interface MarginView {
  loans: { coin: string; borrowed: string; basis: string; interest: string }[];
  riskRatio: string;
  liquidations: { ts: number; side: string; price: string; size: string; riskRatio: string }[];
}

describe('cross margin on the simulator', () => {
  let sim: Simulator;
  let client: RestClient;
  let clock: VirtualClock;
  const admin = async <T>(path: string): Promise<T> =>
    ((await (await fetch(sim.baseUrl + path)).json()) as { data: T }).data;
  const margin = () => admin<MarginView>(`/sim/margin?apiKey=${CREDS.apiKey}`);
  const balances = () => admin<Record<string, { available: string }>>(`/sim/balances?apiKey=${CREDS.apiKey}`);

  async function start(jumpAt: number, jumpTo: string): Promise<void> {
    clock = new VirtualClock(START);
    sim = await startSimulator({
      clock,
      startTime: START,
      rateLimits: false,
      replay: { AAPLUSDT: candles(jumpAt, jumpTo) },
      candleFills: { slippageBps: 0 },
      accounts: [{ ...CREDS, whitelisted: true, balances: { USDT: '1000' } }],
    });
    client = new RestClient({ baseUrl: sim.baseUrl, credentials: CREDS, retry: { maxAttempts: 1 } });
  }
  afterEach(async () => {
    client.close();
    await sim.stop();
  });

  it('refuses a MARGIN short before leverage is set, and a spot sell of a coin not held', async () => {
    await start(1000, '190');
    const sell = { symbol: 'AAPLUSDT', side: 'sell', orderType: 'market', qty: '1' } as const;
    await expect(client.placeRealityOrder(sell)).rejects.toMatchObject({ code: '25202' });
    await expect(client.placeRealityOrder({ ...sell, category: 'MARGIN' })).rejects.toMatchObject({
      code: '25203',
    });
  });

  it('opens a short within the leverage, accrues interest per period and repays it on the cover', async () => {
    await start(1000, '190');
    await client.setLeverage({ category: 'MARGIN', coin: 'AAPL', leverage: '3' });
    // equity 1000 at leverage 3 owes at most 2000: 11 AAPL at 190 (2090) is too much, 10 is not
    const sell = { category: 'MARGIN', symbol: 'AAPLUSDT', side: 'sell', orderType: 'market' } as const;
    await expect(client.placeRealityOrder({ ...sell, qty: '11' })).rejects.toMatchObject({ code: '25203' });
    await client.placeRealityOrder({ ...sell, qty: '2', clientOid: 'short-1' });
    let m = await margin();
    expect(m.loans).toEqual([
      expect.objectContaining({ coin: 'AAPL', borrowed: '2', basis: '380', interest: '0' }),
    ]);
    clock.advance(2 * 3_600_000);
    m = await margin();
    const interest = new Decimal('380').mul(DEFAULT_MARGIN_MODEL.interestRate).mul(2);
    expect(m.loans[0]?.interest).toBe(interest.toFixed());
    // the risk ratio: liabilities (2 x 190 + interest) over assets (1000 + 380 - fee)
    const assets = new Decimal('1000').plus('380').minus('0.38');
    expect(m.riskRatio).toBe(new Decimal('380').plus(interest).div(assets).toFixed());
    await client.placeRealityOrder({
      category: 'MARGIN',
      symbol: 'AAPLUSDT',
      side: 'buy',
      orderType: 'market',
      qty: '380',
      clientOid: 'cover-1',
    });
    m = await margin();
    expect(m.loans).toEqual([]);
    expect(m.riskRatio).toBe('0');
    const b = await balances();
    expect(b.AAPL?.available).toBe('0');
    expect(b.USDT?.available).toBe(assets.minus('380').minus('0.38').minus(interest).toFixed());
  });

  it("gives a resting short's loan its basis at the fill's price, from the fill on (the bot can know it)", async () => {
    await start(60, '200');
    await client.setLeverage({ category: 'MARGIN', coin: 'AAPL', leverage: '3' });
    await client.placeRealityOrder({
      category: 'MARGIN',
      symbol: 'AAPLUSDT',
      side: 'sell',
      orderType: 'limit',
      price: '195',
      qty: '2',
      clientOid: 'short-limit',
    });
    // borrowed at placement (the reservation), but no basis until the fill: no interest at 15:00 or 16:00
    clock.advance(3 * 3_600_000);
    const m = await margin();
    const interest = new Decimal('390').mul(DEFAULT_MARGIN_MODEL.interestRate).mul(2); // 17:00, 18:00
    expect(m.loans).toEqual([
      expect.objectContaining({ coin: 'AAPL', borrowed: '2', basis: '390', interest: interest.toFixed() }),
    ]);
  });

  it('liquidates a short driven past the liquidation ratio, with its fill in reality-fills', async () => {
    await start(120, '300');
    await client.setLeverage({ category: 'MARGIN', coin: 'AAPL', leverage: '3' });
    await client.placeRealityOrder({
      category: 'MARGIN',
      symbol: 'AAPLUSDT',
      side: 'sell',
      orderType: 'market',
      qty: '10',
    });
    clock.advance(119 * MIN);
    expect((await margin()).liquidations).toEqual([]);
    clock.advance(30 * MIN);
    const m = await margin();
    expect(m.loans).toEqual([]);
    expect(m.liquidations).toEqual([
      expect.objectContaining({ ts: START + 120 * MIN, side: 'buy', price: '300', size: '10' }),
    ]);
    expect(new Decimal(m.liquidations[0]?.riskRatio ?? '0').gte(1)).toBe(true);
    const fills = await client.realityFills({ symbol: 'AAPLUSDT' });
    const all = (await admin<{ side: string; price: string }[]>(`/sim/fills?apiKey=${CREDS.apiKey}`)).map(
      (f) => `${f.side}@${f.price}`,
    );
    expect(all).toEqual(['buy@300', 'sell@190']);
    expect(fills[0]).toMatchObject({ side: 'buy', price: '300', size: '10' });
  });
});
