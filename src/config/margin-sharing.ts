// A MARGIN bot keeps its own account of its loans from its own fills and its share of the cash (the spec has
// no endpoint for an account's loans). The venue borrows for the whole account: a short sells a coin another bot
// holds before it borrows any, and a buy beyond the bot's cash spends other bots' cash first. The two agree
// only when the MARGIN bot is alone on its account, so a deployment that shares one is warned (valid, and worth
// knowing before it runs): `validate` prints it, `run` logs it.
import type { Deployment } from './schema.js';

/** One warning per MARGIN bot of a deployment of several bots (all bots of a deployment share its account). */
export function sharedMarginAccountWarnings(
  d: Pick<Deployment, 'bots'>,
): { index: number; bot: string; text: string }[] {
  if (d.bots.length < 2) return [];
  const out: { index: number; bot: string; text: string }[] = [];
  d.bots.forEach((b, i) => {
    if (b.category !== 'MARGIN') return;
    const others = d.bots.length - 1;
    out.push({
      index: i,
      bot: b.name,
      text: `trades MARGIN on the account it shares with ${others} other bot${others === 1 ? '' : 's'}: the venue's loans are the account's, the bot's own account of its loans counts its fills and its capital only, so they can differ (a short of a coin another bot holds borrows nothing at the venue; a buy beyond its capital spends the others' cash before it borrows); run a MARGIN bot in a deployment of its own, on its own account (docs/margin.md)`,
    });
  });
  return out;
}
