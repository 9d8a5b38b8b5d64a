// The dashboard's drift panel of a bot: its newest kept drift report (src/drift) in brief, the unexplained
// differences as the alarm's sentences (the same as the log's and the notification's).
import { driftAlarm } from '../drift/format.js';
import type { DriftReport } from '../drift/types.js';
import type { Store } from '../store/index.js';

/** A drift check in brief, for the dashboard's drift panel. */
export interface DriftStatus {
  readonly from: string;
  readonly to: string;
  readonly differences: number;
  readonly unexplained: number;
  readonly alarms: readonly string[];
}

/** The status last shown of each journal's bot, with its report's id. */
const shown = new Map<string, { id: number; status: DriftStatus }>();

/** The bot's newest kept drift report (src/drift), its unexplained differences as the alarm's sentences. */
export function driftOf(store: Store, bot: string): { drift?: DriftStatus } {
  // The page is redrawn at every event of every bot: a report is read and parsed once, when it is new.
  const id = store.drift.latestId(bot);
  if (id === undefined) return {};
  const key = `${store.path}|${bot}`;
  const seen = shown.get(key);
  if (seen?.id === id) return { drift: seen.status };
  const r = store.drift.byId(id);
  if (r === undefined) return {};
  const report = r.report as Partial<DriftReport>;
  const alarms = (report.differences ?? [])
    .filter((d) => d.cause === 'unexplained')
    .slice(0, 5)
    .map((d) => driftAlarm(bot, d));
  const iso = (t: number) => new Date(t).toISOString();
  const status = {
    from: iso(r.from),
    to: iso(r.to),
    differences: r.differences,
    unexplained: r.unexplained,
    alarms,
  };
  shown.set(key, { id, status });
  return { drift: status };
}
