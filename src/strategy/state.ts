// Persistent strategy state: one JSON value per bot that survives a restart (the daemon backs it with the
// SQLite store, backtests and tests with memory). Values are checked to be JSON so that a restart gives
// back exactly what was saved.

/** A JSON value: what `StrategyState.set` accepts. */
export type JsonValue =
  null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** The persistent state of one bot's strategy. */
export interface StrategyState {
  /** The last value set (a fresh copy), or undefined when nothing was ever saved. */
  get<T = JsonValue>(): T | undefined;
  /** Replaces the saved value. Call it on changes, not on every candle: it may write to disk. */
  set(value: JsonValue): void;
}

/** Thrown by `toJsonText` when a value would not survive a JSON round trip. */
export class StateError extends TypeError {
  override readonly name = 'StateError';
}

function check(value: unknown, path: string, seen: Set<object>): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new StateError(
        `strategy state ${path} is ${String(value)}, which JSON cannot hold: store null or a finite number`,
      );
    }
    return;
  }
  if (typeof value !== 'object') {
    throw new StateError(
      `strategy state ${path} is a ${typeof value}, which JSON cannot hold: store plain data only`,
    );
  }
  if (seen.has(value)) throw new StateError(`strategy state ${path} is a circular reference: store a tree`);
  seen.add(value);
  if (Array.isArray(value)) {
    value.forEach((v, i) => check(v, `${path}[${i}]`, seen));
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      const kind = (value as { constructor?: { name?: string } }).constructor?.name ?? 'object';
      throw new StateError(
        `strategy state ${path} is a ${kind}, which JSON cannot round-trip: store plain objects (e.g. a Decimal as its string)`,
      );
    }
    for (const [k, v] of Object.entries(value)) check(v, `${path}.${k}`, seen);
  }
  seen.delete(value);
}

/** The JSON text of a state value; throws a StateError naming the offending path when it is not JSON. */
export function toJsonText(value: unknown): string {
  check(value, '$', new Set());
  return JSON.stringify(value);
}

/** In-memory state for backtests and tests; `initial` is a saved JSON text (e.g. from a previous run). */
export class MemoryStrategyState implements StrategyState {
  private text: string | undefined;
  constructor(initial?: string) {
    this.text = initial;
  }
  get<T = JsonValue>(): T | undefined {
    return this.text === undefined ? undefined : (JSON.parse(this.text) as T);
  }
  set(value: JsonValue): void {
    this.text = toJsonText(value);
  }
  /** The saved JSON text, for persisting elsewhere. */
  toJSON(): string | undefined {
    return this.text;
  }
}
