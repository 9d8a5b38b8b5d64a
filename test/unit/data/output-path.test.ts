// Every path tradebot writes to goes through one check and one folder-maker: a path that cannot be used is a
// sentence naming the setting and the fix, at once (never a recursive mkdir spinning under /proc), and nothing is
// created for a refused path.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  OutputPathError,
  makeFolders,
  outputPathProblem,
  prepareOutput,
} from '../../../src/data/output-path.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tradebot-output-path-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const folder = { what: '--out', kind: 'folder' } as const;
const file = { what: '--out', kind: 'file' } as const;

describe('outputPathProblem', () => {
  it('refuses a virtual file system at once, for a folder and a file', () => {
    expect(outputPathProblem('/proc/x/y', folder)).toBe(
      '--out /proc/x/y is on /proc, a virtual file system that cannot hold files: point --out at a folder on a disk',
    );
    expect(outputPathProblem('/sys/x.csv', { ...file, example: 'backtest/data/btc-1m.csv' })).toMatch(
      /^--out \/sys\/x\.csv is on \/sys, .*: point --out at a file on a disk, such as backtest\/data\/btc-1m\.csv$/,
    );
  });

  it('refuses a path whose folder on the way is a file, naming that file', () => {
    writeFileSync(join(dir, 'F'), 'x');
    expect(outputPathProblem(join(dir, 'F', 'deeper', 'x.csv'), file)).toBe(
      `--out ${join(dir, 'F', 'deeper', 'x.csv')} cannot be created: ${join(dir, 'F')} is a file, not a folder; point --out elsewhere`,
    );
    expect(outputPathProblem(join(dir, 'F', 'run'), folder)).toMatch(/F is a file, not a folder/);
  });

  it('refuses a file where a folder must be, and a folder where a file must be', () => {
    writeFileSync(join(dir, 'F'), 'x');
    expect(outputPathProblem(join(dir, 'F'), folder)).toMatch(
      /^--out \S+F is a file, not a folder: point --out at a folder/,
    );
    mkdirSync(join(dir, 'D'));
    expect(outputPathProblem(join(dir, 'D'), file)).toMatch(/^--out \S+D is a folder: point --out at a file/);
    expect(outputPathProblem('/dev/null', file)).toMatch(/on \/dev, a virtual file system/);
  });

  it('accepts a missing path under a writable folder, an existing folder and an existing file', () => {
    writeFileSync(join(dir, 'F'), 'x');
    expect(outputPathProblem(join(dir, 'a', 'b', 'c'), folder)).toBeUndefined();
    expect(outputPathProblem(dir, folder)).toBeUndefined();
    expect(outputPathProblem(join(dir, 'F'), file)).toBeUndefined();
  });

  it('names what the path holds when asked (the journal)', () => {
    expect(
      outputPathProblem('/proc/j.db', { what: 'store.path', noun: 'the journal', kind: 'file' }),
    ).toMatch(/^the journal \/proc\/j\.db is on \/proc.*point store\.path at a file on a disk$/);
  });
});

describe('prepareOutput', () => {
  it('makes the missing folders of a folder, or of a file, one level at a time, and answers the absolute path', () => {
    expect(prepareOutput(join(dir, 'a', 'b'), folder)).toBe(join(dir, 'a', 'b'));
    expect(existsSync(join(dir, 'a', 'b'))).toBe(true);
    prepareOutput(join(dir, 'c', 'd', 'x.csv'), file);
    expect(readdirSync(join(dir, 'c', 'd'))).toEqual([]);
    makeFolders(join(dir, 'a', 'b')); // already there: nothing to do
  });

  it('throws OutputPathError with the sentence and creates nothing for a refused path', () => {
    writeFileSync(join(dir, 'F'), 'x');
    expect(() => prepareOutput('/proc/tradebot-out/run', folder)).toThrow(OutputPathError);
    expect(() => prepareOutput(join(dir, 'F', 'x.csv'), file)).toThrow(/F is a file, not a folder/);
    expect(readdirSync(dir)).toEqual(['F']);
  });
});
