import { errors } from '../domain/errors.js';
import { checkReportQuery, type PeriodType, type ReportQuery } from '../domain/periods.js';

const FLAG: Record<string, string> = {
  start_date: '--start',
  end_date: '--end',
  period_type: '--period',
};

/** A report window from flags, checked as the API checks its parameters; a problem names the flag (exit 2). */
export function windowFromFlags(start: string, end: string, period: PeriodType): ReportQuery {
  const checked = checkReportQuery({ start_date: start, end_date: end, period_type: period });
  if (!('problems' in checked)) return checked.query;
  const problems = checked.problems.map((p) => ({ ...p, path: FLAG[p.path] ?? p.path }));
  throw errors.usage(problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);
}
