/** JSON text in which bigint values are written as exact integer digits (sums may pass 2^53). */
export function toJson(value: unknown, indent = 2): string {
  try {
    return JSON.stringify(value, null, indent);
  } catch (e) {
    // JSON.stringify refuses bigint; only then pay for a replacer on every value.
    if (!(e instanceof TypeError)) throw e;
  }
  const marks: string[] = [];
  const text = JSON.stringify(
    value,
    (_k, v) => {
      if (typeof v === 'bigint') {
        marks.push(v.toString());
        return `\u0000big${marks.length - 1}\u0000`;
      }
      return v;
    },
    indent,
  );
  return text.replace(/"\\u0000big(\d+)\\u0000"/g, (_m, i) => marks[Number(i)]!);
}

/** Deepest nesting a request body may have: an entry is three levels deep (body, lines, line). */
export const MAX_JSON_DEPTH = 32;

/**
 * Parses a request body's JSON text, refusing text nested deeper than MAX_JSON_DEPTH before it is
 * parsed (deep values would overflow the stack of anything that walks them). Returns the value, or
 * the reason it is not acceptable JSON.
 */
export function parseJsonBody(
  text: string,
): { ok: true; value: unknown } | { ok: false; message: string } {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > MAX_JSON_DEPTH)
        return { ok: false, message: `it is nested deeper than ${MAX_JSON_DEPTH} levels` };
    } else if (c === 125 || c === 93) depth--;
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}
