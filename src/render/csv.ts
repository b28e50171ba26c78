/** A CSV field: quoted when it holds the delimiter, a quote or a line break (RFC 4180). */
export function csvField(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * A text cell of a CSV meant for spreadsheets. A cell that starts with `=`, `+`, `-`, `@`, a tab or
 * a carriage return is a formula to Excel, LibreOffice and Google Sheets (`=HYPERLINK(...)` in an
 * account name would run when the report is opened): such a cell is written with a leading `'`,
 * which spreadsheets show as text. Amounts are never guarded; CSV meant to be imported again (the
 * journal's, the chart's) is written exactly and does not use this.
 */
export function spreadsheetText(s: string): string {
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
}

/** One CSV line of fields. */
export function csvLine(fields: string[]): string {
  return fields.map(csvField).join(',');
}
