/** The JSON Schemas (2020-12) of what `books serve` answers, for its OpenAPI description. */

export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const str: Schema = { type: 'string' };
export const strOrNull: Schema = { type: ['string', 'null'] };
export const int: Schema = { type: 'integer' };
const atomsOrNull: Schema = { type: ['integer', 'null'] };
export const date: Schema = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
export const dateOrNull: Schema = { type: ['string', 'null'], pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
export const bool: Schema = { type: 'boolean' };
export const arrayOf = (items: Schema): Schema => ({ type: 'array', items });
/** A query parameter of an operation. */
export const query = (name: string, schema: Schema, description: string, required = false) => ({
  name,
  in: 'query',
  required,
  schema,
  description,
});
const mapOf = (values: Schema): Schema => ({ type: 'object', additionalProperties: values });

/** An object whose properties are all present and no other. */
export function obj(properties: Record<string, Schema>, optional: string[] = []): Schema {
  const required = Object.keys(properties).filter((k) => !optional.includes(k));
  return { type: 'object', properties, required, additionalProperties: false };
}

const period = obj({ id: str, label: str, start_date: date, end_date: date });

const node = (amounts: string, own: string, self: string): Schema =>
  obj({
    account_id: strOrNull,
    account_number: strOrNull,
    name: str,
    is_postable: bool,
    account_kind: str,
    [amounts]: mapOf(atomsOrNull),
    [own]: mapOf(atomsOrNull),
    transaction_counts: mapOf(int),
    children: arrayOf(ref(self)),
  });

/** A foreign line's amount in its account's currency and the rate used (docs/currency.md). */
export const fxSnapshot = obj({ currency: str, amount_atoms: int, rate: str });

const line = obj(
  {
    id: str,
    object: { const: 'journal_entry_line' },
    created_at: str,
    updated_at: str,
    is_deleted: bool,
    journal_entry_id: str,
    account_id: str,
    account_number: strOrNull,
    account_name: str,
    account_type: str,
    line_type: { enum: ['debit', 'credit'] },
    amount_atoms: int,
    memo: strOrNull,
    counterparty_type: strOrNull,
    counterparty_external_id: strOrNull,
    counterparty_name: strOrNull,
    fx: fxSnapshot,
    system: { enum: ['fx_realized'] },
    tags: {
      ...mapOf(str),
      description: "the line's own tags, those it sets apart from its entry's",
    },
  },
  ['fx', 'system', 'tags'],
);

const journalEntry = obj({
  id: str,
  object: { const: 'journal_entry' },
  created_at: str,
  updated_at: str,
  is_deleted: bool,
  je_number: str,
  entry_date: date,
  memo: strOrNull,
  source: str,
  total_debit_atoms: int,
  total_credit_atoms: int,
  currency: str,
  lines: arrayOf(ref('JournalEntryLine')),
  status: str,
  manual_entry_reason: strOrNull,
  policy_key: strOrNull,
  tags: mapOf(str),
  attachments: arrayOf(obj({ url: str, filename: str, content_type: str })),
  is_adjusting: bool,
  entry_type_label: str,
  counterparty_name: strOrNull,
  source_description: strOrNull,
  source_svc_object: {
    oneOf: [
      { type: 'null' },
      obj({ object_type: str, object_external_id: str, display_number: str }),
    ],
  },
  original_journal_entry_id: strOrNull,
  original_journal_entry_date: { oneOf: [{ type: 'null' }, date] },
  reversed_by_journal_entry_ids: arrayOf(str),
});

const glLine = obj(
  {
    entry_id: str,
    je_number: str,
    entry_date: date,
    memo: strOrNull,
    line_memo: strOrNull,
    counterparty_type: strOrNull,
    counterparty_external_id: strOrNull,
    counterparty_name: strOrNull,
    debit: atomsOrNull,
    credit: atomsOrNull,
    balance: int,
    fx: obj({ amount_atoms: int, rate: str }),
  },
  ['fx'],
);

const glBlock = obj(
  {
    account_id: str,
    account_number: strOrNull,
    name: str,
    account_type: str,
    opening: atomsOrNull,
    lines: arrayOf(ref('GeneralLedgerLine')),
    closing: int,
    debit_total: int,
    credit_total: int,
  },
  ['closing', 'debit_total', 'credit_total'],
);

const glAccount = obj(
  {
    id: str,
    object: { const: 'gl_account' },
    external_id: str,
    account_number: strOrNull,
    name: str,
    account_type: str,
    parent_id: strOrNull,
    is_postable: bool,
    is_active: bool,
    account_kind: str,
    currency: strOrNull,
    monetary: { ...bool, description: 'set by the chart: whether a foreign account is revalued' },
    cash_flow: {
      enum: ['operating', 'investing', 'financing', 'cash'],
      description: "set by the chart: the account's section of the cash-flow statement",
    },
    created_at: str,
    updated_at: str,
  },
  ['monetary', 'cash_flow'],
);

const problem: Schema = {
  type: 'object',
  properties: {
    type: str,
    title: str,
    status: int,
    code: str,
    detail: str,
    retryable: bool,
    errors: arrayOf(obj({ path: str, reason: str, message: str })),
  },
  required: ['type', 'title', 'status', 'code', 'detail', 'retryable', 'errors'],
};

export const SCHEMAS: Record<string, Schema> = {
  Problem: problem,
  JournalEntryLine: line,
  JournalEntry: journalEntry,
  BalanceSheetNode: node('balances', 'own_balances', 'BalanceSheetNode'),
  BalanceSheet: obj(
    {
      periods: arrayOf(period),
      reporting_currency: str,
      sections: arrayOf(
        obj({
          account_type: { enum: ['assets', 'liabilities', 'equity'] },
          label: str,
          balances: mapOf(atomsOrNull),
          children: arrayOf(ref('BalanceSheetNode')),
        }),
      ),
      comparisons: arrayOf(ref('Comparison')),
    },
    ['comparisons'],
  ),
  IncomeStatementNode: node('amounts', 'own_amounts', 'IncomeStatementNode'),
  IncomeStatement: obj(
    {
      periods: arrayOf(period),
      reporting_currency: str,
      sections: arrayOf(
        obj({
          account_type: str,
          label: str,
          amounts: mapOf(atomsOrNull),
          children: arrayOf(ref('IncomeStatementNode')),
        }),
      ),
      summary: arrayOf(
        obj({
          account_kind: {
            enum: ['gross_profit', 'net_operating_income', 'net_other_income', 'net_income'],
          },
          label: str,
          amounts: mapOf(atomsOrNull),
        }),
      ),
      comparisons: arrayOf(ref('Comparison')),
      columns_by: str,
    },
    ['comparisons', 'columns_by'],
  ),
  TagList: obj({
    object: { const: 'list' },
    data: arrayOf(obj({ key: str, lines: int, values: arrayOf(obj({ value: str, lines: int })) })),
  }),
  CashFlowStatement: obj(
    {
      periods: arrayOf(period),
      reporting_currency: str,
      sections: arrayOf(
        obj({
          kind: { enum: ['operating', 'investing', 'financing'] },
          label: str,
          rows: arrayOf(
            obj(
              {
                kind: { enum: ['net_income', 'account'] },
                label: str,
                account_id: str,
                account_number: strOrNull,
                name: str,
                amounts: mapOf(atomsOrNull),
              },
              ['label', 'account_id', 'account_number', 'name'],
            ),
          ),
          total: obj({ label: str, amounts: mapOf(atomsOrNull) }),
        }),
      ),
      summary: arrayOf(
        obj({
          kind: { enum: ['net_change_in_cash', 'cash_beginning', 'cash_end'] },
          label: str,
          amounts: mapOf(atomsOrNull),
        }),
      ),
      comparisons: arrayOf(ref('Comparison')),
    },
    ['comparisons'],
  ),
  TrialBalance: obj(
    {
      as_of: date,
      reporting_currency: str,
      fiscal_year_start: date,
      columns: arrayOf(str),
      rows: arrayOf({
        type: 'object',
        properties: {
          account_id: strOrNull,
          account_number: strOrNull,
          name: str,
          account_type: strOrNull,
          account_kind: { enum: ['regular', 'retained_earnings'] },
        },
        required: ['account_id', 'account_number', 'name', 'account_type', 'account_kind'],
        // The amount columns are those `columns` names: debit and credit, or the worksheet's six.
        additionalProperties: atomsOrNull,
      }),
      totals: mapOf(int),
      columns_by: str,
    },
    ['columns_by'],
  ),
  GeneralLedgerLine: glLine,
  GeneralLedgerPage: obj({
    object: { const: 'general_ledger_page' },
    start_date: date,
    end_date: date,
    accounts: arrayOf(glBlock),
    next_cursor: strOrNull,
  }),
  GlAccountList: obj({ object: { const: 'list' }, data: arrayOf(glAccount) }),
  AuditEventPage: obj({
    object: { const: 'list' },
    data: arrayOf(
      obj({
        seq: int,
        at: str,
        actor: str,
        via: str,
        action: str,
        objects: arrayOf(str),
        summary: str,
        entries: int,
        record: strOrNull,
        amended: { type: ['object', 'null'] },
        hash: str,
      }),
    ),
    next_cursor: strOrNull,
  }),
  CounterpartyList: obj({
    object: { const: 'list' },
    data: arrayOf(
      obj({
        id: str,
        object: { const: 'counterparty' },
        counterparty_type: { enum: ['customer', 'vendor', 'employee'] },
        external_id: str,
        name: str,
        is_active: bool,
        created_at: str,
        updated_at: str,
      }),
    ),
  }),
  Entity: obj(
    {
      object: { const: 'entity' },
      id: str,
      name: str,
      currency: str,
      books_start: { type: ['string', 'null'], format: 'date' },
      fiscal_year_start_month: { type: 'integer', minimum: 1, maximum: 12 },
      lock_date: { type: ['string', 'null'], format: 'date' },
      fx_realized: { ...str, description: 'the realised exchange gain/loss account, when set' },
      fx_unrealized: { ...str, description: 'the unrealised exchange gain/loss account, when set' },
      account_count: int,
      entry_count: int,
    },
    ['fx_realized', 'fx_unrealized'],
  ),
};
