import { describe, expect, it } from 'vitest';
import { base64urlKey, KeyTable, textKey } from '../../src/import/keyTable.js';

const key = (text: string) => textKey(text, new Int32Array(4));

describe('KeyTable', () => {
  it('keeps every key with its value through many growths, and knows absent keys', () => {
    const t = new KeyTable();
    const n = 50_000;
    for (let i = 0; i < n; i++) t.set(key(`E${i}`), i + 1);
    for (let i = 0; i < n; i++) expect(t.get(key(`E${i}`))).toBe(i + 1);
    expect(t.get(key(`E${n}`))).toBe(0);
    t.set(key('E7'), 99);
    expect(t.get(key('E7'))).toBe(99);
  });

  it('tells apart texts that differ only in length, case, trailing zeros or far characters', () => {
    const texts = [
      '',
      'a',
      'a\u0000',
      'A',
      'ab',
      'ba',
      '1',
      '01',
      '10',
      'x'.repeat(15),
      'x'.repeat(16),
      'x'.repeat(15) + 'y',
      'é',
      'e\u0301',
      '日本',
      'JE-42',
      'JE-420',
    ];
    const t = new KeyTable();
    texts.forEach((s, i) => t.set(key(s), i + 1));
    texts.forEach((s, i) => expect(t.get(key(s)), JSON.stringify(s)).toBe(i + 1));
  });

  it('gives a text the same key every time', () => {
    for (const s of ['E1', 'a long group key of more than fifteen characters', '日本'])
      expect([...key(s)]).toEqual([...key(s)]);
  });
});

describe('base64urlKey', () => {
  it('reads the first 120 bits of a digest: equal prefixes give equal keys, any change in them another', () => {
    const d = 'AbC-_xyz0123456789abcdEFGH';
    const k = (s: string) => [...base64urlKey(s, new Int32Array(4))];
    expect(k(d)).toEqual(k(d.slice(0, 20) + 'zzzz'));
    for (let i = 0; i < 20; i++)
      expect(k(d), `character ${i}`).not.toEqual(
        k(d.slice(0, i) + (d[i] === 'A' ? 'B' : 'A') + d.slice(i + 1)),
      );
  });
});
