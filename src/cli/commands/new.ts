// `tradebot new strategy NAME`: a strategy file from the bundled template, named and ready to edit, and a
// backtest file that runs it, so the first `tradebot backtest` works before any edit.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { PACKAGE_ROOT, listStrategies, DEFAULT_STRATEGIES_DIR } from '../../strategy/loader.js';
import { EXIT_CODES_HELP } from '../exit-codes.js';
import { FlagError, parseFlags } from '../flags.js';
import { outputPathProblem, prepareOutput, type OutputPathOptions } from '../../data/output-path.js';

const NAME_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const Args = z.strictObject({
  name: z
    .string()
    .regex(
      NAME_RE,
      'the name must be kebab-case: lower-case letters and digits joined by dashes, e.g. bb-revert',
    ),
  dir: z.string().min(1).default('strategies'),
});

/** The template's source: shipped with the package (package.json "files"), the same from src and dist. */
export const TEMPLATE_FILE = join(PACKAGE_ROOT, 'strategies', 'template.ts');

/** The template, renamed: its `name` and the first words of its description. */
export function scaffoldStrategy(name: string): string {
  const src = readFileSync(TEMPLATE_FILE, 'utf8');
  const out = src
    .replace("name: 'template',", `name: '${name}',`)
    .replace("'Template strategy: buys", `'${name}: buys`);
  if (out === src) throw new Error(`${TEMPLATE_FILE} no longer has the name line the scaffold renames`);
  return out;
}

/** A backtest file for the new strategy, on a synthetic dataset that needs no download. */
export const scaffoldBacktest = (name: string, strategiesDir: string): string =>
  `# Backtest of the strategy ${name}: tradebot backtest --config ${name}.backtest.yaml
# Check it first: tradebot validate ${name}.backtest.yaml
name: ${name}
# A seeded synthetic minute series (no download); a recorded file works too (tradebot data --help).
dataset: synthetic-1m:42:50000
strategy: ${name}
# Where strategies are looked up by name, relative to this file (then the bundled ones).
strategiesDir: ${strategiesDir}
params:
  period: 20
  quoteAmount: "50"
capital: "10000"
feeRate: "0.001"
slippageBps: 2
`;

export function register(program: Command): void {
  const cmd = program.command('new').description('Create a file from a template');
  cmd
    .command('strategy')
    .description(
      'Scaffold a strategy (from the bundled template) in your strategies folder and a backtest file that runs it',
    )
    .argument('<name>', 'kebab-case strategy name, e.g. bb-revert')
    .option('--dir <folder>', 'your strategies folder; the backtest file goes next to it', 'strategies')
    .addHelpText(
      'after',
      `\nExample:\n  tradebot new strategy bb-revert\n  # writes strategies/bb-revert.ts and bb-revert.backtest.yaml, then:\n  tradebot backtest --config bb-revert.backtest.yaml\n${EXIT_CODES_HELP}`,
    )
    .action((name: string, raw: Record<string, unknown>) => {
      const f = parseFlags(Args, { ...raw, name });
      const dir = resolve(f.dir);
      const output: OutputPathOptions = { what: '--dir', kind: 'folder', example: 'strategies' };
      const problem = outputPathProblem(dir, output);
      if (problem !== undefined) throw new FlagError(problem);
      const file = join(dir, `${f.name}.ts`);
      const yamlFile = join(dirname(dir), `${f.name}.backtest.yaml`);
      for (const existing of [file, yamlFile].filter((p) => existsSync(p)))
        throw new FlagError(
          `${existing} already exists: pick another name or remove it (new never overwrites)`,
        );
      const own = listStrategies(dir);
      if (own.includes(f.name))
        throw new FlagError(`${dir} already has a strategy ${f.name}: pick another name`);
      prepareOutput(dir, output);
      writeFileSync(file, scaffoldStrategy(f.name), { flag: 'wx' });
      writeFileSync(yamlFile, scaffoldBacktest(f.name, basename(dir)), { flag: 'wx' });
      const shadows = listStrategies(DEFAULT_STRATEGIES_DIR).includes(f.name)
        ? `note: it hides the bundled strategy ${f.name} wherever this folder is the strategiesDir\n`
        : '';
      const rel = (p: string) => relative(process.cwd(), p) || '.';
      process.stdout.write(
        `wrote ${rel(file)} and ${rel(yamlFile)}\n${shadows}next: edit ${rel(file)}, then\n  tradebot validate ${rel(yamlFile)}\n  tradebot backtest --config ${rel(yamlFile)}\n`,
      );
    });
}
