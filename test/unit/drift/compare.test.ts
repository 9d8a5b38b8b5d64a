// The drift comparison on hand-built journals and replays: each kind of difference with its cause, and
// `unexplained` only where no known way for live to differ from the replay fits.
import { describe, expect, it } from 'vitest';
import {
  compareDrift,
  startsOf,
  type DriftInputs,
  type LiveIntent,
  type ReplayIntent,
  type VenueCandle,
} from '../../../src/drift/compare.js';
import { Decimal } from '../../../src/market/decimal.js';
import type { DecidedCandle, DecisionPhase } from '../../../src/store/index.js';

const M = 60_000;
const T0 = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET
const at = (k: number): number => T0 + k * M;

/** The venue's candle k (opening at T0 + k minutes): close 100 + k, volume 10. */
const venue = (k: number, symbol = 'AAPLUSDT'): VenueCandle => ({
  symbol,
  openTime: at(k),
  open: String(100 + k - 1),
  high: String(100 + k + 1),
  low: String(100 + k - 2),
  close: String(100 + k),
  volume: '10',
});

/** The bot's row of candle k: as the venue has it, decided `lateMs` after its close. */
const row = (
  k: number,
  phase: DecisionPhase = 'live',
  lateMs = 2000,
  over: Partial<DecidedCandle> = {},
): DecidedCandle => {
  const v = venue(k);
  return {
    bot: 'b',
    symbol: v.symbol,
    interval: '1m',
    openTime: v.openTime,
    open: v.open,
    high: v.high,
    low: v.low,
    close: v.close,
    volume: v.volume,
    decidedTs: at(k + 1) + lateMs,
    phase,
    ...over,
  };
};

const live = (k: number, side: 'buy' | 'sell', decision = 'approved', lateMs = 2000): LiveIntent => ({
  symbol: 'AAPLUSDT',
  side,
  tag: side === 'buy' ? 'golden_cross' : 'death_cross',
  decision,
  ts: at(k + 1) + lateMs,
});
const replay = (k: number, side: 'buy' | 'sell', decision = 'approved'): ReplayIntent => ({
  symbol: 'AAPLUSDT',
  side,
  tag: side === 'buy' ? 'golden_cross' : 'death_cross',
  decision,
  candle: at(k),
});

/** Ten candles, all decided live on time; no intents. */
function inputs(over: Partial<DriftInputs> = {}): DriftInputs {
  const ks = [...Array(10).keys()];
  return {
    bot: 'b',
    stepMs: M,
    from: at(0),
    to: at(10),
    lateAfterMs: 3 * M,
    venueCandles: ks.map((k) => venue(k)),
    decided: ks.map((k) => row(k)),
    liveIntents: [],
    replayIntents: [],
    orders: [],
    liveFills: [],
    replayFills: [],
    controls: [],
    feeRate: new Decimal('0.001'),
    ...over,
  };
}

describe('the drift comparison', () => {
  it('finds no difference when live decided every candle as the venue closed it, with the same intents', () => {
    const r = compareDrift(
      inputs({
        liveIntents: [live(3, 'buy'), live(7, 'sell')],
        replayIntents: [replay(3, 'buy'), replay(7, 'sell')],
      }),
    );
    expect(r.differences).toEqual([]);
    expect(r.intents).toEqual({ live: 2, replay: 2, equal: 2 });
    expect(r.unexplained).toBe(0);
  });

  it('names a candle decided while forming (same open, less volume, inside the range) forming_candle', () => {
    const decided = inputs().decided.map((r) =>
      r.openTime === at(4) ? { ...r, close: '103.5', volume: '6' } : r,
    );
    const r = compareDrift(inputs({ decided }));
    expect(r.differences).toMatchObject([{ kind: 'candle_forming', cause: 'forming_candle', candle: at(4) }]);
    expect(r.unexplained).toBe(0);
  });

  it('names a candle whose close differs at full volume unexplained, with the bot, candle and fields', () => {
    const decided = inputs().decided.map((r) => (r.openTime === at(4) ? { ...r, close: '110' } : r));
    const r = compareDrift(inputs({ decided }));
    expect(r.unexplained).toBe(1);
    expect(r.differences[0]).toMatchObject({
      kind: 'candle_differs',
      cause: 'unexplained',
      symbol: 'AAPLUSDT',
      candle: at(4),
    });
    expect(r.differences[0]?.detail).toMatch(/close 110 \(venue 104\)/);
  });

  it('names a candle seen only by the warm-up after a restart restart_gap, and the signal lost on it too', () => {
    // Running until candle 4; killed; restarted at candle 7's close: candles 5 and 6 only warm the strategy up.
    const decided = [
      ...[0, 1, 2, 3, 4].map((k) => row(k)),
      ...[2, 3, 4, 5, 6].map((k) => ({ ...row(k, 'warm_up'), decidedTs: at(7) + 500 + k })),
      ...[7, 8, 9].map((k) => row(k)),
    ];
    expect(startsOf(decided)).toEqual([at(1) + 2000, at(7) + 502]);
    const r = compareDrift(inputs({ decided, replayIntents: [replay(5, 'buy')] }));
    expect(r.differences.map((d) => [d.kind, d.cause, d.candle])).toEqual([
      ['intent_missing', 'restart_gap', at(5)],
      ['candle_not_decided', 'restart_gap', at(5)],
      ['candle_not_decided', 'restart_gap', at(6)],
    ]);
    expect(r.unexplained).toBe(0);
  });

  it('names a signal lost while the restarted strategy had seen no more than its warm-up and one candle restart_gap', () => {
    // Killed after candle 4; restarted at candle 5's close with a warm-up of 2: candles 4 and 5 warm it up again.
    const decided = [
      ...[0, 1, 2, 3, 4].map((k) => row(k)),
      ...[4, 5].map((k) => ({ ...row(k, 'warm_up'), decidedTs: at(6) + 100 })),
      ...[6, 7, 8, 9].map((k) => row(k)),
    ];
    const r = compareDrift(
      inputs({ decided, warmUpCandles: 2, replayIntents: [replay(6, 'buy'), replay(8, 'sell')] }),
    );
    expect(r.differences.map((d) => [d.kind, d.cause, d.candle])).toEqual([
      ['candle_not_decided', 'restart_gap', at(5)],
      ['intent_missing', 'restart_gap', at(6)],
      ['intent_missing', 'restart_gap', at(8)],
    ]);
    expect(r.differences[1]?.follows).toMatch(/had seen 3 candles of AAPLUSDT since/);
    // Without the restart, the same missing signal is unexplained.
    const calm = compareDrift(inputs({ warmUpCandles: 2, replayIntents: [replay(6, 'buy')] }));
    expect(calm.differences).toMatchObject([{ kind: 'intent_missing', cause: 'unexplained' }]);
  });

  it('names a signal denied STALE_SIGNAL stale_signal, and the exit the replay then makes follows it', () => {
    // Candles 3 to 7 come in one burst at 8 minutes past candle 3's close (a late answer): one instant for all.
    const burst = at(8) + 100;
    const decided = inputs().decided.map((r) =>
      r.openTime >= at(3) && r.openTime <= at(7) ? { ...r, decidedTs: burst, phase: 'replay' as const } : r,
    );
    const r = compareDrift(
      inputs({
        decided,
        liveIntents: [{ ...live(3, 'buy', 'STALE_SIGNAL'), ts: burst }],
        replayIntents: [replay(3, 'buy'), replay(8, 'sell')],
      }),
    );
    expect(r.differences.map((d) => [d.kind, d.cause, d.candle])).toEqual([
      ['candle_late', 'late_decision', at(3)],
      ['candle_late', 'late_decision', at(4)],
      ['decision_differs', 'stale_signal', at(3)],
      ['intent_missing', 'stale_signal', at(8)],
    ]);
    expect(r.differences[3]?.follows).toMatch(/decision_differs \(stale_signal\)/);
    expect(r.unexplained).toBe(0);
  });

  it('names decisions that stay late after a start late_decision (a clock ahead), not restart_gap', () => {
    // Restarted at candle 5's close; from then on every decision is 30 minutes after its candle's close.
    const decided = [
      ...[0, 1, 2, 3, 4].map((k) => row(k)),
      ...[3, 4].map((k) => ({ ...row(k, 'warm_up'), decidedTs: at(6) + 30 * M })),
      ...[5, 6, 7].map((k) => row(k, 'replay', 30 * M)),
    ];
    const r = compareDrift(inputs({ decided, venueCandles: inputs().venueCandles.slice(0, 8) }));
    expect(r.differences.map((d) => [d.kind, d.cause, d.candle])).toEqual([
      ['candle_late', 'late_decision', at(5)],
      ['candle_late', 'late_decision', at(6)],
      ['candle_late', 'late_decision', at(7)],
    ]);
    expect(r.differences[0]?.detail).toMatch(/the candles after it too: the daemon's clock ran ahead/);
  });

  it("names the operator's flatten operator_action and a venue's refusal venue_refusal", () => {
    const r = compareDrift(
      inputs({
        liveIntents: [live(3, 'buy'), { ...live(5, 'sell'), tag: 'flatten' }],
        replayIntents: [replay(3, 'buy')],
        controls: [{ ts: at(6), action: 'flatten', who: 'local', reason: 'test' }],
        orders: [
          {
            ts: at(4) + 2000,
            symbol: 'AAPLUSDT',
            side: 'buy',
            tag: 'golden_cross',
            state: 'rejected',
            clientOid: 'x',
            reject: '40762 balance',
          },
        ],
      }),
    );
    expect(r.differences.map((d) => [d.kind, d.cause])).toEqual([
      ['order_refused', 'venue_refusal'],
      ['intent_extra', 'operator_action'],
    ]);
  });

  it('names a candle the bot never decided missing_candle, or restart_gap when it closed while the bot was down', () => {
    const decided = inputs().decided.filter((r) => r.openTime !== at(4));
    expect(compareDrift(inputs({ decided })).differences).toMatchObject([
      { kind: 'candle_missing', cause: 'missing_candle' },
    ]);
  });

  it('accepts a fill inside the venue candle range (book vs candle) and names a fee at another rate fee', () => {
    const fill = (price: string, fee: string) => ({
      ts: at(4) + 3000,
      symbol: 'AAPLUSDT',
      side: 'buy' as const,
      tag: 'golden_cross',
      price: new Decimal(price),
      size: new Decimal('10'),
      fee: new Decimal(fee),
      key: 'o1',
    });
    const replayFill = { ...fill('103', '1.03'), ts: at(4), key: 'r1' };
    const ok = compareDrift(inputs({ liveFills: [fill('103.4', '1.034')], replayFills: [replayFill] }));
    expect(ok.differences).toEqual([]);
    expect(ok.fills).toEqual({ live: 1, replay: 1, withinModel: 1 });
    const fee = compareDrift(inputs({ liveFills: [fill('103.4', '2.068')], replayFills: [replayFill] }));
    expect(fee.differences).toMatchObject([{ kind: 'fee_differs', cause: 'fee' }]);
    const far = compareDrift(inputs({ liveFills: [fill('150', '1.5')], replayFills: [replayFill] }));
    expect(far.differences).toMatchObject([{ kind: 'fill_price', cause: 'unexplained' }]);
  });
});
