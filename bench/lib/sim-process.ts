// The simulator in a process of its own, for benchmarks that time the bot: a venue is remote, so its
// request handling and market model must not share the bot's event loop. Started with `forkSimulator`;
// as a child it starts the simulator with the options it is sent over IPC, answers its baseUrl, and keeps
// the arrival time of every order at the engine (`placeRealityOrder`) on the absolute clock
// `performance.timeOrigin + performance.now()`, handed over only when asked (no IPC during the run).
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startSimulator, type SimulatorOptions } from '../../src/sim/index.js';

/** Absolute time in ms with sub-millisecond resolution, comparable across processes of one machine. */
export const absoluteNow = (): number => performance.timeOrigin + performance.now();

type ToChild = { type: 'start'; options: SimulatorOptions } | { type: 'arrivals' } | { type: 'stop' };
type FromChild =
  { type: 'started'; baseUrl: string } | { type: 'arrivals'; arrivals: number[] } | { type: 'stopped' };

/** A simulator running in a child process. */
export interface RemoteSimulator {
  readonly baseUrl: string;
  /** Absolute arrival times of the orders at the engine since the last call (or the start), oldest first. */
  takeArrivals(): Promise<number[]>;
  stop(): Promise<void>;
}

/** Forks this file as a child process running the simulator with `options` (plain data only). */
export async function forkSimulator(options: SimulatorOptions): Promise<RemoteSimulator> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // The venue is another machine: on a machine of few cores its process must not take the CPU from the
  // process measured when both can run (lowest priority; its own timings become upper bounds).
  if (child.pid !== undefined) setPriority(child.pid, 19);
  const next = <T extends FromChild['type']>(type: T): Promise<Extract<FromChild, { type: T }>> =>
    new Promise((resolve, reject) => {
      const onMessage = (m: FromChild) => {
        if (m.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(m as Extract<FromChild, { type: T }>);
      };
      const onExit = (code: number | null) => reject(new Error(`simulator process exited (${code})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const send = (m: ToChild) => child.send(m);
  const started = next('started');
  send({ type: 'start', options });
  const { baseUrl } = await started;
  return {
    baseUrl,
    async takeArrivals() {
      const answer = next('arrivals');
      send({ type: 'arrivals' });
      return (await answer).arrivals;
    },
    async stop() {
      const stopped = next('stopped');
      send({ type: 'stop' });
      await stopped;
      child.disconnect();
    },
  };
}

// As the child: serve until told to stop.
if (process.send !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  const reply = (m: FromChild) => process.send?.(m);
  let arrivals: number[] = [];
  let sim: Awaited<ReturnType<typeof startSimulator>> | undefined;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopped ??= sim?.stop() ?? Promise.resolve());
  // Without its parent (stopped, or gone) there is nobody to serve.
  process.on('disconnect', () => void stop().then(() => process.exit(0)));
  process.on('message', (m: ToChild) => {
    if (m.type === 'start') {
      void startSimulator(m.options).then((s) => {
        const handle = s.engine.handle.bind(s.engine);
        s.engine.handle = (name, params, ctx) => {
          if (name === 'placeRealityOrder') arrivals.push(absoluteNow());
          return handle(name, params, ctx);
        };
        sim = s;
        reply({ type: 'started', baseUrl: s.baseUrl });
      });
    } else if (m.type === 'arrivals') {
      reply({ type: 'arrivals', arrivals });
      arrivals = [];
    } else {
      void stop().then(() => reply({ type: 'stopped' }));
    }
  });
}
