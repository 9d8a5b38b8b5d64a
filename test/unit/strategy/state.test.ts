import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/market/decimal.js';
import type { JsonValue } from '../../../src/strategy/state.js';
import { MemoryStrategyState, StateError, toJsonText } from '../../../src/strategy/state.js';

describe('strategy state', () => {
  it('gives back a copy of what was set, and resumes from saved text', () => {
    const st = new MemoryStrategyState();
    expect(st.get()).toBeUndefined();
    const v = { day: '2026-01-05', levels: [1.5, 2], done: false, note: null };
    st.set(v);
    const got = st.get<typeof v>();
    expect(got).toEqual(v);
    expect(got).not.toBe(v);
    expect(new MemoryStrategyState(st.toJSON()).get()).toEqual(v);
  });

  it('refuses values that would not survive a restart, naming the path', () => {
    expect(() => toJsonText({ a: [1, Number.NaN] })).toThrow(/strategy state \$\.a\[1\] is NaN/);
    expect(() => toJsonText({ qty: new Decimal(1) })).toThrow(
      /\$\.qty is a Decimal.*store plain objects \(e\.g\. a Decimal as its string\)/,
    );
    expect(() => toJsonText({ when: new Date(0) })).toThrow(StateError);
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => new MemoryStrategyState().set(loop as JsonValue)).toThrow(/circular/);
  });
});
