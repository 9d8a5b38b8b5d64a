// The client's signer (the HMAC's padded key blocks made once) gives the very signature `sign` gives, which is
// what the simulator checks a request against: any secret (empty, longer than a block, not ASCII), any request.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sign, signer } from '../../../src/api/index.js';

describe('signer', () => {
  it('equals sign for every secret and request', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 8 }),
          fc.string({ minLength: 60, maxLength: 200 }),
          fc.string({ unit: 'binary', maxLength: 80 }),
        ),
        fc.stringMatching(/^\d{13}$/),
        fc.constantFrom('GET', 'POST'),
        fc.string({ maxLength: 40 }),
        fc.string({ unit: 'binary', maxLength: 300 }),
        (secret, ts, method, query, body) => {
          const s = signer(secret);
          expect(s(ts, method, '/api/v3/x', query, body)).toBe(
            sign(secret, ts, method, '/api/v3/x', query, body),
          );
          // Made once, used many times: the second signature is as right as the first.
          expect(s(ts, method, '/y', '', body)).toBe(sign(secret, ts, method, '/y', '', body));
        },
      ),
      { numRuns: 500 },
    );
  });
});
