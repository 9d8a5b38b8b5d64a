import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { StrategyDefinitionError, createStrategy, defineStrategy } from '../../../src/strategy/contract.js';
import { NO_TYPESCRIPT, typeCheckStrategy } from '../../../src/strategy/type-check.js';

const base = {
  name: 'keys',
  description: 'A declaration with a key it does not know.',
  params: z.object({}),
  intervals: ['1m'] as const,
  onCandle() {},
};
const define = (extra: Record<string, unknown>) => () =>
  defineStrategy({ ...base, ...extra } as unknown as Parameters<typeof defineStrategy>[0]);

describe('the keys of a strategy declaration', () => {
  it('refuses a misspelt hook with the nearest known key, rather than never calling it', () => {
    expect(define({ onFil: () => undefined })).toThrow(StrategyDefinitionError);
    expect(define({ onFil: () => undefined })).toThrow(
      /unknown key "onFil" \(did you mean "onFill"\?\): the keys are name, description, .*onFill/,
    );
    expect(() =>
      createStrategy({ ...base, run: () => undefined, onCandle: undefined } as unknown as Parameters<
        typeof createStrategy
      >[0]),
    ).toThrow(/unknown key "onCandle"/);
  });

  it("gives freqtrade's names their equivalents, at the top and inside exits", () => {
    // The hint carries the strategy's own value, not the example's.
    expect(define({ stoploss: -0.05 })).toThrow(
      /"stoploss" is freqtrade's name: write exits: \{ stopLoss: '0\.05' \} .*freqtrade's -0\.05 is '0\.05'/,
    );
    expect(define({ minimal_roi: { 0: 0.04 } })).toThrow(
      /"minimal_roi" is freqtrade's name: write exits: \{ minimalRoi:/,
    );
    expect(define({ trailing_stop: true })).toThrow(
      /write exits: \{ trailingStop: \{ distance: '0\.02' \} \}/,
    );
    expect(define({ startup_candle_count: 200 })).toThrow(/write startupCandles: 200/);
    expect(define({ timeframe: '5m' })).toThrow(/"timeframe" is freqtrade's name: write intervals: \['5m'\]/);
    expect(define({ exits: { stoploss: '0.1' } })).toThrow(
      /exits: "stoploss" is freqtrade's name: write stopLoss: '0\.10'/,
    );
    expect(define({ exits: { stopLos: '0.1' } })).toThrow(
      /exits: unknown key "stopLos" \(did you mean "stopLoss"\?\)/,
    );
  });

  it('accepts every key it knows', () => {
    expect(
      define({ exits: { stopLoss: '0.05' }, startupCandles: 3, onFill: () => undefined })(),
    ).toMatchObject({
      name: 'keys',
    });
  });
});

describe('the type check of a strategy file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'type-check-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says that it skipped when TypeScript cannot be found, and how to enable it', async () => {
    const file = join(dir, 'any.ts');
    writeFileSync(file, 'export {};\n');
    expect(await typeCheckStrategy(file, { findTypeScript: () => undefined })).toEqual({
      checked: false,
      why: NO_TYPESCRIPT,
    });
    expect(NO_TYPESCRIPT).toMatch(
      /^TypeScript not found: skipped the type check, install typescript to enable it/,
    );
  });
});
