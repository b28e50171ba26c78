import { writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/domain/audit.js';
import { keyId } from '../../src/domain/keys.js';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';
import { tempDir } from '../support/ledgers.js';

const FIXTURE_DIR = join(import.meta.dirname, '../../fixtures');

/** Every event of the ledger, read from its store. */
async function trail(L: FixtureLedger): Promise<AuditEvent[]> {
  const out: AuditEvent[] = [];
  for await (const e of L.store.audit.list({})) out.push(e);
  return out;
}

/**
 * A change run through the real books: its arguments, the event it makes (action, and how many
 * events over a remote profile when that differs), and whether a remote profile offers it.
 */
interface Step {
  args: string[];
  action: string | null;
  /** Events over a remote profile, when not one (an import posts entry by entry there). */
  remoteEvents?: number;
  remoteAction?: string;
  local?: boolean;
}

function steps(dir: string): Step[] {
  const entries = join(dir, 'entries.csv');
  writeFileSync(
    entries,
    [
      'entry,entry_date,memo,gl_account_id,debit,credit',
      'A,2025-01-10,Supplies,office,25.00,',
      'A,2025-01-10,,checking,,25.00',
      'B,2025-01-11,Fee,bank-fees,5.00,',
      'B,2025-01-11,,checking,,5.00',
    ].join('\n') + '\n',
  );
  const chart = join(dir, 'chart.csv');
  writeFileSync(
    chart,
    'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency,cash_flow\n' +
      'audit-extra,6990,Audit Extra,expense,expenses,true,true,,\n',
  );
  return [
    {
      args: [
        'je',
        'post',
        '--debit',
        'rent=100',
        '--credit',
        'checking=100',
        '--date',
        '2025-01-05',
      ],
      action: 'entry.posted',
    },
    { args: ['je', 'reverse', 'JE-1', '--date', '2025-01-06'], action: 'entry.reversed' },
    {
      args: ['je', 'import', entries],
      action: 'entries.imported',
      remoteEvents: 2,
      remoteAction: 'entry.posted',
    },
    {
      args: ['budgets', 'import', join(FIXTURE_DIR, 'demo/budget-2025.csv')],
      action: 'budgets.imported',
    },
    {
      args: [
        ...['recurring', 'add', '--name', 'rent', '--every', 'month', '--day', '1'],
        ...['--start', '2025-01-01', '--debit', 'rent=10', '--credit', 'checking=10'],
      ],
      action: 'recurring.added',
    },
    { args: ['recurring', 'run', '--through', '2025-01-31'], action: 'recurring.run' },
    { args: ['recurring', 'remove', 'rent'], action: 'recurring.removed' },
    {
      args: ['rates', 'add', '--date', '2025-01-31', '--currency', 'EUR', '--rate', '1.12'],
      action: 'rates.imported',
    },
    {
      args: [
        ...['reconcile', 'import', join(FIXTURE_DIR, 'reconcile/checking-2025-01.csv')],
        ...['--account', 'checking'],
      ],
      action: 'reconcile.statement_imported',
    },
    {
      args: ['reconcile', 'clear', '--account', 'checking', '--line', 'JE-3:2'],
      action: 'reconcile.cleared',
    },
    // The chart's counterparties again: nothing changes, and no event says otherwise.
    {
      args: ['counterparties', 'import', join(FIXTURE_DIR, 'demo/counterparties.csv')],
      action: null,
      local: true,
    },
    { args: ['accounts', 'import', chart], action: 'chart.imported', local: true },
    { args: ['books-start', '2024-12'], action: 'books_start.set', local: true },
    { args: ['close', '--through', '2025-01-31'], action: 'lock_date.set', local: true },
    { args: ['rebuild'], action: 'ledger.rebuilt', local: true },
  ];
}

describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'the audit trail on %s',
  (name, fixture) => {
    const remote = name === 'served';

    it('every kind of change makes exactly one event, by its actor, through its command or route', async () => {
      const L = await fromTemplate(fixture, 'standard');
      try {
        const actor = remote
          ? `key:${keyId(L.http!.keys.both)} fixture`
          : `cli:${userInfo().username}`;
        for (const step of steps(tempDir())) {
          if (remote && step.local) continue;
          const before = (await trail(L)).length;
          const r = await L.books(step.args);
          expect(r.exitCode, `${step.args.join(' ')}: ${r.stderr}`).toBe(0);
          const added = (await trail(L)).slice(before);
          const count = step.action === null ? 0 : remote ? (step.remoteEvents ?? 1) : 1;
          const action = (remote && step.remoteAction) || step.action;
          expect(
            added.map((e) => e.action),
            step.args.join(' '),
          ).toEqual(Array(count).fill(action));
          for (const e of added) {
            expect(e.actor, step.args.join(' ')).toBe(actor);
            if (remote) expect(e.via).toMatch(/^(GET|POST) \/v1\//);
            else
              expect(e.via).toBe(
                `cli ${step.args.slice(0, 2).join(' ')}`.replace(/ [^a-z].*$/, ''),
              );
          }
        }
        // A statement line set aside, and taken back.
        const status = await L.books([
          'reconcile',
          'status',
          '--account',
          'checking',
          '--format',
          'json',
        ]);
        const line = (JSON.parse(status.stdout) as { unmatched_statement_lines: { id: string }[] })
          .unmatched_statement_lines[0]!.id;
        for (const [verb, action] of [
          ['ignore', 'reconcile.ignored'],
          ['unmatch', 'reconcile.unmatched'],
        ] as const) {
          const before = (await trail(L)).length;
          const r = await L.books([
            'reconcile',
            verb,
            '--account',
            'checking',
            '--statement-line',
            line,
          ]);
          expect(r.exitCode, r.stderr).toBe(0);
          expect((await trail(L)).slice(before).map((e) => [e.action, e.actor])).toEqual([
            [action, actor],
          ]);
        }
        // Keys are a local ledger's: made and revoked at its terminal.
        if (!remote) {
          const before = (await trail(L)).length;
          const made = await L.books([
            'keys',
            'create',
            '--permission',
            'customer_api:read',
            '--format',
            'json',
          ]);
          expect(made.exitCode, made.stderr).toBe(0);
          const id = (JSON.parse(made.stdout) as { id: string }).id;
          expect((await L.books(['keys', 'revoke', id])).exitCode).toBe(0);
          expect((await L.books(['keys', 'revoke', id])).exitCode).toBe(0);
          const added = (await trail(L)).slice(before);
          expect(added.map((e) => [e.action, e.objects])).toEqual([
            ['key.created', [id]],
            ['key.revoked', [id]],
          ]);
        }
        const all = await trail(L);
        expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
        expect((await L.store.audit.verify()).problems).toEqual([]);
        expect(await L.check()).toEqual([]);
      } finally {
        await L.close();
      }
    });

    it('foreign currencies: the gain and loss accounts, a rate, a revaluation, one event each', async () => {
      const L = await fromTemplate(fixture, 'fx');
      try {
        const steps: [string[], string][] = [
          [
            ['entity', 'set', '--fx-realized', 'fx-realized', '--fx-unrealized', 'fx-unrealized'],
            'fx.accounts_set',
          ],
          [
            ['rates', 'add', '--date', '2025-01-20', '--currency', 'EUR', '--rate', '1.11'],
            'rates.imported',
          ],
          [
            [
              'je',
              'post',
              '--date',
              '2025-01-10',
              '--debit',
              'eur-bank=EUR 1000.00 @ 1.10',
              '--credit',
              'capital=1100',
            ],
            'entry.posted',
          ],
          [['fx', 'revalue', '--as-of', '2025-01-31'], 'fx.revalued'],
        ];
        for (const [args, action] of steps) {
          const before = (await trail(L)).length;
          const r = await L.books(args);
          expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
          expect(
            (await trail(L)).slice(before).map((e) => e.action),
            args.join(' '),
          ).toEqual([action]);
        }
        expect((await L.store.audit.verify()).problems).toEqual([]);
      } finally {
        await L.close();
      }
    });

    it('a refused change makes no event, and je show says who posted an entry', async () => {
      const L = await fromTemplate(fixture, 'standard');
      try {
        const before = await trail(L);
        const refused = await L.books([
          'je',
          'post',
          '--debit',
          'nowhere=1',
          '--credit',
          'checking=1',
        ]);
        expect(refused.exitCode).not.toBe(0);
        expect(await trail(L)).toEqual(before);
        const posted = await L.books([
          ...['je', 'post', '--debit', 'rent=7', '--credit', 'checking=7', '--date', '2025-01-07'],
        ]);
        expect(posted.exitCode, posted.stderr).toBe(0);
        const shown = await L.books(['je', 'show', 'JE-1']);
        const event = (await trail(L)).at(-1)!;
        expect(shown.stdout).toContain(`Posted by ${event.actor} via ${event.via} at ${event.at}`);
      } finally {
        await L.close();
      }
    });
  },
);
