// A notification quotes text from outside (an operator's reason, a state change's reason, a bot's error) inert:
// one line each, control characters shown as escapes, so a reason cannot forge a second message line.
import { describe, expect, it } from 'vitest';
import { controlText, restartText, stateText } from '../../../src/notify/format.js';

const REASON = 'drill\u001b[2J\nfake: all bots flat';

describe('notification texts quote outside text inert', () => {
  it('a control reason, a state reason and an error each stay on one line with their escapes shown', () => {
    const texts = [
      controlText('a', { action: 'pause', who: 'token:1234abcd', reason: REASON }),
      stateText('a', 'ACTIVE', 'HALTED', REASON),
      restartText('a', 2, REASON),
    ];
    for (const t of texts) {
      expect(t.split('\n')).toHaveLength(1);
      expect(t).toContain('drill\\e[2J\\nfake: all bots flat');
    }
  });
});
