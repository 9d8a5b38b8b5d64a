// `tradebot account set-leverage|cancel-withdrawal`: the account endpoints, with validated flags.
import type { Command } from 'commander';
import { namesLeverage } from '../../api/index.js';
import { RestClient } from '../../client/index.js';
import { FlagError } from '../flags.js';

function client(baseUrl?: string): RestClient {
  const env = process.env;
  const url = baseUrl ?? env.TRADEBOT_BASE_URL;
  if (!url) throw new FlagError('no venue: pass --base-url URL or set TRADEBOT_BASE_URL');
  if (!env.TRADEBOT_API_KEY || !env.TRADEBOT_API_SECRET || !env.TRADEBOT_PASSPHRASE) {
    throw new FlagError('set TRADEBOT_API_KEY, TRADEBOT_API_SECRET and TRADEBOT_PASSPHRASE');
  }
  return new RestClient({
    baseUrl: url,
    credentials: {
      apiKey: env.TRADEBOT_API_KEY,
      apiSecret: env.TRADEBOT_API_SECRET,
      passphrase: env.TRADEBOT_PASSPHRASE,
    },
  });
}

const defined = (o: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => e[1] !== undefined));

export function register(program: Command): void {
  const account = program
    .command('account')
    .description('Account operations: set-leverage, cancel-withdrawal');
  account
    .command('set-leverage')
    .description('Set leverage for a futures symbol or a margin coin')
    .requiredOption('--category <c>', 'MARGIN, USDT-FUTURES, COIN-FUTURES or USDC-FUTURES')
    .option('--symbol <s>', 'futures symbol')
    .option('--coin <c>', 'margin coin')
    .option('--leverage <x>', 'leverage, e.g. 5 (required, unless --long-leverage/--short-leverage)')
    .option('--pos-side <side>', 'long or short (isolated)')
    .option('--margin-mode <m>', 'crossed or isolated')
    .option('--long-leverage <x>', 'two-way isolated long leverage')
    .option('--short-leverage <x>', 'two-way isolated short leverage')
    .option('--base-url <url>', 'venue base URL (default $TRADEBOT_BASE_URL)')
    .action(async (o: Record<string, string | undefined>) => {
      // The venue answers success to a call without a leverage, and sets nothing.
      if (!namesLeverage(o))
        throw new FlagError(
          '--leverage is required, e.g. --leverage 5 (or --long-leverage and --short-leverage in two-way isolated mode)',
        );
      const c = client(o.baseUrl);
      try {
        const r = await c.request(
          'setLeverage',
          defined({
            category: o.category,
            symbol: o.symbol,
            coin: o.coin,
            leverage: o.leverage,
            posSide: o.posSide,
            marginMode: o.marginMode,
            longLeverage: o.longLeverage,
            shortLeverage: o.shortLeverage,
          }),
        );
        process.stdout.write(`${String(r)}\n`);
      } finally {
        c.close();
      }
    });
  account
    .command('cancel-withdrawal')
    .description('Cancel a withdrawal still in its cooling period (orderId wins over clientOid)')
    .option('--order-id <id>', 'withdrawal order id')
    .option('--client-oid <id>', 'withdrawal client id')
    .option('--base-url <url>', 'venue base URL (default $TRADEBOT_BASE_URL)')
    .action(async (o: Record<string, string | undefined>) => {
      const c = client(o.baseUrl);
      try {
        process.stdout.write(
          `${String(await c.request('cancelWithdrawal', defined({ orderId: o.orderId, clientOid: o.clientOid })))}\n`,
        );
      } finally {
        c.close();
      }
    });
}
