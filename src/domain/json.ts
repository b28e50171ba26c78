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
