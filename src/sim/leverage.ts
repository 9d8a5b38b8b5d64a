// Leverage settings (set-leverage, spec 4.4): each side's value checked against the instrument's limits
// (a futures contract's, or for MARGIN the maximum of a pair of the coin), then kept per account by
// category, symbol or coin, margin mode and side.
import type { ParamsOut } from '../api/index.js';
import { effectiveLeverage } from '../api/index.js';
import { Decimal } from '../market/decimal.js';
import type { InstrumentTable } from './instrument-table.js';
import { SimError } from './sim-error.js';

/** The leverage settings of every account. */
export class LeverageSettings {
  private readonly byUid = new Map<string, Map<string, string>>();

  /** set-leverage for account `uid`. */
  set(table: InstrumentTable, p: ParamsOut<'setLeverage'>, uid: string): 'success' {
    const eff = effectiveLeverage(p);
    let target: string;
    let min = new Decimal(1);
    let max: Decimal;
    if (p.category === 'MARGIN') {
      const coin = p.coin as string;
      const inst = table.all.find(
        (i) => i.wire.category === 'MARGIN' && (i.wire.baseCoin === coin || i.wire.quoteCoin === coin),
      );
      if (!inst) throw new SimError('40034', `coin ${coin} is not a margin coin of this venue`);
      target = coin;
      max = new Decimal(inst.wire.maxCrossedLeverage ?? '1');
    } else {
      const inst = table.need(p.category, p.symbol as string);
      target = inst.wire.symbol;
      min = new Decimal(inst.wire.minLeverage ?? '1');
      max = new Decimal(inst.wire.maxLeverage ?? '1');
    }
    for (const [side, value] of Object.entries(eff)) {
      const field =
        side === 'long' && p.longLeverage !== undefined
          ? 'longLeverage'
          : side === 'short' && p.shortLeverage !== undefined
            ? 'shortLeverage'
            : 'leverage';
      const v = new Decimal(value);
      if (v.lt(min) || v.gt(max))
        throw new SimError(
          '90017',
          `${field} ${value} is outside ${min.toFixed()} to ${max.toFixed()} for ${target}`,
        );
    }
    let map = this.byUid.get(uid);
    if (!map) {
      map = new Map();
      this.byUid.set(uid, map);
    }
    for (const [side, value] of Object.entries(eff))
      map.set(`${p.category}:${target}:${p.marginMode}:${side}`, value);
    return 'success';
  }

  /** The settings of account `uid`, by `category:symbolOrCoin:marginMode:side`. */
  of(uid: string): Record<string, string> {
    return Object.fromEntries(this.byUid.get(uid) ?? []);
  }
}
