export const POST = 'customer_api:post_journal_entries';
export const READ = 'customer_api:read';

/** A key that posts and reads, made by `books keys create` through `run` (which names the ledger). */
export async function keyFor(
  run: (args: string[]) => Promise<{ stdout: string; stderr: string; exitCode?: number }>,
): Promise<string> {
  const r = await run([
    'keys',
    'create',
    '--permission',
    POST,
    '--permission',
    READ,
    '--format',
    'json',
  ]);
  if (r.exitCode) throw new Error(`books keys create: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { key: string }).key;
}
