// The SQLite journal of a deployment: open it with `openStore`, then use its typed repositories.
export { openStore, type Store, type StoreOptions } from './store.js';
export {
  MIGRATIONS,
  LATEST_SCHEMA_VERSION,
  SchemaTooNewError,
  migrate,
  schemaVersion,
  type Migration,
} from './migrations.js';
export { StoreError } from './columns.js';
export type { GroupCommitStats } from './group-commit.js';
export {
  JournalFileError,
  checkJournalPath,
  describeJournalFault,
  ensureJournalFolder,
  keepJournalAside,
  type JournalFileState,
} from './journal-file.js';
export {
  OutputPathError,
  makeFolders,
  outputPathProblem,
  prepareOutput,
  type OutputPathOptions,
} from '../data/output-path.js';
export { encodeIntent, decodeIntent } from './intent-codec.js';
export {
  IntentRepository,
  DenialRepository,
  type IntentRecord,
  type DenialRecord,
  type DenialInput,
  type JournalFilter,
} from './intents.js';
export {
  OrderRepository,
  type OrderRecord,
  type OrderState,
  type NewOrder,
  type JournalResult,
  type OrderFilter,
} from './orders.js';
export { FillRepository, type FillInput, type StoredFill, type FillFilter } from './fills.js';
export {
  TradingStateRepository,
  EquityRepository,
  StrategyStateRepository,
  MetaRepository,
  type TradingStateRecord,
  type EquityPoint,
} from './runtime-state.js';
export { OutboxRepository, type OutboxMessage, type OutboxInput } from './outbox.js';
export {
  ControlRepository,
  CONTROL_ACTIONS,
  pausedKey,
  type ControlActionName,
  type ControlInput,
  type ControlRecord,
} from './control.js';
export {
  DecidedCandleRepository,
  DriftReportRepository,
  DECISION_PHASES,
  type DecidedCandle,
  type DecisionPhase,
  type DriftReportRecord,
} from './drift.js';
export type { TradingState } from '../market/trading-state.js';
export {
  daemonRunning,
  journalCounts,
  journalCounters,
  journalHealthUrl,
  journalInstrument,
  journalLastPrice,
  journalVenueClock,
  readInstrumentRules,
  readLastPrice,
  runningHealthUrl,
  venueNow,
  type JournalCounts,
  type JournalCounters,
  type LastPrice,
  type VenueClockReading,
} from './figures.js';
