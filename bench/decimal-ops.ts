// What src/market/decimal.ts's prototype mark on the Decimal constructor is worth per decimal operation:
// the order path's operations (times, minus, plus, lt, toDecimalPlaces) run in two worker threads, each
// with its own fresh copy of decimal.js set up as src/market/decimal.ts sets it up, one of them with
// the mark (`Object.create(Decimal)`) and one without. Alternating rounds in the same process, median of
// each, and the ratio.
//   npx tsx bench/decimal-ops.ts [--ops 1000000] [--rounds 7]
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { DECIMAL_SETTINGS } from '../src/market/decimal.js';
import { numberFlag } from './lib/flags.js';

const OPS = numberFlag('ops', 1_000_000);
const ROUNDS = numberFlag('rounds', 7);
const decimalJs = createRequire(import.meta.url).resolve('decimal.js');

// The worker: its own module registry, so its decimal.js has never been marked unless it marks it.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Decimal = require(workerData.decimalJs);
Decimal.set(workerData.settings);
if (workerData.mark) Object.create(Decimal);
parentPort.on('message', (ops) => {
  const price = new Decimal('187.43'), size = new Decimal('5.33'), fee = new Decimal('0.001');
  let cash = new Decimal('10000000');
  const t0 = performance.now();
  for (let i = 0; i < ops / 5; i++) {
    const notional = price.times(size);
    cash = cash.minus(notional).minus(notional.times(fee)).plus(notional);
    if (cash.lt(0)) throw new Error('cash went negative');
    cash = cash.toDecimalPlaces(12, Decimal.ROUND_DOWN);
  }
  parentPort.postMessage({ ms: performance.now() - t0, check: cash.toFixed() });
});
`;

function start(mark: boolean): Worker {
  return new Worker(WORKER, { eval: true, workerData: { decimalJs, mark, settings: DECIMAL_SETTINGS } });
}
function round(w: Worker): Promise<{ ms: number; check: string }> {
  return new Promise((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
    w.postMessage(OPS);
  });
}

const marked = start(true);
const plain = start(false);
const times = { marked: [] as number[], plain: [] as number[] };
let check = '';
for (let r = 0; r < ROUNDS; r++) {
  const a = await round(plain);
  const b = await round(marked);
  if (a.check !== b.check) throw new Error(`the two workers disagree: ${a.check} vs ${b.check}`);
  check = b.check;
  times.plain.push(a.ms);
  times.marked.push(b.ms);
}
await Promise.all([marked.terminate(), plain.terminate()]);
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number;
const ns = (ms: number) => ((ms * 1e6) / OPS).toFixed(0);
const [p, m] = [median(times.plain), median(times.marked)];
console.log(
  `${OPS.toLocaleString('en-US')} decimal operations a round, ${ROUNDS} alternating rounds (final cash ${check} in both)`,
);
console.log(`decimal.js as installed:            median ${p.toFixed(0)} ms, ${ns(p)} ns/op`);
console.log(`with the prototype mark (as used):  median ${m.toFixed(0)} ms, ${ns(m)} ns/op`);
console.log(`ratio unmarked/marked: ${(p / m).toFixed(2)} (above 1: the mark pays)`);
