// A sweep row written out as the backtest file that reproduces it (`tradebot sweep --write-row N FILE`): the
// sweep's file with the row's parameters, and the exits and protections in force spelled out whole, so that
// `tradebot backtest --config FILE` runs the same strategy and gives the row's trade hash.
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import type { BacktestJob } from '../backtest/run-config.js';
import type { Strategy } from '../strategy/contract.js';
import { mergeRules, rulesAsData } from '../strategy/exits.js';
import { BacktestInputError, jobWithSet } from './grid.js';
import { DEFAULT_OWN_STRATEGIES_DIR } from '../strategy/loader.js';
import type { SweepRow } from './sweep.js';

export interface SweepRowFile {
  /** The sweep's backtest file: its text and where it is (a strategiesDir in it is relative to it). */
  readonly configText: string;
  readonly configFile: string;
  /** Where the row's file goes. */
  readonly outFile: string;
  /** The sweep's base job (its file, the flags and the grid's rules over it) and its strategy. */
  readonly base: BacktestJob;
  readonly strategy: Strategy;
  readonly grid: string;
}

/** The row (1 is the first of the ranked table) or a sentence naming the rows there are. */
export function pickRow(rows: readonly SweepRow[], n: number): SweepRow {
  const row = rows[n - 1];
  if (row === undefined || !Number.isInteger(n) || n < 1)
    throw new BacktestInputError(
      `--write-row ${n}: the sweep has rows 1 to ${rows.length} (the # column of its table); give one of them`,
    );
  if (row.metrics === undefined)
    throw new BacktestInputError(
      `--write-row ${n}: that row's run failed (${row.error ?? 'no answer'}), nothing to reproduce`,
    );
  return row;
}

const isoOf = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString());

/** The backtest YAML of row `n`: the sweep's file with the row's parameters, exits, protections and range. */
export function sweepRowYaml(o: SweepRowFile, row: SweepRow, n: number): string {
  const job = jobWithSet(o.base, row.params);
  const doc = parseDocument(o.configText);
  const name = String(doc.get('name') ?? 'backtest');
  doc.set('name', `${name}-row-${n}`);
  doc.set('params', job.params);
  // The rules in force, whole: the same run whether or not the strategy's declaration changes later.
  const exits = rulesAsData(mergeRules(rulesAsData(o.strategy.exits) as object, job.exits)) as object;
  const protections = rulesAsData(
    mergeRules(rulesAsData(o.strategy.protections) as object, job.protections),
  ) as object;
  for (const [key, rules] of [
    ['exits', exits],
    ['protections', protections],
  ] as const)
    if (Object.keys(rules).length > 0) doc.set(key, rules);
    else doc.delete(key);
  for (const [key, t] of [
    ['from', job.from],
    ['to', job.to],
  ] as const)
    if (t !== undefined) doc.set(key, isoOf(t));
  // A strategiesDir (default `strategies` beside the file) is relative to the file that names it: to the new
  // file's folder now.
  const dir = doc.get('strategiesDir') ?? DEFAULT_OWN_STRATEGIES_DIR;
  const from = dirname(resolve(o.configFile));
  const to = dirname(resolve(o.outFile));
  if (typeof dir === 'string' && !isAbsolute(dir) && from !== to)
    doc.set('strategiesDir', relative(to, resolve(from, dir)) || '.');
  doc.commentBefore = ` sweep row ${n} of ${o.configFile} (--grid "${o.grid}"): ${Object.entries(row.params)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ')}; trade hash ${row.tradeHash ?? '(none)'}`;
  return doc.toString();
}
