// What the journal says of "now" and of marks for a reader (the CLI): the venue's clock, not the journal's last
// entry; the venue's last traded price with its time.
import { afterEach, describe, expect, it } from 'vitest';
import type { Instrument } from '../../../src/api/index.js';
import {
  journalInstrument,
  journalLastPrice,
  journalVenueClock,
  openStore,
  readInstrumentRules,
  readLastPrice,
  venueNow,
  type Store,
} from '../../../src/store/index.js';

const VENUE = Date.UTC(2026, 10, 23, 15); // Monday 10:00 ET
const WALL = Date.UTC(2026, 10, 26, 12);
let store: Store;
afterEach(() => store.close());

describe('venueNow (what --since counts back from)', () => {
  it('is the wall clock without a reading, and for a real venue once the run stopped', () => {
    store = openStore(':memory:');
    expect(venueNow(store, WALL)).toBe(WALL);
    journalVenueClock(store, { venueTs: WALL - 60_000, wallTs: WALL - 60_000, speed: 1, simulated: false });
    store.meta.set('daemon:run', 'stopped');
    expect(venueNow(store, WALL + 3_600_000)).toBe(WALL + 3_600_000);
  });

  it("runs at the simulator's speed from its reading while the daemon runs, not from the journal's last entry", () => {
    store = openStore(':memory:');
    journalVenueClock(store, { venueTs: VENUE, wallTs: WALL, speed: 60, simulated: true });
    store.meta.set('daemon:run', 'running');
    // Ten wall seconds at speed 60: ten venue minutes later.
    expect(venueNow(store, WALL + 10_000)).toBe(VENUE + 600_000);
  });

  it("is where a simulator's clock stopped once the run ended (its newest journaled time)", () => {
    store = openStore(':memory:');
    journalVenueClock(store, { venueTs: VENUE, wallTs: WALL, speed: 60, simulated: true });
    journalLastPrice(store, 'AAPLUSDT', '190.5', VENUE + 120_000);
    store.flushDeferred();
    store.meta.set('daemon:run', 'stopped');
    expect(venueNow(store, WALL + 86_400_000)).toBe(VENUE + 120_000);
  });
});

describe('the journaled last traded price', () => {
  it('reads back with its venue time; an unreadable one reads as none', () => {
    store = openStore(':memory:');
    journalLastPrice(store, 'AAPLUSDT', '190.25', VENUE);
    store.flushDeferred();
    expect(readLastPrice(store, 'AAPLUSDT')).toEqual({ price: expect.anything(), ts: VENUE });
    expect(readLastPrice(store, 'AAPLUSDT')?.price.toFixed()).toBe('190.25');
    store.meta.set('last-price:TSLAUSDT', 'not json');
    expect(readLastPrice(store, 'TSLAUSDT')).toBeUndefined();
    expect(readLastPrice(store, 'NVDAUSDT')).toBeUndefined();
  });
});

describe("the journal's instruments (dust for a reader of the journal)", () => {
  const wire = {
    category: 'SPOT',
    symbol: 'XAACUSDT',
    baseCoin: 'XAAC',
    quoteCoin: 'USDT',
    status: 'online',
    pricePrecision: '2',
    quantityPrecision: '4',
    minOrderQty: '0.01',
  } as Instrument;

  it('reads back the rules journaled, and the newer ones when the venue changes them', () => {
    store = openStore(':memory:');
    expect(readInstrumentRules(store, 'XAACUSDT')).toBeUndefined();
    journalInstrument(store, undefined);
    journalInstrument(store, wire);
    store.flushDeferred();
    expect(readInstrumentRules(store, 'XAACUSDT')?.minOrderQty?.toFixed()).toBe('0.01');
    journalInstrument(store, { ...wire, minOrderQty: '0.1' });
    store.flushDeferred();
    expect(readInstrumentRules(store, 'XAACUSDT')?.minOrderQty?.toFixed()).toBe('0.1');
  });

  it('is undefined for a row it cannot read (the position is then shown whole)', () => {
    store = openStore(':memory:');
    store.meta.set('instrument:XAACUSDT', '{not json');
    expect(readInstrumentRules(store, 'XAACUSDT')).toBeUndefined();
  });
});
