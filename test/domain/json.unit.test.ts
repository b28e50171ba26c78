import { describe, expect, it } from 'vitest';
import { parseJsonBody } from '../../src/domain/json.js';

describe('JSON bodies', () => {
  it('refuses an object that names a key twice, at any depth, whichever parser reads it', () => {
    for (const text of [
      '{"amount_atoms":5,"amount_atoms":100}',
      '{"lines":[{"memo":"a","gl_account_id":"x","memo":"b"}]}',
      // A fraction sends the text to the exact parser: the same refusal there.
      '{"a":1.5,"a":2}',
      '{"a":{"b":1},"a":{"b":1}}',
    ]) {
      const r = parseJsonBody(text);
      expect(r.ok, text).toBe(false);
      expect(!r.ok && r.message).toMatch(/is given twice/);
    }
  });

  it('keeps a colon inside a string, and equal keys in different objects', () => {
    const r = parseJsonBody('{"memo":"a:b:c","lines":[{"memo":"x"},{"memo":"y"}]}');
    expect(r).toEqual({
      ok: true,
      value: { memo: 'a:b:c', lines: [{ memo: 'x' }, { memo: 'y' }] },
    });
    expect(parseJsonBody('{"n":12345678901234567890,"m":"k:"}')).toEqual({
      ok: true,
      value: { n: 12345678901234567890n, m: 'k:' },
    });
  });
});
