// The backtest's memory journal keeps the SQLite journal's rules (a clientOid journaled once, a fill
// booked once per execId) while its memory stays flat over a long run: a settled order is let go, and
// only the latest fills' execIds are remembered.
import { describe, expect, it } from 'vitest';
import { MemoryJournal, RECENT_FILLS } from '../../../src/execution/journal.js';
import { Decimal } from '../../../src/market/decimal.js';

const order = (clientOid: string) =>
  ({
    category: 'SPOT',
    symbol: 'AAPLUSDT',
    side: 'buy',
    orderType: 'market',
    qty: '100',
    clientOid,
  }) as const;

const fill = (execId: string) => ({
  execId,
  bot: 'bt',
  symbol: 'AAPLUSDT',
  baseCoin: 'AAPL',
  quoteCoin: 'USDT',
  side: 'buy' as const,
  price: new Decimal('100'),
  size: new Decimal('1'),
  fee: new Decimal('0.1'),
  feeCoin: 'USDT',
  ts: 1,
});

describe('MemoryJournal', () => {
  it('journals a clientOid once while the order is open, and lets it go once settled', () => {
    const j = new MemoryJournal();
    const first = j.orders.journal({ order: order('a'), bot: 'bt' }, 1);
    expect(first.inserted).toBe(true);
    expect(j.orders.journal({ order: order('a'), bot: 'bt' }, 2).inserted).toBe(false);
    j.orders.markAcked('a', '9001');
    expect(j.orders.byOrderId('9001')?.clientOid).toBe('a');
    j.settled('a');
    expect(j.orders.byClientOid('a')).toBeUndefined();
    expect(j.orders.byOrderId('9001')).toBeUndefined();
    expect(j.held).toBe(0);
  });

  it('holds only the open orders of a run of 20,000 settled ones', () => {
    const j = new MemoryJournal();
    for (let i = 0; i < 20_000; i++) {
      j.orders.journal({ order: order(`o${i}`), bot: 'bt' }, i);
      j.orders.markAcked(`o${i}`, `id${i}`);
      if (i % 1000 !== 0) j.settled(`o${i}`);
    }
    expect(j.held).toBe(20);
    expect(j.orders.byClientOid('o19000')?.state).toBe('acked');
  });

  it('books a fill once per execId among the latest fills, and numbers them in order', () => {
    const j = new MemoryJournal();
    expect(j.addFill(fill('x1'))).toBe(1);
    expect(j.addFill(fill('x1'))).toBeUndefined();
    expect(j.hasFill('x1')).toBe(true);
    for (let i = 2; i <= RECENT_FILLS; i++) j.addFill(fill(`x${i}`));
    // Still within the remembered window: refused again.
    expect(j.addFill(fill('x1'))).toBeUndefined();
    expect(j.addFill(fill(`x${RECENT_FILLS + 1}`))).toBe(RECENT_FILLS + 1);
    // The oldest left the window (the in-process venue never hands a fill over twice).
    expect(j.hasFill('x1')).toBe(false);
    expect(j.hasFill('x2')).toBe(true);
  });
});
