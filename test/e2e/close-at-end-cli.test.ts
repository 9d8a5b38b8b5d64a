// `closeAtEnd` through the CLI (issue 30): the backtest file's `closeAtEnd: true` and the `--close-at-end` flag
// sell the position still open at the end at the last close (exit reason end_of_backtest); without either, the
// summary and result.json list it as open, marked at the last close.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-close-at-end-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface ResultJson {
  meta: { closeAtEnd?: boolean };
  openPositions: { symbol: string; size: string; mark: string; unrealisedPnl: string }[];
  trades: { entryTag: string; exitReason: string }[];
}
const result = (name: string) =>
  JSON.parse(readFileSync(join(dir, 'out', name, 'result.json'), 'utf8')) as ResultJson;

describe('backtest closeAtEnd', () => {
  it('lists the open position by default, and sells it at the last close with the file key or the flag', async () => {
    // ma-crossover on this series ends holding a position (a golden cross without its death cross).
    const file = (name: string, extra = '') => {
      const f = join(dir, `${name}.yaml`);
      writeFileSync(f, `name: ${name}\ndataset: synthetic-1m:3:3000\nstrategy: ma-crossover\n${extra}`);
      return f;
    };
    const out = join(dir, 'out');
    const open = await runCli(['backtest', '--config', file('open'), '--out', out], {}, 60_000);
    expect(open.code).toBe(0);
    expect(open.stdout).toMatch(
      /\nopen positions +total return includes unrealised PnL of -?[\d.,]+ on 1 open position/,
    );
    const r = result('open');
    expect(r.openPositions).toHaveLength(1);
    expect(r.openPositions[0]?.symbol).toBe('SYNUSDT');
    expect(r.trades.at(-1)?.exitReason).not.toBe('end_of_backtest');

    const keyed = await runCli(
      ['backtest', '--config', file('keyed', 'closeAtEnd: true\n'), '--out', out],
      {},
      60_000,
    );
    const flagged = await runCli(
      ['backtest', '--config', file('flagged'), '--out', out, '--close-at-end'],
      {},
      60_000,
    );
    for (const [run, name] of [
      [keyed, 'keyed'],
      [flagged, 'flagged'],
    ] as const) {
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(
        /\nopen positions +none \(closeAtEnd: sold at the last close, exit reason end_of_backtest\)\n/,
      );
      const c = result(name);
      expect(c.meta.closeAtEnd).toBe(true);
      expect(c.openPositions).toEqual([]);
      expect(c.trades).toHaveLength(r.trades.length + 1);
      expect(c.trades.at(-1)).toMatchObject({ entryTag: 'golden-cross', exitReason: 'end_of_backtest' });
    }
  }, 180_000);
});
