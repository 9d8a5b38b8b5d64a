#!/usr/bin/env node
// The `tradebot` command. Each sub-command lives in commands/<name>.ts and registers itself here.
import { Command, CommanderError } from 'commander';
import { TRADEBOT_VERSION } from '../api/version.js';
import { EXIT_CODES_HELP, exitCodeOf } from './exit-codes.js';

/** Builds the program; exported so tests can drive it in-process. */
export async function buildProgram(): Promise<Command> {
  const program = new Command('tradebot')
    .description('Automated trading bot framework for the v3 trading service API')
    .version(TRADEBOT_VERSION)
    .showHelpAfterError('(run with --help for usage)');
  const commands = await Promise.all([
    // One line per command module; each exports register(program).
    import('./commands/run.js'),
    import('./commands/sim.js'),
    import('./commands/validate.js'),
    import('./commands/schema.js'),
    import('./commands/api.js'),
    import('./commands/account.js'),
    import('./commands/backtest.js'),
    import('./commands/sweep.js'),
    import('./commands/lookahead.js'),
    import('./commands/record.js'),
    import('./commands/data.js'),
    import('./commands/worker.js'),
    import('./commands/doctor.js'),
    import('./commands/strategies.js'),
    import('./commands/new.js'),
    import('./commands/status.js'),
    import('./commands/compare.js'),
  ]);
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
  const program = await buildProgram();
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
