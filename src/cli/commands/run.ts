// `tradebot run --config FILE`: the daemon.
import type { Command } from 'commander';
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
    .addHelpText(
      'after',
      '\nExit codes: 0 stopped cleanly, 1 failed or shutdown deadline passed, 2 invalid configuration.\n' +
        'A journal is never moved or overwritten without --fresh.\n\n' +
        STATUS_LEGEND,
    )
    .action(async (opts: { config: string; fresh: boolean; verbose: boolean }) => {
      // Loaded here, not at the top: every other command would pay for fastify's import at start.
      const { dashboardService } = await import('../../web/index.js');
      process.exitCode = await runDaemon(opts.config, {
        fresh: opts.fresh,
        verbose: opts.verbose,
        // The dashboard and notifications (a notify: block) run beside the bots; the daemon imports neither.
        services: [dashboardService, notifyService],
      });
    });
}
