// The control journal: every operator action on a bot (pause, resume, flatten, halt, re-arm) with who
// asked for it and why, so a position that vanished or a bot that stopped trading is explained later.
import type { Database, Statement } from 'better-sqlite3';
import { StoreError, textColumn, tsColumn } from './columns.js';

export const CONTROL_ACTIONS = ['pause', 'resume', 'flatten', 'halt', 'rearm'] as const;
export type ControlActionName = (typeof CONTROL_ACTIONS)[number];

/** The meta key holding whether the operator paused a bot ("true"/"false"): the bot and the CLI read it. */
export const pausedKey = (bot: string): string => `paused:${bot}`;

/** What an operator asked for. */
export interface ControlInput {
  readonly bot: string;
  readonly action: ControlActionName;
  /** Only for a flatten of one symbol. */
  readonly symbol?: string | undefined;
  /** The token's identity, or "local". */
  readonly who: string;
  readonly reason: string;
}

/** A journaled control action. */
export interface ControlRecord extends ControlInput {
  readonly seq: number;
  readonly ts: number;
}

interface ControlRow {
  seq: number;
  bot: string;
  action: string;
  symbol: string | null;
  who: string;
  reason: string;
  ts: number;
}

const toRecord = (r: ControlRow): ControlRecord => ({
  seq: r.seq,
  bot: r.bot,
  action: r.action as ControlActionName,
  ...(r.symbol === null ? {} : { symbol: r.symbol }),
  who: r.who,
  reason: r.reason,
  ts: r.ts,
});

/** Control actions, oldest first. */
export class ControlRepository {
  private readonly insertStmt: Statement<[string, string, string | null, string, string, number], unknown>;
  private readonly listStmt: Statement<[string, number], ControlRow>;

  constructor(db: Database) {
    this.insertStmt = db.prepare(
      `INSERT INTO control_actions (bot, action, symbol, who, reason, ts) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.listStmt = db.prepare(
      `SELECT * FROM (SELECT seq, bot, action, symbol, who, reason, ts FROM control_actions
         WHERE bot = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq`,
    );
  }

  /** Journals an action; answers its sequence number. */
  record(c: ControlInput, ts: number): number {
    if (!(CONTROL_ACTIONS as readonly string[]).includes(c.action))
      throw new StoreError(`control action must be one of ${CONTROL_ACTIONS.join(', ')}, got ${c.action}`);
    const r = this.insertStmt.run(
      textColumn(c.bot, 'bot'),
      c.action,
      c.symbol ?? null,
      textColumn(c.who, 'who'),
      c.reason,
      tsColumn(ts),
    ) as { lastInsertRowid: number | bigint };
    return Number(r.lastInsertRowid);
  }

  /** The newest `limit` actions of a bot, oldest first. */
  list(bot: string, limit = 100): ControlRecord[] {
    return this.listStmt.all(bot, limit).map(toRecord);
  }
}
