// A bot's leverage entries applied through set-leverage (at start and by its set-leverage schedule): each
// call logged, a refusal logged and not fatal (the venue keeps the leverage it had).
import type { RestClient } from '../client/index.js';
import type { BotConfig } from '../config/index.js';
import type { Logger } from './logger.js';

/** Calls set-leverage for each of the bot's entries. */
export async function applyBotLeverage(client: RestClient, logger: Logger, b: BotConfig): Promise<void> {
  for (const params of b.leverage) {
    try {
      await client.setLeverage(params as never);
      logger.info('leverage set', { bot: b.name, ...params });
    } catch (e) {
      logger.error('set-leverage refused', {
        bot: b.name,
        error: e instanceof Error ? e.message : String(e),
      });
    }
  }
}
