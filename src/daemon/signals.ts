// The stop signals of a long-running command (the daemon, `tradebot sim`, `tradebot worker`).

/**
 * Resolves on the first SIGINT or SIGTERM; every later one goes to `onRepeat` instead of Node's default
 * (which ends the process on the spot, cutting short whatever the stop was finishing: the daemon's orders
 * in flight and journal, a worker's current run). A repeat is
 * common: a second Ctrl-C, or `timeout`, which signals its child and then the child's process group.
 * The listeners stay until the process exits.
 */
export function watchSignals(onRepeat: (signal: string) => void = () => undefined): Promise<string> {
  let stopping = false;
  return new Promise((resolve) => {
    for (const sig of ['SIGINT', 'SIGTERM'] as const)
      process.on(sig, () => {
        if (stopping) return onRepeat(sig);
        stopping = true;
        resolve(sig);
      });
  });
}
