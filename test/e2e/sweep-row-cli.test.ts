// A sweep row is its YAML (issue 41): `sweep --write-row N FILE` writes the backtest file of row N, with the
// exits and protections in force spelled out, and `backtest --config FILE` gives the row's trade hash; the
// summary prints the exits in force. A bad --write-row exits 2 before any run.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-sweep-row-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// bollinger-reversion declares stopLoss 0.03, takeProfit 0.06 and cooldownAfterStop 5; the file adds a trail.
const CONFIG = `name: rows
dataset: synthetic-1m:5:6000
strategy: bollinger-reversion
exits: { trailingStop: { distance: '0.02', activation: '0.01' } }
`;

describe('sweep --write-row', () => {
  it('writes the backtest file of a row; backtesting it gives the row trade hash and prints the exits in force', async () => {
    const config = join(dir, 'rows.yaml');
    writeFileSync(config, CONFIG);
    const out = join(dir, 'out');
    const file = join(dir, 'rows', 'row-3.yaml');
    const sweep = await runCli(
      [
        'sweep',
        '-c',
        config,
        '--grid',
        'exits.trailingStop.distance=0.005,0.03 protections.cooldownAfterStop=0,5',
        '--workers',
        '1',
        '--out',
        out,
        '--write-row',
        '3',
        file,
      ],
      {},
      120_000,
    );
    expect(sweep.stderr).toBe('');
    expect(sweep.code).toBe(0);
    const rows = JSON.parse(readFileSync(join(out, 'rows-sweep', 'sweep.json'), 'utf8')) as {
      params: Record<string, unknown>;
      tradeHash: string;
    }[];
    const row = rows[2];
    expect(sweep.stdout).toContain(`wrote row 3 to ${file}`);
    const yaml = readFileSync(file, 'utf8');
    // The rules in force whole: the strategy's stop and target, the file's activation, the row's values.
    expect(yaml).toContain(`distance: "${String(row?.params['exits.trailingStop.distance'])}"`);
    expect(yaml).toContain('activation: "0.01"');
    expect(yaml).toContain('stopLoss: "0.03"');
    expect(yaml).toContain(`cooldownAfterStop: ${String(row?.params['protections.cooldownAfterStop'])}`);

    const bt = await runCli(['backtest', '--config', file, '--out', out], {}, 120_000);
    expect(bt.code).toBe(0);
    expect(bt.stdout).toMatch(new RegExp(`\\ntrade hash +${row?.tradeHash ?? 'none'}\\n`));
    expect(bt.stdout).toMatch(
      /\nexits +\{"stopLoss":"0.03","takeProfit":"0.06","trailingStop":\{"distance":"0.0\d+","activation":"0.01"\}\}\n/,
    );
    const json = JSON.parse(readFileSync(join(out, 'rows-row-3', 'result.json'), 'utf8')) as {
      meta: { exits: Record<string, unknown>; protections: Record<string, unknown> };
    };
    expect(json.meta.exits).toMatchObject({ stopLoss: '0.03', trailingStop: { activation: '0.01' } });
    expect(json.meta.protections).toEqual({
      cooldownAfterStop: row?.params['protections.cooldownAfterStop'],
    });
  });

  it('refuses a --write-row without a row number and a file, and grid values out of range, with exit 2', async () => {
    const config = join(dir, 'bad.yaml');
    writeFileSync(config, CONFIG.replace('name: rows', 'name: bad'));
    const noFile = await runCli(
      ['sweep', '-c', config, '--grid', 'period=10,20', '--write-row', '1'],
      {},
      60_000,
    );
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toMatch(/--write-row takes a row number and a file, e.g. --write-row 1 best.yaml/);
    const far = await runCli(['sweep', '-c', config, '--grid', 'exits.stopLoss=0.02,5'], {}, 60_000);
    expect(far.code).toBe(2);
    expect(far.stderr).toMatch(
      /exits\.stopLoss=5 is not valid: exits\.stopLoss: .*below 1 \(100%\), got 5 \(500%\)/,
    );
  });
});
