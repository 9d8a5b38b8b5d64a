// The simulated exchange: start it in code with startSimulator, or from the CLI with `tradebot sim`.
// It speaks the v3 wire of src/api (paths, envelope, signing, rate limits, errors) on loopback.
import type { EngineOptions } from './engine.js';
import { SimEngine } from './engine.js';
import { serve } from './server.js';

export * from './engine.js';
export { SimError } from './sim-error.js';
export { ALL_PERMISSIONS, DEMO_ACCOUNT } from './accounts.js';
export type { AccountPermission, SimAccountOptions } from './accounts.js';
export type { SimWithdrawal, WithdrawalStatus } from './withdrawals.js';
export { DEFAULT_FILL_IDS } from './reality-orders.js';
export type { SimRealityFill } from './reality-orders.js';
export * from './instruments.js';
export * from './matching.js';
export { MarketModel, InstrumentMarket, formatUnits } from './market-model.js';
export type { ReplayCandle, ReplaySource, BookLevel } from './market-model.js';
export { FaultConfigSchema, FaultInjector, MAX_FAULT_LATENCY_MS } from './faults.js';
export * from './options.js';
export type { FaultConfig } from './faults.js';
export { Gateway } from './gateway.js';
export type { GatewayRequest, GatewayResponse } from './gateway.js';
export { SimClock } from './sim-clock.js';
export { RealityData } from './reality-data.js';

/** Options of startSimulator: the engine's plus where to listen. */
export interface SimulatorOptions extends EngineOptions {
  /** Port (default 0: a free one). */
  readonly port?: number | undefined;
  /** Host (default 127.0.0.1). */
  readonly host?: string | undefined;
  /** Serve the admin API under /sim/ (default: on for loopback hosts). */
  readonly admin?: boolean | undefined;
}

/** A running simulator. */
export interface Simulator {
  /** e.g. http://127.0.0.1:54321 */
  readonly baseUrl: string;
  readonly port: number;
  readonly engine: SimEngine;
  stop(): Promise<void>;
}

/**
 * Starts the simulated exchange.
 *
 * @example
 * const sim = await startSimulator({ seed: 7, clock: new VirtualClock(Date.UTC(2026, 0, 6, 15)) });
 * // ... point a RestClient at sim.baseUrl with the demo account (sim-key / sim-secret / sim-passphrase)
 * await sim.stop();
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const engine = new SimEngine(options);
  const running = await serve(engine, { port: options.port, host: options.host, admin: options.admin });
  const shownHost = running.host.includes(':') ? `[${running.host}]` : running.host;
  return {
    baseUrl: `http://${shownHost}:${running.port}`,
    port: running.port,
    engine,
    stop: () => running.close(),
  };
}
