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
  return pg.escapeLiteral(Array.isArray(v) ? arrayLiteral(v.length, (i) => v[i]) : scalar(v));
}

/** `length` values (the i-th `at(i)`) as an array literal, as a text[] or int8[] parameter takes them. */
export function arrayLiteral(length: number, at: (i: number) => unknown): string {
  const elements = new Array<string>(length);
  for (let i = 0; i < length; i++) elements[i] = element(at(i));
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
