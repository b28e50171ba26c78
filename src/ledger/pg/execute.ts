import pg from 'pg';

/** The named statements a connection has prepared (node-postgres prepares one at its first run). */
const preparedStatements = new WeakMap<object, Set<string>>();
export function preparedOn(client: object): Set<string> {
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
  return pg.escapeLiteral(Array.isArray(v) ? arrayLiteral(v) : scalar(v));
}

/** Values as an array literal, as a statement takes a text[] or int8[] parameter. */
export function arrayLiteral(values: unknown[]): string {
  const elements = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) elements[i] = element(values[i]);
  return `{${elements.join(',')}}`;
}

/** An element of an array literal: a text quoted, its quotes and backslashes escaped. */
function element(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v !== 'string') return scalar(v);
  return `"${/["\\]/.test(v) ? v.replace(/["\\]/g, '\\$&') : v}"`;
}

function scalar(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  throw new Error(`a parameter of type ${typeof v} has no literal here`);
}
