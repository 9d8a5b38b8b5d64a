// The same object shapes in every run of a process (a sweep runs many backtests in one worker). V8 compiles the
// hot code against the shapes it met; a second run that builds its objects with other shapes, or rebuilds them in
// a way V8 treats as a change, throws that code away and compiles it again (`node --trace-deopt`).

/**
 * An empty array of floats (times, prices as numbers). A `[]` starts as an array of small integers and changes
 * kind at the first float: code compiled on the changed kind met a later run's new `[]` ("wrong map", then
 * "not a Smi").
 */
export function floats(): number[] {
  const a = [0.5];
  a.pop();
  return a;
}

/** An empty array of objects (see `floats`). */
export function objects<T extends object>(): T[] {
  const a: object[] = [{}];
  a.pop();
  return a as T[];
}

/**
 * A record built once per run that hot code reads (options handed to a constructor, a run's account or lane):
 * its fields stored one by one into a new object. An object literal run a second time is copied from a template
 * and its fields stored over, which V8 takes for a change of fields it had assumed constant: it throws away every
 * compiled function that read them ("code dependencies": a sweep's second run compiled the order path again).
 */
export function record<T extends object>(fields: T): T {
  return Object.assign({}, fields);
}
