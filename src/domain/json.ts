/**
 * A JSON number written with a fraction or an exponent (`1.5`, `1.0`, `1e2`). It is kept as its text
 * so that the JSON text decides what is an integer: `0.99999999999999999` is not 1 atom.
 */
export class JsonFraction {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }

  /** Marked for toJson, which writes it as the number it was written as. */
  toJSON(): string {
    return marked(this.text);
  }
}

/**
 * Exact numbers go through JSON.stringify as marked strings, then lose their quotes. The mark holds a
 * token drawn when the process starts, so that no text from the ledger (a memo) can pass for one.
 */
const TOKEN = Math.random().toString(36).slice(2, 10);
const marked = (digits: string) => `\u0000${TOKEN}${digits}\u0000`;
const MARKED = new RegExp(`"\\\\u0000${TOKEN}([-+.\\deE]+)\\\\u0000"`, 'g');

/** A JSON value as read exactly: integers beyond 2^53 are bigint, written fractions JsonFraction. */
export type ExactJson = unknown;

/** JSON text in which bigint and JsonFraction values are written as their exact digits. */
export function toJson(value: unknown, indent = 2): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, indent);
  } catch (e) {
    // JSON.stringify refuses bigint; only then pay for a replacer that marks every one.
    if (!(e instanceof TypeError)) throw e;
    const mark = (_k: string, v: unknown) => (typeof v === 'bigint' ? marked(String(v)) : v);
    text = JSON.stringify(value, mark, indent);
  }
  return text.includes(`\\u0000${TOKEN}`) ? text.replace(MARKED, '$1') : text;
}

/** The largest request body the API takes (and `je post --file` reads): 2 MiB. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** Deepest nesting a request body may have: an entry is three levels deep (body, lines, line). */
export const MAX_JSON_DEPTH = 32;

/**
 * Parses JSON text exactly: nesting deeper than MAX_JSON_DEPTH is refused before anything is built
 * (deep values would overflow the stack of whatever walks them); an integer beyond 2^53 − 1 becomes
 * a bigint and a number written with a fraction or an exponent a JsonFraction, never a rounded
 * double; an object that names a key twice is refused (JSON.parse would keep the last value
 * silently). Text whose numbers are all short integers (nearly all) goes through JSON.parse.
 */
export function parseJsonBody(
  text: string,
): { ok: true; value: ExactJson } | { ok: false; message: string } {
  const scan = scanJson(text);
  if (scan === 'too_deep') {
    return { ok: false, message: `it is nested deeper than ${MAX_JSON_DEPTH} levels` };
  }
  try {
    if (!scan.exact) {
      const value: unknown = JSON.parse(text);
      // Every key of the text is one ':' outside strings; fewer properties means a key came twice.
      if (propertyCount(value) === scan.keys) return { ok: true, value };
    }
    return { ok: true, value: new ExactParser(text).document() };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

/** How many properties the objects of a parsed value hold, all levels together. */
function propertyCount(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  let n = 0;
  if (Array.isArray(v)) for (const x of v) n += propertyCount(x);
  else for (const k in v) n += 1 + propertyCount((v as Record<string, unknown>)[k]);
  return n;
}

/**
 * Walks the text once: how deep it nests, how many keys its objects name, and whether any number
 * needs the exact parser.
 */
function scanJson(text: string): { exact: boolean; keys: number } | 'too_deep' {
  let depth = 0;
  let inString = false;
  let digits = 0;
  let exact = false;
  let keys = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c >= 48 && c <= 57) {
      if (++digits > 15) exact = true;
      continue;
    }
    digits = 0;
    if (c === 34) inString = true;
    else if (c === 58) keys++;
    else if (c === 46 || c === 101 || c === 69) exact = true;
    else if (c === 123 || c === 91) {
      if (++depth > MAX_JSON_DEPTH) return 'too_deep';
    } else if (c === 125 || c === 93) depth--;
  }
  return { exact, keys };
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A small recursive-descent JSON parser for the texts JSON.parse would round. */
class ExactParser {
  private i = 0;

  constructor(private readonly s: string) {}

  document(): unknown {
    const v = this.value();
    this.space();
    if (this.i < this.s.length) this.fail('unexpected text after the JSON value');
    return v;
  }

  private fail(what: string): never {
    throw new SyntaxError(`${what} at position ${this.i}`);
  }

  private space(): void {
    while (this.i < this.s.length && ' \t\n\r'.includes(this.s[this.i]!)) this.i++;
  }

  private value(): unknown {
    this.space();
    const c = this.s[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    return this.number();
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.i++;
    this.space();
    if (this.s[this.i] === '}') return (this.i++, out);
    for (;;) {
      this.space();
      if (this.s[this.i] !== '"') this.fail('expected a property name');
      const at = this.i;
      const key = this.string();
      if (Object.prototype.hasOwnProperty.call(out, key)) {
        this.i = at;
        this.fail(`the key ${JSON.stringify(key)} is given twice in one object`);
      }
      this.space();
      if (this.s[this.i++] !== ':') this.fail("expected ':'");
      Object.defineProperty(out, key, {
        value: this.value(),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.space();
      const c = this.s[this.i++];
      if (c === '}') return out;
      if (c !== ',') this.fail("expected ',' or '}'");
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.i++;
    this.space();
    if (this.s[this.i] === ']') return (this.i++, out);
    for (;;) {
      out.push(this.value());
      this.space();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') this.fail("expected ',' or ']'");
    }
  }

  private string(): string {
    const start = this.i;
    for (let j = start + 1; j < this.s.length; j++) {
      const c = this.s.charCodeAt(j);
      if (c === 92) j++;
      else if (c === 34) {
        this.i = j + 1;
        return JSON.parse(this.s.slice(start, j + 1)) as string;
      }
    }
    return this.fail('unterminated string');
  }

  private number(): number | bigint | JsonFraction {
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.s);
    if (!m) return this.fail('unexpected character');
    this.i += m[0].length;
    if (m[1] !== undefined || m[2] !== undefined) return new JsonFraction(m[0]);
    const n = BigInt(m[0]);
    return n > MAX_SAFE || n < -MAX_SAFE ? n : Number(n);
  }
}
