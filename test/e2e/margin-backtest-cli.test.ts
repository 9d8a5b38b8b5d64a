// A MARGIN backtest from the user's path (issue 44): the backtest file's `category: MARGIN` and `leverage`
// entries (a deployment bot's shape), or --category and --leverage, run ma-crossover-short on a bundled dataset
// through the built CLI: it sells short and covers, and result.json says MARGIN with the leverage. Bad margin
// input exits 2 with the field and the fix.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-margin-backtest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const out = join(dir, 'out');

interface ResultJson {
  meta: { category?: string; leverage?: Record<string, string> };
  fills: { side: string; size: string; tag: string; price: string }[];
  trades: { side: string; entryPrice: string; exitPrice: string; quantity: string; pnl: string }[];
  openPositions: { size: string; entryTag: string }[];
}
const result = (name: string) =>
  JSON.parse(readFileSync(join(out, name, 'result.json'), 'utf8')) as ResultJson;

describe('backtest category MARGIN', () => {
  it('runs config/backtest-short.yaml: ma-crossover-short sells SPX short and covers it', async () => {
    const run = await runCli(
      ['backtest', '--config', 'config/backtest-short.yaml', '--out', out],
      {},
      60_000,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const r = result('sp500-short');
    expect(r.meta.category).toBe('MARGIN');
    expect(r.meta.leverage).toEqual({ SPX: '3' });
    // Every death cross sells 1 SPX the account does not hold (a borrow), every golden cross buys it back.
    expect(r.fills.length).toBeGreaterThan(10);
    r.fills.forEach((f, i) => {
      expect(`${f.side} ${f.size} ${f.tag}`).toBe(i % 2 === 0 ? 'sell 1 short' : 'buy 1 cover');
    });
    // The last death cross's short is still open at the end: listed, negative, and said in the summary.
    expect(r.openPositions).toMatchObject(
      r.fills.length % 2 === 1 ? [{ size: '-1', entryTag: 'short' }] : [],
    );
    if (r.fills.length % 2 === 1) expect(run.stdout).toMatch(/SPXUSDT -1 sold short at /);
    // Each round trip is a short: entered at its sell, exited at its cover, PnL the sell less the cover and fees.
    expect(r.trades.length).toBe(Math.floor(r.fills.length / 2));
    for (const t of r.trades) expect(t.side).toBe('short');
    expect(r.trades[0]?.entryPrice).toBe(r.fills[0]?.price);
    // The summary and the report split the closed trades long / short.
    const shortWins = r.trades.filter((t) => Number(t.pnl) > 0).length;
    expect(run.stdout).toMatch(new RegExp(`^  long +0 closed / - won; PnL 0\\.00, fees 0\\.00$`, 'm'));
    expect(run.stdout).toMatch(new RegExp(`^  short +${r.trades.length} closed / [\\d.]+% won`, 'm'));
    expect(shortWins).toBeGreaterThan(0);
    const html = readFileSync(join(out, 'sp500-short', 'report.html'), 'utf8');
    expect(html).toMatch(/<table id="sides">.*<td>short<\/td><td>\d+<\/td>/s);
  });

  it('takes --category and --leverage, and the same run as SPOT cannot short', async () => {
    const args = ['backtest', '--dataset', 'sp500-daily', '--strategy', 'ma-crossover-short', '--out', out];
    const params = ['--params', '{"fast":20,"slow":100,"quantity":"1"}', '--to', '2004-12-31'];
    const margin = await runCli(
      [...args, ...params, '--name', 'flags', '--category', 'MARGIN', '--leverage', 'SPX=3'],
      {},
      60_000,
    );
    expect(margin.code).toBe(0);
    const m = result('flags');
    expect(m.meta).toMatchObject({ category: 'MARGIN', leverage: { SPX: '3' } });
    expect(m.fills[0]).toMatchObject({ side: 'sell', tag: 'short' });

    const spot = await runCli([...args, ...params, '--name', 'spot'], {}, 60_000);
    expect(spot.code).toBe(0);
    const s = result('spot');
    expect(s.meta.category).toBeUndefined();
    expect(s.fills).toEqual([]);
  });

  it('refuses margin input the run could not use, naming the field and the fix (exit 2)', async () => {
    const file = (name: string, extra: string) => {
      const f = join(dir, `${name}.yaml`);
      writeFileSync(f, `name: ${name}\ndataset: sp500-daily\nstrategy: ma-crossover-short\n${extra}`);
      return f;
    };
    const margin = "category: MARGIN\nleverage: [{ category: MARGIN, coin: SPX, leverage: '2' }]\n";
    const cases: [string[], RegExp][] = [
      [
        ['--config', file('no-lev', 'category: MARGIN\n')],
        /leverage: a MARGIN backtest borrows within the leverage set per coin .*add leverage:/,
      ],
      [
        ['--config', file('spot-lev', "leverage: [{ category: MARGIN, coin: SPX, leverage: '3' }]\n")],
        /category: leverage entries apply to a MARGIN backtest: set category: MARGIN/,
      ],
      [
        [
          '--config',
          file(
            'futures',
            "category: MARGIN\nleverage: [{ category: USDT-FUTURES, symbol: SPXUSDT, leverage: '3' }]\n",
          ),
        ],
        /futures\.yaml:5:24 leverage\[0\]\.category: a backtest sets MARGIN leverage only/,
      ],
      [
        ['--config', file('ok', margin), '--leverage', 'SPX'],
        /--leverage must be COIN=LEVERAGE pairs, e\.g\. SPX=3/,
      ],
      [
        ['--config', file('ok2', margin), '--leverage', 'SPX=9'],
        /leverage: 9 for SPX is outside 1 to 3 .*maxCrossedLeverage/,
      ],
      [
        ['--config', file('ok3', margin), '--leverage', 'AAPL=2'],
        /leverage: coin AAPL is not a coin of the backtest's pairs: use one of SPX, USDT/,
      ],
    ];
    for (const [args, re] of cases) {
      const run = await runCli(['backtest', ...args, '--out', out], {}, 60_000);
      expect(run.stderr).toMatch(re);
      expect(run.code).toBe(2);
    }
  });
});
