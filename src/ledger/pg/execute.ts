import pg from 'pg';

/** The named statements a connection has prepared (node-postgres prepares one at its first run). */
const preparedStatements = new WeakMap<pg.PoolClient, Set<string>>();
export function preparedOn(client: pg.PoolClient): Set<string> {
  let names = preparedStatements.get(client);
  if (!names) preparedStatements.set(client, (names = new Set()));
  return names;
}

/** A statement the connection has prepared, run by EXECUTE with its values as literals. */
export const executed = (name: string, params: unknown[]): string =>
  params.length ? `EXECUTE ${name}(${params.map(literal).join(', ')})` : `EXECUTE ${name}`;

/** A parameter as an SQL literal, for EXECUTE in a simple query: typed by the prepared statement. */
function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (Array.isArray(v)) return pg.escapeLiteral(`{${v.map(element).join(',')}}`);
  return pg.escapeLiteral(scalar(v));
}

function element(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  return `"${scalar(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function scalar(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  throw new Error(`a parameter of type ${typeof v} has no literal here`);
}
