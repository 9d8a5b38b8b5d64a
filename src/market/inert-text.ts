// Text from outside (an operator's control reason, a strategy's log line, a venue's message, a file name) made
// inert before it is shown: control characters become visible escapes, so an escape sequence cannot clear a
// terminal or set its title, and a newline cannot forge a second log line or message.

// C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
// eslint-disable-next-line no-control-regex -- matching control characters is this function's job
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

const escapeOf = (c: string): string => {
  switch (c) {
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    case '\u001b':
      return '\\e';
    default: {
      const code = c.charCodeAt(0);
      return code > 0xff
        ? `\\u${code.toString(16).padStart(4, '0')}`
        : `\\x${code.toString(16).padStart(2, '0')}`;
    }
  }
};

/** `s` on one line with its control characters shown as escapes (`\e[2J`, `\n`, `\x07`). */
export function inertText(s: string): string {
  return s.replace(CONTROL, escapeOf);
}
