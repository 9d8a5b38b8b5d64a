import { readFileSync } from 'node:fs';
import { EMPTY, Subject, from, map, of } from 'rxjs';
import type { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Candle } from '../../../src/market/candle.js';
import { Decimal } from '../../../src/market/decimal.js';
import type { SessionState } from '../../../src/market/sessions.js';
import type { OrderIntent } from '../../../src/strategy/intent.js';
import {
  StrategyDefinitionError,
  StrategyRuntimeError,
  acceptsInterval,
  createStrategy,
  defineStrategy,
  isStrategy,
} from '../../../src/strategy/contract.js';
import { BollingerBands } from '../../../src/strategy/indicators.js';
import { buyMarket } from '../../../src/strategy/intent-builders.js';
import { decimalParam, parseStrategyParams } from '../../../src/strategy/params.js';
import { createTestContext } from '../../../src/strategy/testing.js';

const candle = (symbol: string, openTime: number, close: number): Candle => ({
  symbol,
  interval: '1m',
  openTime,
  open: close,
  high: close,
  low: close,
  close,
  volume: 1,
  turnover: close,
});
const regular: SessionState = {
  session: 'regular',
  nextChange: 0,
  daylightType: 'standard',
  etDate: '2026-01-05',
};

const everyCandle = defineStrategy({
  name: 'every-candle',
  description: 'Buys on every candle and counts sessions.',
  params: z.object({ amount: decimalParam('5', 'quote coin per candle') }),
  intervals: ['1m', '5m'],
  init: () => ({ sessions: [] as string[] }),
  onSession(s, _ctx, _emit, st) {
    st.sessions.push(s.session);
  },
  onCandle(c, ctx, emit, st) {
    emit(buyMarket(c.symbol, ctx.params.amount, 'tick', `sessions seen: ${st.sessions.join(',')}`));
  },
});

const collect = (obs: Observable<OrderIntent>): { out: OrderIntent[]; err: unknown; done: boolean } => {
  const r = { out: [] as OrderIntent[], err: undefined as unknown, done: false };
  obs.subscribe({
    next: (i) => r.out.push(i),
    error: (e: unknown) => (r.err = e),
    complete: () => (r.done = true),
  });
  return r;
};

describe('defineStrategy (callback style)', () => {
  it('compiles to the one contract: branded, declared intervals, parameters with defaults', () => {
    expect(isStrategy(everyCandle)).toBe(true);
    expect(acceptsInterval(everyCandle, '5m')).toBe(true);
    expect(acceptsInterval(everyCandle, '1H')).toBe(false);
    expect(parseStrategyParams(everyCandle, {}).amount).toEqual(new Decimal('5'));
  });

  it('delivers the session before candles and stamps the bot name and category on every intent', () => {
    const ctx = createTestContext({
      params: parseStrategyParams(everyCandle, {}),
      bot: 'b1',
      category: 'MARGIN',
    });
    const r = collect(
      everyCandle.run(ctx, { candles$: from([candle('AAPLUSDT', 0, 1)]), session$: of(regular) }),
    );
    expect(r.out).toEqual([
      expect.objectContaining({
        bot: 'b1',
        category: 'MARGIN',
        side: 'buy',
        reason: 'sessions seen: regular',
      }),
    ]);
    expect(r.done).toBe(true);
  });

  it('keeps per-run state apart for two bots running the same strategy', () => {
    const p = parseStrategyParams(everyCandle, {});
    const a = collect(
      everyCandle.run(createTestContext({ params: p, bot: 'a' }), { candles$: EMPTY, session$: of(regular) }),
    );
    const candles = new Subject<Candle>();
    const b = collect(
      everyCandle.run(createTestContext({ params: p, bot: 'b' }), { candles$: candles, session$: EMPTY }),
    );
    candles.next(candle('X', 0, 1));
    expect(a.out).toEqual([]);
    expect(b.out[0]?.reason).toBe('sessions seen: ');
  });

  it('ends the run with a StrategyRuntimeError naming the hook, its place in the strategy file, the symbol and the candle', () => {
    const seen: number[] = [];
    const boom = defineStrategy({
      name: 'boom',
      description: 'Throws on its second candle.',
      params: z.object({}),
      intervals: ['1m'],
      onCandle(c) {
        seen.push(c.openTime);
        if (c.openTime > 0) throw new Error('bad candle');
      },
    });
    const ctx = createTestContext({ params: {} });
    const r = collect(
      boom.run(ctx, { candles$: from([candle('X', 0, 1), candle('X', 60_000, 1)]), session$: EMPTY }),
    );
    expect(r.err).toBeInstanceOf(StrategyRuntimeError);
    // The place is the throw in this file (the strategy's own), line and column as an editor counts them.
    const lines = readFileSync(import.meta.filename, 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes("throw new Error('bad candle')")) + 1;
    const col = (lines[line - 1] as string).indexOf('new Error') + 1;
    expect((r.err as Error).message).toBe(
      `strategy "boom" failed in onCandle at test/unit/strategy/contract.test.ts:${line}:${col} (X, candle 1970-01-01T00:01:00.000Z): bad candle`,
    );
  });

  it('says that an indicator answers null until it is stable when a hook reads a field of null', () => {
    const early = defineStrategy({
      name: 'early',
      description: 'Reads the bands before they are ready.',
      params: z.object({}),
      intervals: ['1m'],
      init: () => new BollingerBands(20, 2),
      onCandle(c, _ctx, _emit, bb) {
        const bands = bb.update(c.close);
        if (c.close < (bands as { lower: number }).lower) throw new Error('unreachable');
      },
    });
    const r = collect(
      early.run(createTestContext({ params: {} }), {
        candles$: of(candle('BTCUSDT', 0, 1)),
        session$: EMPTY,
      }),
    );
    expect((r.err as Error).message).toMatch(
      /^strategy "early" failed in onCandle at test\/unit\/strategy\/contract\.test\.ts:\d+:\d+ \(BTCUSDT, candle 1970-01-01T00:00:00\.000Z\): Cannot read properties of null \(reading 'lower'\): an indicator answers null until it is stable: check for null/,
    );
  });

  it('names the symbol and the clock time when another hook (onFill) throws', () => {
    const s = defineStrategy({
      name: 'fill-thrower',
      description: 'Throws on its fills.',
      params: z.object({}),
      intervals: ['1m'],
      onCandle() {},
      onFill() {
        throw new Error('no');
      },
    });
    const fill = {
      symbol: 'ETHUSDT',
      side: 'buy',
      price: new Decimal(1),
      size: new Decimal(1),
      fee: new Decimal(0),
      tag: 't',
      clientOid: undefined,
      exitReason: undefined,
      ts: 0,
    } as const;
    const ctx = createTestContext({ params: {}, clock: { now: () => Date.UTC(2026, 10, 23, 15) } });
    const r = collect(
      s.run(ctx, { candles$: EMPTY, session$: EMPTY, orders$: of({ type: 'fill', ts: 0, fill }) }),
    );
    expect((r.err as Error).message).toMatch(
      /failed in onFill at test\/unit\/strategy\/contract\.test\.ts:\d+:\d+ \(ETHUSDT, 2026-11-23T15:00:00\.000Z\): no$/,
    );
  });

  it('refuses an intent carrying a JS number where money goes', () => {
    const cheat = defineStrategy({
      name: 'cheat',
      description: 'Emits a number as a quote amount.',
      params: z.object({}),
      intervals: ['1m'],
      onCandle(c, _ctx, emit) {
        emit({
          symbol: c.symbol,
          category: 'SPOT',
          side: 'buy',
          type: 'market',
          quoteAmount: 10,
          tag: 't',
          reason: 'r',
        } as unknown as OrderIntent);
      },
    });
    const r = collect(
      cheat.run(createTestContext({ params: {} }), { candles$: of(candle('X', 0, 1)), session$: EMPTY }),
    );
    expect(r.out).toEqual([]);
    expect(String(r.err)).toMatch(
      /quoteAmount of an order intent must be a Decimal, got the number 10: build the intent with buyMarket/,
    );
  });

  it('stops reading its inputs when unsubscribed', () => {
    const candles = new Subject<Candle>();
    const ctx = createTestContext({ params: parseStrategyParams(everyCandle, {}) });
    const out: OrderIntent[] = [];
    const sub = everyCandle.run(ctx, { candles$: candles, session$: EMPTY }).subscribe((i) => out.push(i));
    candles.next(candle('X', 0, 1));
    sub.unsubscribe();
    candles.next(candle('X', 60_000, 1));
    expect(out).toHaveLength(1);
    expect(candles.observed).toBe(false);
  });
});

describe('createStrategy (stream style)', () => {
  it('runs an RxJS pipeline and stamps its intents', () => {
    const s = createStrategy({
      name: 'dca',
      description: 'Buys 10 on every candle.',
      params: z.object({}),
      intervals: ['1m'],
      run: (_ctx, { candles$ }) =>
        candles$.pipe(map((c) => buyMarket(c.symbol, new Decimal('10'), 'dca', 'every candle'))),
    });
    const ctx = createTestContext({ params: {}, bot: 'dca-bot' });
    const r = collect(
      s.run(ctx, { candles$: from([candle('A', 0, 1), candle('B', 0, 1)]), session$: EMPTY }),
    );
    expect(r.out.map((i) => `${i.bot}:${i.symbol}`)).toEqual(['dca-bot:A', 'dca-bot:B']);
  });

  it('refuses a declaration that breaks the contract, listing every problem', () => {
    const bad = () =>
      createStrategy({
        name: 'Bad Name',
        description: '',
        params: z.object({ period: z.number().default(3), other: z.number().describe('x') }),
        intervals: ['7m' as '1m'],
        run: () => EMPTY,
      });
    expect(bad).toThrow(StrategyDefinitionError);
    expect(bad).toThrow(/name must be kebab-case/);
    expect(bad).toThrow(/description must be a non-empty sentence/);
    expect(bad).toThrow(/parameter "period" has no description/);
    expect(bad).toThrow(/parameter "other" has no default/);
    expect(bad).toThrow(/interval "7m" is not one of/);
  });
});
