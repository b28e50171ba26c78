import { join } from 'node:path';

const FIXTURES = join(import.meta.dirname, '../../fixtures/reconcile');
const ACCOUNT = ['--account', 'checking'];

/** The demo's checking account reconciled for January as the tutorial does it: the steps' arguments. */
export const JANUARY: readonly string[][] = [
  ['reconcile', 'import', join(FIXTURES, 'checking-2025-01.csv'), ...ACCOUNT],
  ['reconcile', 'match', ...ACCOUNT],
  ['reconcile', 'create', ...ACCOUNT, '--rules', join(FIXTURES, 'rules.csv')],
  [
    ...['reconcile', 'finish', ...ACCOUNT],
    ...['--statement-date', '2025-01-31', '--statement-balance', '36485.17'],
  ],
];

/** February from its OFX file, imported and matched (not finished). */
export const FEBRUARY_MATCHED: readonly string[][] = [
  ['reconcile', 'import', join(FIXTURES, 'checking-2025-02.ofx'), ...ACCOUNT],
  ['reconcile', 'match', ...ACCOUNT],
];

/** February's bank-only lines posted and the month finished at the OFX's closing balance. */
export const FEBRUARY_FINISHED: readonly string[][] = [
  ...FEBRUARY_MATCHED,
  ['reconcile', 'create', ...ACCOUNT, '--rules', join(FIXTURES, 'rules.csv')],
  ['reconcile', 'finish', ...ACCOUNT],
];
