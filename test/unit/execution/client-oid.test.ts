// Deterministic client order ids: the same intent re-derived after a restart gets the same id.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateParams } from '../../../src/api/index.js';
import { IntentSequencer, base36Of160, deriveClientOid } from '../../../src/execution/client-oid.js';
import { triggerTimeOf } from '../../../scripts/endurance-report.js';

const base = {
  bot: 'sma',
  symbol: 'AAPLUSDT',
  side: 'buy',
  tag: 'entry',
  triggerTime: 1_795_446_000_000,
  seq: 0,
};

describe('deriveClientOid', () => {
  it('gives the same id for the same inputs, and a different one when any input changes', () => {
    expect(deriveClientOid(base)).toBe(deriveClientOid({ ...base }));
    const variants = [
      { bot: 'sma2' },
      { symbol: 'MSFTUSDT' },
      { side: 'sell' },
      { tag: 'exit' },
      { triggerTime: base.triggerTime + 60_000 },
      { seq: 1 },
    ];
    const ids = new Set([deriveClientOid(base), ...variants.map((v) => deriveClientOid({ ...base, ...v }))]);
    expect(ids.size).toBe(variants.length + 1);
  });

  it('keeps the shape and stays distinct for trigger times and sequence numbers it cannot write out', () => {
    const odd = [
      { triggerTime: -1 },
      { triggerTime: 1.5 },
      { triggerTime: 36 ** 9 },
      { triggerTime: Number.NaN },
      { seq: 36 ** 5 },
      { seq: -1 },
    ];
    const ids = [deriveClientOid(base), ...odd.map((v) => deriveClientOid({ ...base, ...v }))];
    for (const id of ids) expect(id).toMatch(/^tb[0-9a-z]{30}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // The same odd input gives the same id again (a restart re-derives it).
    expect(deriveClientOid({ ...base, triggerTime: -1 })).toBe(ids[1]);
  });

  it('is always accepted by place-reality-order as a clientOid', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.oneof(fc.nat(), fc.double()),
        fc.nat({ max: 50 }),
        (bot, tag, t, seq) => {
          const clientOid = deriveClientOid({ ...base, bot, tag, triggerTime: t, seq });
          expect(clientOid).toMatch(/^tb[0-9a-z]{30}$/);
          const v = validateParams('placeRealityOrder', {
            symbol: 'AAPLUSDT',
            side: 'buy',
            orderType: 'market',
            qty: '10',
            clientOid,
          });
          expect(v.ok).toBe(true);
        },
      ),
    );
  });
});

describe('the trigger time in a clientOid', () => {
  it('reads back as the endurance run reads it, to measure decision lateness from the journal', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        fc.integer({ min: 0, max: 1000 }),
        (t, seq) => {
          expect(triggerTimeOf(deriveClientOid({ ...base, triggerTime: t, seq }))).toBe(t);
        },
      ),
    );
    expect(triggerTimeOf(deriveClientOid({ ...base, triggerTime: -1 }))).not.toBe(-1);
  });
});

describe('IntentSequencer', () => {
  it('numbers the intents of one trigger time and starts again at the next', () => {
    const s = new IntentSequencer();
    expect([s.next(1), s.next(1), s.next(1), s.next(2), s.next(2), s.next(3)]).toEqual([0, 1, 2, 0, 1, 0]);
  });
});

describe('base36Of160', () => {
  it('equals BigInt base-36 of the first 160 bits', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 32 }), (bytes) => {
        const hex = Buffer.from(bytes.subarray(0, 20)).toString('hex');
        expect(base36Of160(bytes)).toBe(BigInt(`0x${hex}`).toString(36));
      }),
    );
    expect(base36Of160(new Uint8Array(20))).toBe('0');
  });
});
