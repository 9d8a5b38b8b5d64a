// `tradebot run --config FILE [--paper]`: the daemon (as a dry run on a paper venue with --paper).
import type { Command } from 'commander';
import { parsePaperBalances } from '../../config/index.js';
import { runDaemon } from '../../daemon/daemon.js';
import { STATUS_LEGEND } from '../../daemon/status.js';
import { notifyService } from '../../notify/index.js';

export function register(program: Command): void {
  program
    .command('run')
    .description('Run the bots of a YAML deployment as a daemon until SIGINT/SIGTERM')
    .requiredOption('-c, --config <file>', 'deployment file, e.g. config/demo.yaml')
    .option(
      '--fresh',
      'start a new journal; an existing one is kept beside it under a timestamped name (needed to rerun an embedded-simulator deployment)',
      false,
    )
    .option('--verbose', "a strategy's failure is logged with its stack", false)
    .option(
      '--paper',
      "run the file as a dry run: the venue's public data, orders filled locally on a paper account kept in the journal; no credentials are read and no private endpoint is called (docs/paper.md)",
      false,
    )
    .option(
      '--paper-balances <list>',
      "starting balances of a new paper account, e.g. USDT=10000,AAPL=5 (default: the file's paper: block, else USDT=100000)",
    )
    .option(
      '--record-candles <dir>',
      'with --paper: record the candles the bots decide on into DIR (<SYMBOL>-<interval>.csv, the record format, appended across restarts), to backtest the same period and compare (docs/paper.md)',
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 stopped cleanly, 1 failed or shutdown deadline passed, 2 invalid configuration.\n' +
        'A journal is never moved or overwritten without --fresh.\n\n' +
        STATUS_LEGEND,
    )
    .action(
      async (opts: {
        config: string;
        fresh: boolean;
        verbose: boolean;
        paper: boolean;
        paperBalances?: string;
        recordCandles?: string;
      }) => {
        const balances =
          opts.paperBalances === undefined ? undefined : parsePaperBalances(opts.paperBalances);
        const problem =
          typeof balances === 'string'
            ? balances
            : balances !== undefined && !opts.paper
              ? '--paper-balances needs --paper (it sets the paper account of a dry run)'
              : opts.recordCandles !== undefined && !opts.paper
                ? "--record-candles needs --paper (it records a dry run's candles; a paper file can say venue.record.dir)"
                : opts.recordCandles?.trim() === ''
                  ? '--record-candles: give the folder to record into, e.g. --record-candles paper-candles'
                  : undefined;
        if (problem !== undefined) {
          process.stderr.write(`tradebot: ${problem}\n`);
          process.exitCode = 2;
          return;
        }
        // Loaded here, not at the top: every other command would pay for fastify's import at start.
        const { dashboardService } = await import('../../web/index.js');
        process.exitCode = await runDaemon(opts.config, {
          fresh: opts.fresh,
          verbose: opts.verbose,
          paper: opts.paper
            ? { balances: balances as Record<string, string> | undefined, recordDir: opts.recordCandles }
            : undefined,
          // The dashboard and notifications (a notify: block) run beside the bots; the daemon imports neither.
          services: [dashboardService, notifyService],
        });
      },
    );
}
