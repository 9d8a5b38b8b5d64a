// `backtest --from` loads the strategy's warm-up before the range (freqtrade loads its startup candles before
// --timerange) and says so: a 50-candle warm-up with --from at candle 120 may first trade on candle 120's
// decision (a fill at candle 121's open), not after 50 more candles inside the range.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-warm-up-from-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STRATEGY = join(import.meta.dirname, 'fixtures', 'buy-after-warm-up.mjs');
// synthetic-1m candles start at 2025-01-06T00:00Z, one a minute: candle 120 opens at 02:00.
const START = Date.UTC(2025, 0, 6);
const M = 60_000;

describe('backtest --from with a warm-up', () => {
  it('loads the 50 warm-up candles before --from 02:00 and first fills at candle 121, saying so', async () => {
    const r = await runCli(
      [
        'backtest',
        '--dataset',
        'synthetic-1m:3:600',
        '--strategy',
        STRATEGY,
        '--from',
        '2025-01-06T02:00:00Z',
        '--out',
        dir,
        '--name',
        'from',
      ],
      {},
      60_000,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'warm-up loaded before --from 2025-01-06T02:00Z: 50 candles from 2025-01-06T01:10Z, replayed without trading',
    );
    const result = JSON.parse(readFileSync(join(dir, 'from', 'result.json'), 'utf8')) as {
      fills: { ts: number }[];
    };
    // Decided on candle 120 (02:00) at its close, filled at the open of candle 121: not at candle 170.
    expect(result.fills[0]?.ts).toBe(START + 121 * M);
  });

  it('says how many it found when the data starts inside the warm-up', async () => {
    const r = await runCli(
      [
        'backtest',
        '--dataset',
        'synthetic-1m:3:600',
        '--strategy',
        STRATEGY,
        '--from',
        '2025-01-06T00:30:00Z',
        '--out',
        dir,
        '--name',
        'early',
      ],
      {},
      60_000,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'warm-up loaded before --from 2025-01-06T00:30Z: only 30 of the 50 candles from 2025-01-06T00:00Z, replayed without trading (the data starts there)',
    );
  });
});
