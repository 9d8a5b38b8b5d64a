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

  it('keeps a manual halt across days until re-armed', () => {
    const m = new TradingStateMachine({ reduceAt: 0.8 });
    m.update(new Decimal(1000), T);
    m.halt('operator kill switch', T);
    expect(m.update(new Decimal(1000), T + DAY)).toBe('HALTED');
    m.rearm('operator re-armed', T + DAY);
    expect(m.state).toBe('ACTIVE');
  });

  it('a bot restarted HALTED stays halted', () => {
    const m = new TradingStateMachine({ reduceAt: 0.8 }, 'HALTED');
    expect(m.update(new Decimal(1), T)).toBe('HALTED');
  });

  it("holds the operator's pause as PAUSED, which a halt shows over and a re-arm leaves in place", () => {
    const m = new TradingStateMachine({ dailyLossLimit: new Decimal(100), reduceAt: 0.8 });
    const changes: TradingStateChange[] = [];
    m.onChange((c) => changes.push(c));
    m.update(new Decimal(1000), T);
    m.setPaused(true, 'operator paused', T + 1);
    expect(m.state).toBe('PAUSED');
    // Losses under a pause: the pause shows (the operator must resume), REDUCING waits under it.
    expect(m.update(new Decimal(915), T + 2)).toBe('PAUSED');
    m.halt('kill switch', T + 3);
    expect(m.state).toBe('HALTED');
    // Resumed under a halt: nothing shown changes, but the journal hears it (paused false).
    m.setPaused(false, 'operator resumed', T + 4);
    expect(m.state).toBe('HALTED');
    m.setPaused(true, 'operator paused again', T + 5);
    m.rearm('operator re-armed', T + 6);
    expect(m.state).toBe('PAUSED');
    m.setPaused(false, 'operator resumed', T + 7);
    expect(m.state).toBe('ACTIVE');
    expect(changes.map((c) => `${c.from}->${c.to}${c.paused ? ' paused' : ''}`)).toEqual([
      'ACTIVE->PAUSED paused',
      'PAUSED->PAUSED paused', // REDUCING under the pause: journaled, nothing shown changes
      'PAUSED->HALTED paused',
      'HALTED->HALTED',
      'HALTED->HALTED paused',
      'HALTED->PAUSED paused',
      'PAUSED->ACTIVE',
    ]);
  });

  it('a bot restarted PAUSED, or HALTED with a pause, keeps both', () => {
    expect(new TradingStateMachine({ reduceAt: 0.8 }, 'PAUSED').state).toBe('PAUSED');
    const m = new TradingStateMachine({ reduceAt: 0.8 }, 'HALTED', true);
    m.rearm('re-armed', T);
    expect(m.state).toBe('PAUSED');
  });
});
