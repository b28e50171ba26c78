/**
 * Text from the ledger (memos, names, counterparty names) is stored as given and neutralised where it
 * is shown: on a terminal, a control character or an escape sequence would retitle or clear it, and
 * bidirectional overrides would show text in another order than it is stored.
 */
// Control characters are what these expressions are for.
/* eslint-disable no-control-regex */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_OR_BREAK = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/* eslint-enable no-control-regex */

const escaped = (c: string) => {
  const n = c.charCodeAt(0);
  return n < 0x100
    ? `\\x${n.toString(16).padStart(2, '0')}`
    : `\\u${n.toString(16).padStart(4, '0')}`;
};

/** Text for a terminal: control characters shown as escapes; line breaks and tabs kept. */
export function printable(text: string): string {
  return text.replace(CONTROL, escaped);
}

/** One table cell or one line: every control character and line break shown as an escape. */
export function cell(text: string): string {
  return text.replace(CONTROL_OR_BREAK, (c) =>
    c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : escaped(c),
  );
}
