// `tradebot record` resumes only onto a file of its own symbol, category and interval: another series' file, or a
// file that is no candle file at all, is refused with exit 2 and left as it was (issue 28). Refused before the
// embedded simulator starts, so nothing here depends on the day it runs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CandleFileWriter, metaFor } from '../../src/data/format.js';
import { SYNTHETIC_INSTRUMENT } from '../../src/data/synthetic.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-record-resume-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CAP_MS = 20_000;
const T0 = Date.UTC(2026, 0, 1);
const rec = (symbol: string, interval: string, out: string) => [
  ...['record', '--sim', '--category', 'SPOT', '--symbol', symbol, '--interval', interval],
  ...['--from', '2026-01-01', '--to', '2026-01-03', '--out', out],
];
/** A BTCUSDT 1H recording of three candles, as `tradebot record` writes it. */
async function btcFile(name: string): Promise<string> {
  const f = join(dir, name);
  const w = new CandleFileWriter(f, metaFor(SYNTHETIC_INSTRUMENT('BTCUSDT', 2), '1H'));
  for (let i = 0; i < 3; i++)
    w.write([String(T0 + i * 3_600_000), '100.5', '101', '100', '100.75', '12.5', '1259.4']);
  await w.close();
  return f;
}

describe('record resumes only onto its own series', () => {
  const rows: [string, (f: string) => string[], RegExp][] = [
    [
      "another symbol's file",
      (f) => rec('ETHUSDT', '1H', f),
      /holds BTCUSDT SPOT 1H candles \(its header\), not ETHUSDT SPOT 1H: a recording resumes only into a file of the same symbol; record into a new file/,
    ],
    [
      "another interval's file",
      (f) => rec('BTCUSDT', '1D', f),
      /holds BTCUSDT SPOT 1H candles \(its header\), not BTCUSDT SPOT 1D: .* the same interval/,
    ],
  ];
  it.each(rows)('refuses %s with exit 2 and leaves it as it was', async (name, args, message) => {
    const f = await btcFile(`${name.replaceAll(/\W/g, '')}.csv`);
    const before = readFileSync(f);
    const r = await runCli(args(f), {}, CAP_MS);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(readFileSync(f).equals(before)).toBe(true);
  });

  it('refuses a file that is not a candle file (it would have appended from 1970) and leaves it as it was', async () => {
    const f = join(dir, 'notes.csv');
    writeFileSync(f, 'hello\nworld\n0\n');
    const r = await runCli(rec('BTCUSDT', '1H', f), {}, CAP_MS);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /notes\.csv exists and is not a tradebot candle file, so a recording cannot resume there/,
    );
    expect(readFileSync(f, 'utf8')).toBe('hello\nworld\n0\n');
  });
});
