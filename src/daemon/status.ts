// A compact live status line on the terminal (only when stderr is a TTY).
import type { Writable } from 'node:stream';
import type { LiveBotStatus } from '../execution/live-bot.js';
import type { Clock } from '../feeds/clock.js';

export class StatusLine {
  private timer: ReturnType<typeof setInterval> | undefined;
  constructor(
    private readonly out: Writable,
    private readonly bots: () => readonly (LiveBotStatus | undefined)[],
    private readonly clock: Clock,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.render(), 1000);
    this.timer.unref();
  }

  render(): void {
    const parts = this.bots()
      .filter((b): b is LiveBotStatus => b !== undefined)
      .map(
        (b) =>
          `${b.name} ${b.tradingState} eq ${b.equity} int ${b.intents} den ${b.denials} ord ${b.orders} fill ${b.fills}`,
      );
    const time = new Date(this.clock.now()).toISOString().slice(0, 19).replace('T', ' ');
    this.out.write(`\r\x1b[2K[${time}] ${parts.join(' | ')}`);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.out.write('\n');
  }
}
