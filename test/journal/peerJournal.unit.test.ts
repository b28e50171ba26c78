import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GlAccount } from '../../src/domain/accounts.js';
import {
  peerAccountNames,
  readTags,
  tagsText,
  tagValue,
  untagValue,
} from '../../src/domain/peerJournal.js';

const runs = { seed: 20261124, numRuns: 500 };

describe('peer journal text', () => {
  it('a tag value holds any text exactly, and never a comma, a line break or an end space', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const v = tagValue(s);
        expect(untagValue(v)).toBe(s);
        expect(v).not.toMatch(/[,\n\r]|^\s|\s$/);
      }),
      runs,
    );
  });

  it('tags read back as written, with other text of the comment apart', () => {
    const written = tagsText([
      ['customer', 'C,1'],
      ['memo', ' a, b; c\n '],
    ]);
    const tags = readTags(`${written}, note: kept`, new Set(['customer', 'memo']));
    expect(Object.fromEntries(tags)).toEqual({
      customer: 'C,1',
      memo: ' a, b; c\n ',
      '': 'note: kept',
    });
  });

  it('account names are unique, for either peer, whatever names and numbers the chart holds', () => {
    const account = fc.record({
      name: fc.constantFrom(
        'Misc',
        'misc',
        '6902 Misc',
        'A:B',
        'A-B',
        'A;B',
        'A\tB',
        'Café',
        '日本',
        '',
      ),
      number: fc.option(fc.constantFrom('6900', '6901', '6902'), { nil: null }),
      parent: fc.nat(),
    });
    fc.assert(
      fc.property(fc.array(account, { maxLength: 12 }), (list) => {
        const chart = list.map(
          (a, i) =>
            ({
              id: `acct_${i}`,
              external_id: `x${i}`,
              account_number: a.number,
              name: a.name || 'Unnamed',
              account_type: 'expense',
              // Parents come earlier in the list, so the chart has no cycle.
              parent_id: i > 0 && a.parent % 3 === 0 ? `acct_${a.parent % i}` : null,
            }) as GlAccount,
        );
        for (const peer of ['hledger', 'beancount'] as const) {
          const names = [...peerAccountNames(peer, chart).values()];
          expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(chart.length);
        }
      }),
      runs,
    );
  });
});
