const window = ['--start', '2021-01-01', '--end', '2025-12-31', '--period', 'monthly'];

/** The reports `npm run bench` times as whole processes on the 100k and 1M-line ledgers. */
export const REPORT_CASES: [string, string[]][] = [
  [
    'report balance-sheet, 60 monthly columns, json',
    ['report', 'balance-sheet', ...window, '--format', 'json'],
  ],
  [
    'report balance-sheet, 60 monthly columns, table',
    ['report', 'balance-sheet', ...window, '--format', 'table'],
  ],
  [
    'report income-statement, 60 monthly columns, json',
    ['report', 'income-statement', ...window, '--format', 'json'],
  ],
  [
    'report income-statement, 60 monthly columns, table',
    ['report', 'income-statement', ...window, '--format', 'table'],
  ],
  [
    'report cash-flow, 60 monthly columns, json',
    ['report', 'cash-flow', ...window, '--format', 'json'],
  ],
  [
    'report cash-flow, 2025 yearly, table',
    ['report', 'cf', '--start', '2025-01-01', '--end', '2025-12-31', '--period', 'yearly'],
  ],
  [
    'report trial-balance as of 2025-12-31, table',
    ['report', 'trial-balance', '--as-of', '2025-12-31'],
  ],
  [
    'report trial-balance --worksheet as of 2025-12-31, json',
    ['report', 'tb', '--as-of', '2025-12-31', '--worksheet', '--format', 'json'],
  ],
  [
    'report income-statement, 48 monthly columns --compare previous-year, json',
    [
      ...['report', 'income-statement', '--start', '2022-01-01', '--end', '2025-12-31'],
      ...['--compare', 'previous-year', '--format', 'json'],
    ],
  ],
  // Aging reads every receivable line since the books began (first-in-first-out needs them all).
  [
    'report aging --type receivable as of 2025-12-31, table',
    ['report', 'aging', '--type', 'receivable', '--as-of', '2025-12-31'],
  ],
];
