// `tradebot strategies`: the strategies a name can reach (your strategies folder first, then the bundled
// ones) with their description, intervals and parameters, like freqtrade's list-strategies.
import type { Command } from 'commander';
import { z } from 'zod';
import { BacktestConfigFields, loadYaml, strategyLookupFor, strategyLookupHere } from '../../config/index.js';
import { strategyCatalogue, type StrategyEntry } from '../../strategy/catalogue.js';
import { EXIT_CODES_HELP } from '../exit-codes.js';
import { parseFlags } from '../flags.js';

const Flags = z.strictObject({
  json: z.boolean().default(false),
  dir: z.string().min(1).optional(),
  config: z.string().min(1).optional(),
});

const shown = (v: unknown): string => (v === undefined ? '-' : JSON.stringify(v));

/** The catalogue as a terminal reads it: one block per strategy, its parameters indented. */
export function formatCatalogue(entries: readonly StrategyEntry[]): string {
  const lines: string[] = [];
  for (const e of entries) {
    const tag = e.source === 'own' ? 'yours' : e.shadowed ? 'bundled, hidden by yours' : 'bundled';
    lines.push(`${e.name}  (${tag}: ${e.file})`);
    if (e.error !== undefined) {
      lines.push(`  does not load: ${e.error}`, '');
      continue;
    }
    lines.push(`  ${e.description ?? ''}`, `  intervals: ${(e.intervals ?? []).join(', ')}`);
    if (e.informative !== undefined) lines.push(`  informative: ${e.informative.join(', ')}`);
    lines.push(`  warm-up: ${warmUpText(e)}`);
    // Built in, evaluated by the pipeline; a bot's or a backtest's YAML overrides each field.
    for (const [what, o] of [
      ['exits', e.exits],
      ['protections', e.protections],
    ] as const)
      if (o !== undefined)
        lines.push(
          `  ${what}: ${Object.entries(o)
            .map(([k, v]) => `${k} ${JSON.stringify(v)}`)
            .join(', ')}`,
        );
    const params = e.params ?? [];
    const w = Math.max(0, ...params.map((p) => p.name.length));
    const wd = Math.max(0, ...params.map((p) => shown(p.default).length));
    for (const p of params)
      lines.push(`    ${p.name.padEnd(w)}  ${shown(p.default).padEnd(wd)}  ${p.description}`);
    lines.push('');
  }
  return lines.join('\n');
}

/** "26 candles (declared) at the defaults", per interval it reads when it reads informative ones. */
function warmUpText(e: StrategyEntry): string {
  if (e.warmUp === undefined) return 'depends on parameters without a default';
  const { candles, source } = e.warmUp;
  const each = e.informative === undefined ? '' : ' of each interval';
  return `${candles} candle${candles === 1 ? '' : 's'}${each} (${source}) at the defaults`;
}

export function register(program: Command): void {
  program
    .command('strategies')
    .description(
      'List the strategies a name reaches (your strategies folder, then the bundled ones) with their parameters, defaults and descriptions',
    )
    .option('--json', 'print JSON', false)
    .option('--dir <folder>', 'your strategies folder (default: ./strategies)')
    .option('-c, --config <file>', "use a backtest or deployment file's strategiesDir")
    .addHelpText(
      'after',
      `\nExamples:\n  tradebot strategies\n  tradebot strategies --dir ~/my-strategies --json\n${EXIT_CODES_HELP}`,
    )
    .action(async (raw: Record<string, unknown>) => {
      const f = parseFlags(Flags, raw);
      const lookup =
        f.dir !== undefined
          ? { ...strategyLookupHere(), dirs: [f.dir] }
          : f.config !== undefined
            ? strategyLookupFor(f.config, strategiesDirOf(f.config))
            : strategyLookupHere();
      const entries = await strategyCatalogue(lookup);
      process.stdout.write(
        f.json ? `${JSON.stringify(entries, null, 2)}\n` : `${formatCatalogue(entries).trimEnd()}\n`,
      );
      if (entries.some((e) => e.error !== undefined)) process.exitCode = 2;
    });
}

/** The strategiesDir of a backtest or deployment file (both spell it the same, at the top). */
function strategiesDirOf(file: string): string | undefined {
  const only = BacktestConfigFields.pick({ strategiesDir: true }).loose();
  return loadYaml(only, file).config.strategiesDir;
}
