// Text from outside made inert: every control character shown as an escape, printable text (accents, CJK,
// emoji) untouched, and the result always one line.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inertText } from '../../../src/market/inert-text.js';

describe('inertText', () => {
  it('shows escape sequences, bells, newlines and line separators as escapes', () => {
    expect(inertText('a\u001b[2Jb')).toBe('a\\e[2Jb');
    expect(inertText('x\u0007\r\n\ty\u2028z\u0085')).toBe('x\\x07\\r\\n\\ty\\u2028z\\x85');
  });

  it('leaves printable text as it is', () => {
    expect(inertText('Übertrag 東京 📈 "quoted" \\ back')).toBe('Übertrag 東京 📈 "quoted" \\ back');
  });

  it('never leaves a control character, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        // eslint-disable-next-line no-control-regex -- the property is about control characters
        expect(inertText(s)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
      }),
    );
  });
});
