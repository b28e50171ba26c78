import { requiredCounterpartyType } from './accounts.js';
import { add, at, type LineRule } from './rules.js';

/** A line's counterparty: the one its account's type needs, known and active. */
export const counterpartyRule: LineRule = (c, l) => {
  const { counterparty_type: type, counterparty_external_id: id } = l.raw;
  const needed = l.account ? requiredCounterpartyType(l.account.account_type) : null;
  const given = (type !== undefined && type !== null) || (id !== undefined && id !== null);
  const path = (f: string) => at(l, f);
  const bad = (p: string, message: string) => add(c, path(p), 'invalid_counterparty', message);
  if (!given) {
    if (needed)
      bad(
        'counterparty_external_id',
        `lines on ${l.account!.account_type} accounts need a ${needed} counterparty`,
      );
    return;
  }
  if (typeof type !== 'string' || type === '') {
    return bad('counterparty_type', 'counterparty_type is required with counterparty_external_id');
  }
  if (typeof id !== 'string' || id === '') {
    return bad(
      'counterparty_external_id',
      'counterparty_external_id is required with counterparty_type',
    );
  }
  if (needed && type !== needed) {
    return bad(
      'counterparty_type',
      `lines on ${l.account!.account_type} accounts need a ${needed}, not a ${type}`,
    );
  }
  const cp = c.ctx.counterparty(type, id);
  if (!cp) bad('counterparty_external_id', `no ${type} with external id '${id}'`);
  else if (!cp.is_active)
    bad('counterparty_external_id', `${type} '${id}' (${cp.name}) is inactive`);
  else l.counterparty = cp;
};
