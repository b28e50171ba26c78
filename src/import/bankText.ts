/**
 * A bank file's bytes as text, in the encoding they are in. Banks write UTF-8, UTF-16 and the old
 * single-byte encodings (Windows-1252, Latin-1), and an OFX header or XML declaration may say which,
 * not always truly. In order: a byte-order mark wins; bytes that are valid UTF-8 and not plain ASCII
 * are UTF-8 whatever a header says; otherwise the encoding the file declares, else the one given
 * (`--encoding`), else UTF-8, and bytes that are not valid in it are an error naming the row.
 */

import type { Encoding } from '../domain/statementLayout.js';
export { ENCODINGS, type Encoding } from '../domain/statementLayout.js';

/** The text, and the encoding it was read in (said after an import). */
export interface DecodedText {
  text: string;
  encoding: string;
}

/** A decoding that failed: where (1-based line) and why, for the caller's message. */
export class EncodingError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** Reads a flag's value: an encoding's usual names, or null for one books does not read. */
export function encodingOf(name: string): Encoding | null {
  const n = name.trim().toLowerCase().replace(/[_\s]/g, '-');
  if (['utf-8', 'utf8'].includes(n)) return 'utf-8';
  if (['utf-16', 'utf16', 'utf-16le', 'utf-16be'].includes(n)) return 'utf-16';
  if (['latin1', 'latin-1', 'iso-8859-1', 'iso8859-1', 'l1'].includes(n)) return 'latin1';
  if (['windows-1252', 'cp1252', '1252', 'win1252'].includes(n)) return 'windows-1252';
  return null;
}

/** The encoding an OFX 1.x header (`CHARSET`, `ENCODING`) or an XML declaration names, if any. */
function declared(head: string): Encoding | null {
  const xml = /<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/i.exec(head);
  if (xml) return encodingOf(xml[1]!);
  const charset = /^\s*CHARSET\s*:\s*(\S+)/im.exec(head)?.[1];
  const encoding = /^\s*ENCODING\s*:\s*(\S+)/im.exec(head)?.[1]?.toUpperCase();
  if (charset && charset.toUpperCase() !== 'NONE') {
    const c = charset.toUpperCase();
    if (c === '1252') return 'windows-1252';
    if (c === '8859-1' || c === 'ISO-8859-1') return 'latin1';
    const named = encodingOf(charset);
    if (named) return named;
  }
  if (encoding === 'UTF-8' || encoding === 'UNICODE') return 'utf-8';
  return null;
}

const fatal = (label: string) => new TextDecoder(label, { fatal: true });

/** Whether the bytes are plain ASCII (every encoding reads them alike). */
function ascii(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b > 0x7f) return false;
  return true;
}

/** The 1-based line of the first byte UTF-8 cannot read, for the error. */
function badLine(bytes: Uint8Array): number {
  let line = 1;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b === 0x0a) line++;
    if (b < 0x80) {
      i++;
      continue;
    }
    const n = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : b >= 0xc0 ? 1 : -1;
    if (n < 0) return line;
    for (let k = 1; k <= n; k++) if (((bytes[i + k] ?? 0) & 0xc0) !== 0x80) return line;
    i += n + 1;
  }
  return line;
}

/** The text of a bank file's bytes (see the module's rule); `given` is `--encoding`, if any. */
export function decodeBankFile(bytes: Uint8Array, given: Encoding | null): DecodedText {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return { text: utf8(bytes.subarray(3)), encoding: 'utf-8' };
  if (bytes[0] === 0xff && bytes[1] === 0xfe)
    return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'utf-16le' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff)
    return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'utf-16be' };
  if (ascii(bytes)) return { text: Buffer.from(bytes).toString('latin1'), encoding: 'ascii' };
  try {
    // Valid UTF-8 beyond ASCII is almost never an accident of another encoding.
    return { text: fatal('utf-8').decode(bytes), encoding: 'utf-8' };
  } catch {
    // Read on.
  }
  const head = Buffer.from(bytes.subarray(0, 4096)).toString('latin1');
  const encoding = declared(head) ?? given;
  if (encoding === 'latin1' || encoding === 'windows-1252')
    return { text: windows1252(bytes), encoding };
  if (encoding === 'utf-16')
    return { text: new TextDecoder('utf-16le').decode(bytes), encoding: 'utf-16le' };
  return { text: utf8(bytes), encoding: 'utf-8' };
}

/**
 * Windows-1252, which is Latin-1 but for 0x80-0x9F (`€` at 0x80, curly quotes, `Š`): as browsers do,
 * a file said to be Latin-1 is read so too, since those bytes are never Latin-1's control codes in a
 * bank's text. Node's own decoder reads 0x80-0x9F as Latin-1 does, so the table is ours.
 */
function windows1252(bytes: Uint8Array): string {
  const text = Buffer.from(bytes).toString('latin1');
  return /[\x80-\x9f]/.test(text)
    ? text.replace(/[\x80-\x9f]/g, (c) => HIGH[c.charCodeAt(0) - 0x80]!)
    : text;
}

const HIGH = [
  ...'\u20ac\x81\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\x8d\u017d\x8f',
  ...'\x90\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\x9d\u017e\u0178',
];

function utf8(bytes: Uint8Array): string {
  try {
    return fatal('utf-8').decode(bytes);
  } catch {
    throw new EncodingError(
      badLine(bytes),
      'is not UTF-8 text: give its encoding with --encoding (latin1, windows-1252, utf-16)',
    );
  }
}
