// A candle CSV's header is read by name (columns in another order read the same, a header of other columns is
// refused with the expected ones), and a dataset path that is a folder is refused with its name.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openCandleFile } from '../../../src/data/format.js';
import { openDataset } from '../../../src/data/datasets.js';
import { HOUR, T0, fileWriterIn, headOf, readCandles, rowsOf } from '../../helpers/candle-text.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-csv-header-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = fileWriterIn(dir);
const read = readCandles;

describe('a CSV header read by name', () => {
  const first = headOf('BTCUSDT', '1H').split('\n')[0] as string;

  it('reads columns written in another order (and in another case) as the same candles', async () => {
    const canonical = file('canonical.csv', headOf('BTCUSDT', '1H') + rowsOf(3, HOUR));
    const swapped = file(
      'swapped.csv',
      `${first}\nClose,OPENTIME,high,low,open,volume,turnover\n` +
        Array.from({ length: 3 }, (_, i) => `100.75,${T0 + i * HOUR},101,100,100.5,12.5,1259.4\n`).join(''),
    );
    const a = await read(canonical);
    expect(await read(swapped)).toEqual(a);
    expect(a[0]).toMatchObject({ openTime: T0, open: 100.5, close: 100.75 });
  });

  it('names a bad field by the column the header gives it', async () => {
    const p = file(
      'swapped-bad.csv',
      `${first}\nclose,openTime,high,low,open,volume,turnover\nx,${T0},101,100,100.5,1,1\n`,
    );
    await expect(read(p)).rejects.toThrow(/swapped-bad\.csv:3: field 1 \(close\) "x" is not a plain decimal/);
  });

  it('refuses a header of other columns with the columns it expects, instead of reading it as a candle', async () => {
    const p = file(
      'foreign-head.csv',
      `${first}\nDate,Open,High,Low,Close,Adj Close,Volume\n${rowsOf(1, HOUR)}`,
    );
    await expect(read(p)).rejects.toThrow(
      `${p}:2: the header "Date,Open,High,Low,Close,Adj Close,Volume" is not a candle header ("Date", "Adj Close" are no candle columns; openTime, turnover are missing); a tradebot candle CSV has the columns openTime,open,high,low,close,volume,turnover (in any order)`,
    );
    const twice = file(
      'twice.csv',
      `${first}\nopenTime,open,open,low,close,volume,turnover\n${rowsOf(1, HOUR)}`,
    );
    await expect(read(twice)).rejects.toThrow(/open appears twice; high is missing/);
  });
});

describe('a dataset path that is not a file', () => {
  it('refuses a folder by its name, listing candle files in it, whatever the extension says', () => {
    for (const name of ['folder.csv', 'folder.feather', 'folder.parquet', 'folder.json', 'folder']) {
      const p = join(dir, name);
      mkdirSync(p);
      expect(() => openDataset(p, { cacheDir: undefined })).toThrow(
        `${p} is a folder, not a candle file: name one file (a .csv, .jsonl, .feather or .parquet file)`,
      );
    }
    writeFileSync(join(dir, 'folder', 'BTC_USDT-1h.feather'), '');
    expect(() => openDataset(join(dir, 'folder'), { cacheDir: undefined })).toThrow(
      `is a folder, not a candle file: name one file, such as ${join(dir, 'folder', 'BTC_USDT-1h.feather')}`,
    );
    expect(() => openCandleFile(join(dir, 'folder.csv'))).toThrow(/folder\.csv is a folder/);
  });
});
