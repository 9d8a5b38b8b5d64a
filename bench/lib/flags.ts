// The benchmarks' numeric flags (`--candles 1000000`), shared by every script in bench/.

/** The number after `--name` on the command line, or `def` when the flag is absent. */
export function numberFlag(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}
