// Empty arrays that start in the kind of element they will hold. V8 gives a `[]` the kind "small integers"
// and changes it at the first float or object pushed; code compiled while a first run's arrays had changed
// kind met a later run's new `[]` in the first kind and was thrown away ("wrong map", then "not a Smi" in
// `node --trace-deopt`): a sweep's second run paid for compiling the backtest's hot code again.

/** An empty array of floats (times, prices as numbers). */
export function floats(): number[] {
  const a = [0.5];
  a.pop();
  return a;
}

/** An empty array of objects. */
export function objects<T extends object>(): T[] {
  const a: object[] = [{}];
  a.pop();
  return a as T[];
}
