// Strategy state backed by the SQLite store: what a strategy saves survives a restart.
import type { Store } from '../store/index.js';
import { toJsonText, type JsonValue, type StrategyState } from '../strategy/state.js';

export class StoredStrategyState implements StrategyState {
  constructor(
    private readonly store: Store,
    private readonly bot: string,
  ) {}
  get<T = JsonValue>(): T | undefined {
    const v = this.store.strategyState.get(this.bot);
    return v === undefined ? undefined : (JSON.parse(JSON.stringify(v)) as T);
  }
  set(value: JsonValue): void {
    this.store.strategyState.set(this.bot, JSON.parse(toJsonText(value)));
  }
}
