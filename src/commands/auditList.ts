import { command, str } from '../cli/command.js';
import { dateFlag } from '../cli/flags.js';
import { openOutput, readFirst, writeJsonList, writeTo } from '../cli/output.js';
import type { AuditEvent } from '../domain/audit.js';
import { csvLine } from '../render/csv.js';
import { cell } from '../render/text.js';
import { OUTPUT_FLAG } from './reportFlags.js';

interface Options {
  since: string | undefined;
  until: string | undefined;
  actor: string | undefined;
  action: string | undefined;
  object: string | undefined;
  output: string | undefined;
}

/** The columns of `books audit list --format csv`, in order (docs/cli.md). */
export const AUDIT_COLUMNS = [
  'seq',
  'at',
  'actor',
  'via',
  'action',
  'objects',
  'summary',
  'entries',
  'hash',
];

const csvRow = (e: AuditEvent) =>
  csvLine([
    String(e.seq),
    e.at,
    e.actor,
    e.via,
    e.action,
    e.objects.join(' '),
    e.summary,
    String(e.entries),
    e.hash,
  ]) + '\n';

export default command<Options>({
  flags: [
    { flags: '--since <YYYY-MM-DD>', description: 'events on or after this day (UTC)' },
    { flags: '--until <YYYY-MM-DD>', description: 'events on or before this day (UTC)' },
    { flags: '--actor <actor>', description: "one actor's events (cli:USER, key:ID NAME)" },
    { flags: '--action <action>', description: 'one kind of event (entry.posted, lock_date.set…)' },
    {
      flags: '--object <id-or-number>',
      description: 'events naming this entry, key, account or statement line (JE-5, je_…)',
    },
    OUTPUT_FLAG,
  ],
  formats: ['table', 'csv', 'json'],
  help: `Every change to the ledger is an event, oldest first: seq (gapless), the database's time, who
(an API key, or cli: and the system user), through what (a command, an API route), what changed and
a summary. Streamed: any length of trail lists in constant memory. An entry imported with many
others is named by its import's event, whose objects are the first and last JE numbers.`,
  examples: [
    'books audit list --since 2025-01-01 --action lock_date.set',
    'books audit list --object JE-4127',
    'books audit list --format csv --output trail.csv',
  ],
  options: (raw) => ({
    since: dateFlag('--since', str(raw, 'since')),
    until: dateFlag('--until', str(raw, 'until')),
    actor: str(raw, 'actor'),
    action: str(raw, 'action'),
    object: str(raw, 'object'),
    output: str(raw, 'output'),
  }),
  async run(ctx, opts) {
    const ledger = await ctx.ledger();
    const { output, ...filter } = opts;
    const all = await readFirst(ledger.audit.list(filter));
    const out = await openOutput(ctx, output);
    const write = (text: string) => out.write(text);
    await writeTo(out, async () => {
      if (ctx.json) return writeJsonList(write, all);
      if (ctx.format === 'csv') {
        await write(csvLine(AUDIT_COLUMNS) + '\n');
        for await (const e of all) await write(csvRow(e));
        return;
      }
      let any = false;
      for await (const e of all) {
        if (!any)
          await write(
            `${'Seq'.padStart(6)}  ${'At (UTC)'.padEnd(24)}  Actor / via / action: summary\n`,
          );
        any = true;
        const head = `${String(e.seq).padStart(6)}  ${e.at.padEnd(24)}  ${cell(e.actor)} via ${cell(e.via)}`;
        await write(`${head}\n${' '.repeat(34)}${e.action}: ${cell(e.summary)}\n`);
      }
      if (!any) await write('No audit events.\n');
    });
  },
});
