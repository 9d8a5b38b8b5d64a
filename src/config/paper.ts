// `tradebot run --paper`: a live deployment file read as a dry run without editing it. Done on the YAML
// document before its ${ENV} placeholders and secret files are read, so a paper run needs none of the live
// credentials (they are dropped unread: a paper venue has no use for them and must never send them).
import { isMap, type Document } from 'yaml';
import { amountDigitsProblem } from './schema.js';

/** The `--paper-balances` flag: `COIN=AMOUNT` pairs, comma-separated (`USDT=10000,AAPL=5`). */
export function parsePaperBalances(text: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const part of text.split(',')) {
    const m = /^\s*([A-Z0-9]+)\s*=\s*(\d+(?:\.\d+)?)\s*$/.exec(part);
    if (m === null || !/[1-9]/.test(m[2] ?? ''))
      return `--paper-balances: "${part.trim()}" is not COIN=AMOUNT with an amount above zero; write e.g. --paper-balances USDT=10000,AAPL=5`;
    const [, coin = '', amount = ''] = m;
    if (coin in out)
      return `--paper-balances names ${coin} twice (${coin}=${out[coin]} and ${coin}=${amount}); give each coin once`;
    const long = amountDigitsProblem(`--paper-balances: ${coin}`, amount);
    if (long !== undefined) return long;
    out[coin] = amount;
  }
  return out;
}

/** Where a paper run's account comes from: the flag, else the file's `paper:` block, else the defaults. */
export interface PaperSwitch {
  readonly balances?: Readonly<Record<string, string>> | undefined;
  /** `--record-candles DIR`: where the run records its candles (else the file's `record:`, if any). */
  readonly recordDir?: string | undefined;
}

/**
 * Turns the document's venue into a paper venue: a remote venue keeps its address, locale, timeout and
 * time scale, and loses its credentials, whitelist and broker code; its account is the `paper:` block's
 * (balances from the flag when given; the fee rate the live account's when the block names none). A
 * paper venue keeps its own account (balances from the flag when given). Answers a problem, said at
 * `venue.kind`, for a venue that cannot be run as paper.
 */
export function paperDocument(doc: Document, s: PaperSwitch): string | undefined {
  const kind = doc.getIn(['venue', 'kind']);
  if (kind === 'paper') {
    if (s.balances !== undefined) doc.setIn(['venue', 'account', 'balances'], doc.createNode(s.balances));
    if (s.recordDir !== undefined) doc.setIn(['venue', 'record'], doc.createNode({ dir: s.recordDir }));
    return undefined;
  }
  if (kind !== 'remote')
    return `--paper runs a remote venue's deployment as a dry run; this venue is ${String(kind)} (the embedded simulator already trades pretend money): run it without --paper`;
  const block: unknown = doc.get('paper', true);
  // The block's `record:` is the venue's (where candles go), the rest its account.
  const { record, ...account } = isMap(block) ? (block.toJSON() as Record<string, unknown>) : {};
  const feeRate = doc.getIn(['venue', 'feeRate']);
  for (const k of ['credentials', 'whitelisted', 'channelApiCode', 'feeRate']) doc.deleteIn(['venue', k]);
  doc.setIn(['venue', 'kind'], 'paper');
  doc.setIn(
    ['venue', 'account'],
    doc.createNode({
      ...(account.feeRate === undefined && feeRate !== undefined ? { feeRate } : {}),
      ...account,
      ...(s.balances !== undefined ? { balances: s.balances } : {}),
    }),
  );
  const dir = s.recordDir !== undefined ? { dir: s.recordDir } : record;
  if (dir !== undefined) doc.setIn(['venue', 'record'], doc.createNode(dir));
  return undefined;
}
