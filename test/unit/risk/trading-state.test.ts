import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/market/decimal.js';
import { TradingStateMachine, type TradingStateChange } from '../../../src/risk/index.js';

const DAY = 86_400_000;
const T = Date.UTC(2026, 10, 23, 15);

describe('trading state machine', () => {
  it('moves ACTIVE -> REDUCING -> HALTED as the daily loss grows, and resets on a new day', () => {
    const m = new TradingStateMachine({ dailyLossLimit: new Decimal(100), reduceAt: 0.8 });
    const changes: TradingStateChange[] = [];
    m.onChange((c) => changes.push(c));
    expect(m.update(new Decimal(1000), T)).toBe('ACTIVE');
    expect(m.update(new Decimal(921), T + 1)).toBe('ACTIVE');
    expect(m.update(new Decimal(920), T + 2)).toBe('REDUCING');
    expect(m.update(new Decimal(900), T + 3)).toBe('HALTED');
    expect(m.update(new Decimal(950), T + 4)).toBe('HALTED');
    expect(m.update(new Decimal(900), T + DAY)).toBe('ACTIVE');
    expect(changes.map((c) => c.to)).toEqual(['REDUCING', 'HALTED', 'ACTIVE']);
    expect(changes[1]?.reason).toMatch(/daily loss 100 reached the limit 100/);
  });

  it('keeps a manual halt across days until resumed', () => {
    const m = new TradingStateMachine({ reduceAt: 0.8 });
    m.update(new Decimal(1000), T);
    m.halt('operator kill switch', T);
    expect(m.update(new Decimal(1000), T + DAY)).toBe('HALTED');
    m.resume('operator resumed', T + DAY);
    expect(m.state).toBe('ACTIVE');
  });

  it('a bot restarted HALTED stays halted', () => {
    const m = new TradingStateMachine({ reduceAt: 0.8 }, 'HALTED');
    expect(m.update(new Decimal(1), T)).toBe('HALTED');
  });
});
