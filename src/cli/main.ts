#!/usr/bin/env node
// The `tradebot` command. Each sub-command lives in commands/<name>.ts and registers itself here.
import { Command, CommanderError } from 'commander';
import { TRADEBOT_VERSION } from '../api/version.js';
import { EXIT_CODES_HELP, exitCodeOf } from './exit-codes.js';

/**
 * The command modules, one per command (each exports register(program)). Importing one loads what its command
 * needs (the simulator, the dashboard, Arrow, ...): a command line that names a command loads that one alone.
 */
const COMMANDS: Readonly<Record<string, () => Promise<{ register(program: Command): void }>>> = {
  run: () => import('./commands/run.js'),
  sim: () => import('./commands/sim.js'),
  validate: () => import('./commands/validate.js'),
  schema: () => import('./commands/schema.js'),
  api: () => import('./commands/api.js'),
  account: () => import('./commands/account.js'),
  backtest: () => import('./commands/backtest.js'),
  sweep: () => import('./commands/sweep.js'),
  hyperopt: () => import('./commands/hyperopt.js'),
  lookahead: () => import('./commands/lookahead.js'),
  record: () => import('./commands/record.js'),
  data: () => import('./commands/data.js'),
  worker: () => import('./commands/worker.js'),
  doctor: () => import('./commands/doctor.js'),
  strategies: () => import('./commands/strategies.js'),
  new: () => import('./commands/new.js'),
  status: () => import('./commands/status.js'),
  compare: () => import('./commands/compare.js'),
  drift: () => import('./commands/drift.js'),
};

/**
 * Builds the program; exported so tests can drive it in-process. With `only` (a command's name) it registers
 * that command alone: `tradebot backtest ...` does not pay for the simulator's and the dashboard's imports. The
 * root's help, --version and a mistyped command (which gets a did-you-mean) register them all.
 */
export async function buildProgram(only?: string): Promise<Command> {
  const program = new Command('tradebot')
    .description('Automated trading bot framework for the v3 trading service API')
    .version(TRADEBOT_VERSION)
    .showHelpAfterError('(run with --help for usage)');
  const names = only !== undefined && Object.hasOwn(COMMANDS, only) ? [only] : Object.keys(COMMANDS);
  const commands = await Promise.all(
    names.map((n) => (COMMANDS[n] as () => Promise<{ register(p: Command): void }>)()),
  );
  for (const c of commands) c.register(program);
  program.addHelpText('after', `\n${EXIT_CODES_HELP}`);
  // Commander exits by itself (code 1) on a missing required option unless every command, not only the
  // root, hands its errors back: then the one exit-code rule (exit-codes.ts) decides.
  const handBack = (c: Command): void => {
    c.exitOverride();
    for (const sub of c.commands) handBack(sub);
  };
  handBack(program);
  return program;
}

async function main(): Promise<void> {
  // A strategy's failure names its place in the strategy's own .ts file (tsx maps the sources it loads).
  process.setSourceMapsEnabled(true);
  const program = await buildProgram(process.argv[2]);
  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    // Commander has already printed its own message (and the help hint).
    if (!(err instanceof CommanderError)) {
      const msg = err instanceof Error ? err.message : String(err);
      process.stderr.write(`tradebot: ${msg}\n`);
    }
    process.exit(exitCodeOf(err));
  }
}

await main();
