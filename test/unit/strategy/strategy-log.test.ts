import { readFileSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StrategyLog, candleLogger, formatLogLine } from '../../../src/strategy/strategy-log.js';
import type { Candle } from '../../../src/market/candle.js';

const folder = mkdtempSync(join(tmpdir(), 'strategy-log-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const candle = { symbol: 'AAPLUSDT', openTime: Date.UTC(2026, 10, 23, 15, 4) } as Candle;

describe('a strategy log in a backtest', () => {
  it('stamps each call with the candle being decided, its symbol and the level', () => {
    const lines: string[] = [];
    const at: { deciding: Candle | undefined } = { deciding: undefined };
    const logger = candleLogger(
      (l) => lines.push(formatLogLine(l)),
      () => at.deciding,
    );
    logger.info('started');
    at.deciding = candle;
    logger.warn('spread wide', { spread: 0.5, note: 'two words' });
    expect(lines).toEqual([
      '- - info started',
      '2026-11-23T15:04:00.000Z AAPLUSDT warn spread wide spread=0.5 note="two words"',
    ]);
  });

  it('echoes from its level on, at most a burst then a rate, and says how many lines it did not show', () => {
    let now = 0;
    const shown: string[] = [];
    const log = new StrategyLog({
      level: 'info',
      write: (t) => shown.push(t),
      burst: 2,
      perSecond: 1,
      now: () => now,
    });
    const logger = candleLogger(log.add, () => candle);
    logger.debug('below the level'); // in the file only
    for (let i = 0; i < 5; i++) logger.info(`line ${i}`); // 2 shown, 3 held back
    now = 1000; // one more allowed
    logger.error('after a second');
    logger.info('dropped too');
    log.close();
    expect(shown).toEqual([
      'strategy: 2026-11-23T15:04:00.000Z AAPLUSDT info line 0\n',
      'strategy: 2026-11-23T15:04:00.000Z AAPLUSDT info line 1\n',
      'strategy: 3 log lines not shown here (too many at once); every line is in strategy.log\n',
      'strategy: 2026-11-23T15:04:00.000Z AAPLUSDT error after a second\n',
      'strategy: 1 log line not shown here (too many at once); every line is in strategy.log\n',
    ]);
    expect(log.lines).toBe(8);
    const file = log.moveInto(folder);
    expect(file).toBe(join(folder, 'strategy.log'));
    expect(readFileSync(file as string, 'utf8').split('\n')).toHaveLength(9);
  });

  it('writes no file when the strategy logged nothing', () => {
    const empty = mkdtempSync(join(folder, 'empty-'));
    expect(new StrategyLog().moveInto(empty)).toBeUndefined();
    expect(existsSync(join(empty, 'strategy.log'))).toBe(false);
  });
});
