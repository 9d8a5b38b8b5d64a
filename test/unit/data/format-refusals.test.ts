// The candle-file refusal table: each malformed file is refused with its name, its line and what to fix;
// the same file made valid is read (so each row can fail both ways).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CandleFileMetaSchema,
  CandleFileWriter,
  candlesOf,
  lastOpenTime,
  openCandleFile,
  parseDecimalField,
} from '../../../src/data/format.js';
import { SYNTHETIC_INSTRUMENT } from '../../../src/data/synthetic.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-refusals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const meta = {
  format: 'tradebot-candles',
  version: 1,
  symbol: 'SYNUSDT',
  category: 'SPOT',
  interval: '1m',
  instrument: SYNTHETIC_INSTRUMENT('SYNUSDT', 2),
};
const HEAD = `# tradebot-candles v1 ${JSON.stringify(meta)}\nopenTime,open,high,low,close,volume,turnover\n`;
const OK1 = '1767225600000,100.5,101,100,100.75,12.5,1259.4';
const OK2 = '1767225660000,100.75,100.9,99.5,99.9,3,299.7';

async function read(path: string) {
  const out = [];
  for await (const c of candlesOf(openCandleFile(path))) out.push(c);
  return out;
}

// [name, body after the header (candle lines), expected message]; line 3 is the first candle.
const table: [string, string, RegExp][] = [
  ['five fields', `${OK1}\n1767225660000,100.75,100.9,99.5,99.9\n`, /:4: 5 fields where a candle has 7/],
  ['eight fields', `${OK1},9\n`, /:3: 8 fields where a candle has 7/],
  [
    'an exponent',
    `1767225600000,9.3e4,93001,92000,93000,1,1\n`,
    /:3: field 2 \(open\) "9.3e4" is not a plain decimal/,
  ],
  [
    'a plus sign',
    `1767225600000,+100,101,99,100,1,1\n`,
    /:3: field 2 \(open\) "\+100" is not a plain decimal/,
  ],
  [
    'a negative volume',
    `1767225600000,100,101,99,100,-1,1\n`,
    /:3: field 6 \(volume\) "-1" is not a plain decimal/,
  ],
  [
    'a negative price',
    `1767225600000,-100,101,99,100,1,1\n`,
    /:3: field 2 \(open\) "-100" is not a plain decimal/,
  ],
  ['a zero price', `1767225600000,0,0,0,0,1,1\n`, /:3: open, high, low and close must be positive/],
  ['an empty field', `1767225600000,100,,99,100,1,1\n`, /:3: field 3 \(high\) "" is not a plain decimal/],
  [
    'a trailing dot',
    `1767225600000,100.,101,99,100,1,1\n`,
    /:3: field 2 \(open\) "100\." is not a plain decimal/,
  ],
  [
    'a fractional openTime',
    `1767225600000.5,100,101,99,100,1,1\n`,
    /:3: openTime 1767225600000\.5 must be whole/,
  ],
  [
    'a truncated last line',
    `${OK1}\n1767225660000,100.75,100.9,99.5,99.9,3,29`,
    /:4: the last line has no end of line/,
  ],
  ['a header only', ``, /: no candles after the header/],
  ['a high below the close', `1767225600000,100,99,98,100,1,1\n`, /:3: high must be >=/],
  ['a duplicate', `${OK1}\n${OK1}\n`, /:4: duplicate openTime/],
];

describe('candle files refused precisely', () => {
  for (const [name, body, message] of table) {
    it(`refuses ${name} with the file name and line`, async () => {
      const p = join(dir, `${name.replaceAll(' ', '-')}.csv`);
      writeFileSync(p, HEAD + body);
      const err = await read(p).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toContain(p);
      expect((err as Error).message).toMatch(message);
    });
  }

  it('reads the valid counterpart of the table (so the refusals are about the defects)', async () => {
    const p = join(dir, 'valid.csv');
    writeFileSync(p, `${HEAD}${OK1}\n${OK2}\n`);
    expect((await read(p)).map((c) => c.close)).toEqual([100.75, 99.9]);
  });

  it('tolerates a UTF-8 byte-order mark and CRLF line ends', async () => {
    const p = join(dir, 'bom.csv');
    writeFileSync(p, `\uFEFF${HEAD}${OK1}\n${OK2}\n`.replaceAll('\n', '\r\n'));
    expect((await read(p)).map((c) => c.openTime)).toEqual([1767225600000, 1767225660000]);
  });

  it('names the file when a .gz is not gzip or is cut short', async () => {
    const notGz = join(dir, 'plain.csv.gz');
    writeFileSync(notGz, `${HEAD}${OK1}\n`);
    expect(() => openCandleFile(notGz)).toThrow(new RegExp(`${notGz}: not a gzip file`));
    const full = gzipSync(Buffer.from(`${HEAD}${`${OK1}\n`.repeat(1)}${OK2}\n`.repeat(1)));
    const cut = join(dir, 'cut.csv.gz');
    writeFileSync(cut, full.subarray(0, full.length - 12));
    await expect(read(cut)).rejects.toThrow(new RegExp(`${cut}: not a complete gzip file`));
    const whole = join(dir, 'whole.csv.gz');
    writeFileSync(whole, full);
    expect(await read(whole)).toHaveLength(2);
    expect(readFileSync(whole).length).toBe(full.length);
  });

  it('parses decimals exactly as Number() does', () => {
    for (const s of [
      '0.1',
      '100.75',
      '93512.4',
      '0.00012345',
      '123456789012345',
      '1767225600000',
      '12345.678901234567',
    ])
      expect(parseDecimalField(s, 0, s.length)).toBe(Number(s));
    for (const s of ['1e3', '-1', '+1', '.5', '5.', '1.2.3', '', ' 1', '0x10', 'Infinity'])
      expect(parseDecimalField(s, 0, s.length)).toBeNaN();
  });

  it('parses any plain decimal of up to 20 digits exactly as Number() (property)', () => {
    const digits = fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 10 });
    fc.assert(
      fc.property(digits, fc.option(digits, { nil: undefined }), (int, frac) => {
        const s = frac === undefined ? int : `${int}.${frac}`;
        expect(parseDecimalField(s, 0, s.length)).toBe(Number(s));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('resuming a recording cut mid-line', () => {
  it('resumes after the last whole line and drops the half line, so the file reads again', async () => {
    const p = join(dir, 'cut-recording.csv');
    writeFileSync(p, `${HEAD}${OK1}\n1767225660000,100.75,100.9`);
    expect(lastOpenTime(p)).toBe(1767225600000);
    const w = new CandleFileWriter(p, CandleFileMetaSchema.parse(meta));
    w.write(OK2.split(','));
    await w.close();
    expect((await read(p)).map((c) => c.openTime)).toEqual([1767225600000, 1767225660000]);
  });
});
