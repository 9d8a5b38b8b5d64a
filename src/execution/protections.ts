// Protections: locks on new entries after bad outcomes (freqtrade's protections). The TradeGuard feeds
// the book its closed trades and its equity at fills; the risk gate denies an entry of a locked symbol (or
// of a locked bot) with PROTECTION_LOCK and the lock's sentence. Exits and reducing orders are never
// locked. Locks are reported as pipeline events (logs, journal of denials, /readyz).
import { formatPercent, ZERO, type Decimal } from '../market/decimal.js';
import type { ExitReason, Protections } from '../strategy/exits.js';
import { counted } from '../market/spelling.js';

/** A lock on entries: of one symbol, or of the whole bot (`symbol` undefined). */
export interface ProtectionLock {
  readonly protection: 'cooldownAfterStop' | 'maxDrawdown' | 'lowProfitPair';
  readonly symbol: string | undefined;
  readonly until: number;
  readonly reason: string;
}

export class ProtectionBook {
  private readonly symbolLocks = new Map<string, ProtectionLock>();
  private botLock: ProtectionLock | undefined;
  private readonly closed = new Map<string, number[]>();
  private peak: Decimal | undefined;

  constructor(
    private readonly p: Protections,
    private readonly intervalMs: number,
    /** Told of each new lock. */
    private readonly onLock: (lock: ProtectionLock) => void,
  ) {}

  /** The lock an entry of `symbol` meets at `now`, if any. */
  lockOf(symbol: string, now: number): ProtectionLock | undefined {
    if (this.botLock !== undefined && this.botLock.until > now) return this.botLock;
    const l = this.symbolLocks.get(symbol);
    return l !== undefined && l.until > now ? l : undefined;
  }

  /** The locks in force at `now` (for /readyz and the status). */
  active(now: number): ProtectionLock[] {
    const out: ProtectionLock[] = [];
    if (this.botLock !== undefined && this.botLock.until > now) out.push(this.botLock);
    for (const l of this.symbolLocks.values()) if (l.until > now) out.push(l);
    return out;
  }

  /** A trade of `symbol` closed at `ts` with `profit` (a ratio of its cost), by an exit or not. */
  onTradeClosed(symbol: string, profit: number, exitReason: ExitReason | undefined, ts: number): void {
    const cool = this.p.cooldownAfterStop;
    // 0 is off: no cooldown.
    if (cool !== undefined && cool > 0 && (exitReason === 'stop_loss' || exitReason === 'trailing_stop'))
      this.lock({
        protection: 'cooldownAfterStop',
        symbol,
        until: ts + cool * this.intervalMs,
        reason: `${symbol} closed by a ${exitReason.replace('_', '-')}: no new entry for ${counted(cool, 'candle')} (cooldownAfterStop)`,
      });
    const lp = this.p.lowProfitPair;
    if (lp === undefined || lp.lockCandles === 0) return;
    let list = this.closed.get(symbol);
    if (list === undefined) this.closed.set(symbol, (list = []));
    list.push(profit);
    if (list.length > lp.trades) list.shift();
    if (list.length < lp.trades) return;
    let sum = 0;
    for (const x of list) sum += x;
    if (sum < lp.minProfit.toNumber()) {
      this.lock({
        protection: 'lowProfitPair',
        symbol,
        until: ts + lp.lockCandles * this.intervalMs,
        reason: `the last ${counted(lp.trades, 'trade')} of ${symbol} made ${formatPercent(sum)} together, under ${lp.minProfit.mul(100).toFixed()}%: locked for ${counted(lp.lockCandles, 'candle')} (lowProfitPair)`,
      });
      list.length = 0;
    }
  }

  /** Whether the book needs the equity (a max-drawdown lock is set). */
  get watchesEquity(): boolean {
    return this.p.maxDrawdown !== undefined;
  }

  /** The bot's equity at `ts` (after a fill, at a sample): a drawdown from its peak may lock the bot. */
  onEquity(equity: Decimal, ts: number): void {
    const md = this.p.maxDrawdown;
    if (md === undefined || md.lockCandles === 0) return;
    if (this.peak === undefined || equity.gt(this.peak)) this.peak = equity;
    if (!this.peak.gt(ZERO)) return;
    const dd = this.peak.minus(equity).div(this.peak);
    if (dd.lt(md.ratio)) return;
    if (this.botLock !== undefined && this.botLock.until > ts) return;
    this.lock({
      protection: 'maxDrawdown',
      symbol: undefined,
      until: ts + md.lockCandles * this.intervalMs,
      reason: `equity ${equity.toFixed(2)} is ${dd.mul(100).toFixed(2)}% under its peak ${this.peak.toFixed(2)}, over maxDrawdown ${md.ratio.mul(100).toFixed()}%: no new entry for ${counted(md.lockCandles, 'candle')}`,
    });
    // The lock starts a new watch: the drawdown is measured from here on.
    this.peak = equity;
  }

  private lock(l: ProtectionLock): void {
    if (l.symbol === undefined) this.botLock = l;
    else this.symbolLocks.set(l.symbol, l);
    this.onLock(l);
  }
}
