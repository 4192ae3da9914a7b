//! Statement analysis: what the proxy does with a statement over encrypted
//! columns, decided once from its SQL (at COM_STMT_PREPARE, or per COM_QUERY
//! text) with sqlparser's MySQL dialect, and run per execution without parsing
//! again ([`Plan`]).
//!
//! - [`schema`]: the configuration (tables, encrypted columns, modes, id column);
//! - [`analyze`]: SQL in, [`Plan`] or [`Refusal`] out; a statement that names
//!   no configured table is a [`Plan::PassThrough`] found without parsing;
//! - `select`, `insert`, `update` (UPDATE and DELETE), `ddl`: one file per
//!   statement kind; `expr`: WHERE clauses and column references.
//!
//! Every statement sysbench 1.0.20's OLTP scripts send gets a plan (the
//! tests list them); what cannot be run without returning ciphertext or a
//! wrong answer is refused ([`Refusal`]), never passed.

mod ddl;
mod expr;
mod insert;
pub mod plan;
pub mod refusal;
pub mod schema;
mod select;
mod update;

use std::sync::Arc;

use encbench_columns::TableColumn;
use sqlparser::ast::{ObjectName, ObjectNamePart, Statement};
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Location, Span, Token, Tokenizer};

pub use plan::{
    Delta, EncryptedColumn, IdSource, Plaintext, Plan, PostProcess, ReadModifyWritePlan,
    ResultColumn, Seal, SealTarget, SelectPlan, SortKey, SqlTemplate, SumColumn, WritePlan,
};
pub use refusal::Refusal;
pub use schema::{ColumnRule, EncryptionSchema, PlainKind, TablePattern, TableRule};

/// The plan of `sql` (one statement, or several separated by `;` as a
/// COM_QUERY with CLIENT_MULTI_STATEMENTS may hold) under `schema`.
///
/// Parameters (`?`) are numbered from 0 in the order they appear in the text,
/// as COM_STMT_EXECUTE binds them.
///
/// # Errors
/// A [`Refusal`] when the statement involves an encrypted column in a way the
/// proxy cannot run correctly, or names a table with encrypted columns and does
/// not parse. Never for a statement that names no such table.
pub fn analyze(schema: &EncryptionSchema, sql: &str) -> Result<Plan, Refusal> {
    if !schema.mentions(sql) {
        return Ok(Plan::PassThrough);
    }
    let dialect = MySqlDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .map_err(|e| Refusal::Parse {
            table: "a table with encrypted columns".to_string(),
            reason: format!("bad token at {}", e.location),
        })?;
    // A table is named by an identifier: a mention inside a string or a
    // comment only is no use of the table.
    let Some(table) = tokens.iter().find_map(|t| match &t.token {
        Token::Word(w) if schema.table(&w.value).is_some() => Some(w.value.clone()),
        _ => None,
    }) else {
        return Ok(Plan::PassThrough);
    };
    let params: Vec<Location> = tokens
        .iter()
        .filter(|t| matches!(&t.token, Token::Placeholder(p) if p == "?"))
        .map(|t| t.span.start)
        .collect();
    let statements = Parser::new(&dialect)
        .with_tokens_with_locations(tokens)
        .parse_statements()
        .map_err(|e| Refusal::Parse {
            table: table.clone(),
            reason: parser_position(&e.to_string()),
        })?;
    let source = Source::new(sql, params, table);
    let mut plans = Vec::with_capacity(statements.len());
    for statement in &statements {
        plans.push(analyze_statement(schema, &source, statement)?);
    }
    match plans.len() {
        0 => Ok(Plan::PassThrough),
        1 => Ok(plans.pop().unwrap_or(Plan::PassThrough)),
        _ if plans.iter().all(|p| *p == Plan::PassThrough) => Ok(Plan::PassThrough),
        _ => Err(Refusal::unsupported_fix(
            "several statements in one query",
            source.table.clone(),
            "send them one at a time",
        )),
    }
}

fn analyze_statement(
    schema: &EncryptionSchema,
    source: &Source<'_>,
    statement: &Statement,
) -> Result<Plan, Refusal> {
    match statement {
        Statement::Query(query) => select::analyze(schema, source, query),
        Statement::Insert(insert) => insert::analyze(schema, source, insert),
        Statement::Update {
            table,
            assignments,
            from,
            selection,
            returning,
            limit,
            ..
        } => update::analyze_update(
            schema,
            source,
            update::Update {
                table,
                assignments,
                from: from.is_some(),
                selection: selection.as_ref(),
                returning: returning.is_some(),
                limit: limit.is_some(),
            },
        ),
        Statement::Delete(delete) => update::analyze_delete(schema, source, delete),
        Statement::CreateTable(create) => ddl::create_table(schema, create),
        // Names, indexes and transaction control: no value crosses.
        Statement::Drop { .. }
        | Statement::CreateIndex(_)
        | Statement::Truncate { .. }
        | Statement::Analyze { .. }
        | Statement::StartTransaction { .. }
        | Statement::Commit { .. }
        | Statement::Rollback { .. }
        | Statement::Set(_)
        | Statement::ShowTables { .. }
        | Statement::ShowColumns { .. }
        | Statement::ShowCreate { .. }
        | Statement::ShowVariables { .. }
        | Statement::ShowStatus { .. }
        | Statement::LockTables { .. }
        | Statement::UnlockTables
        | Statement::Use(_)
        | Statement::ExplainTable { .. }
        | Statement::OptimizeTable { .. }
        // A plan, not rows (EXPLAIN ANALYZE runs the statement: analyzed below).
        | Statement::Explain { analyze: false, .. } => Ok(Plan::PassThrough),
        other => {
            let text = other.to_string();
            match source.involved(schema, &text) {
                None => Ok(Plan::PassThrough),
                Some(table) => Err(Refusal::unsupported(statement_kind(&text), table)),
            }
        }
    }
}

/// The leading keywords of a statement (`ALTER TABLE`, `CREATE VIEW`...), for
/// a refusal: at most two words of letters only (never a name or a value).
fn statement_kind(text: &str) -> String {
    text.split(' ')
        .take(2)
        .take_while(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_uppercase()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The parser's position only (its message may quote a token, that is a value).
fn parser_position(message: &str) -> String {
    match message.find("at Line:") {
        Some(at) => format!("syntax error {}", &message[at..]),
        None => "syntax not understood".to_string(),
    }
}

/// The statement's text, its parameters' positions and its line starts:
/// what turns a span into a parameter index or a byte range.
pub(crate) struct Source<'a> {
    sql: &'a str,
    /// The first configured table the text names (an identifier), for messages.
    table: String,
    params: Vec<Location>,
    line_starts: Vec<usize>,
    /// Whether every character is one byte (columns are then byte offsets).
    ascii: bool,
    /// The last (line, column, byte offset) `offset` found, 0-based.
    cursor: std::cell::Cell<Option<(usize, usize, usize)>>,
}

impl<'a> Source<'a> {
    fn new(sql: &'a str, params: Vec<Location>, table: String) -> Source<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(sql.match_indices('\n').map(|(i, _)| i + 1));
        Source {
            sql,
            table,
            params,
            line_starts,
            ascii: sql.is_ascii(),
            cursor: std::cell::Cell::new(None),
        }
    }

    /// The 0-based index of the parameter starting at `span` (`params` is in
    /// text order: a binary search).
    pub(crate) fn param_index(&self, span: Span) -> Option<usize> {
        let key = |l: &Location| (l.line, l.column);
        self.params
            .binary_search_by_key(&key(&span.start), key)
            .ok()
    }

    /// Number of parameters in the whole text.
    pub(crate) fn param_count(&self) -> usize {
        self.params.len()
    }

    /// The byte offset of a location (1-based line and column in characters).
    /// O(1) for an ASCII text; otherwise a scan of the line from the last
    /// location asked for when it lies before this one (literals are asked
    /// for in text order), so a 512 KiB one-line INSERT stays linear.
    pub(crate) fn offset(&self, location: Location) -> Option<usize> {
        let line = usize::try_from(location.line).ok()?.checked_sub(1)?;
        let column = usize::try_from(location.column).ok()?.checked_sub(1)?;
        let start = *self.line_starts.get(line)?;
        if self.ascii {
            let end = self
                .line_starts
                .get(line + 1)
                .map_or(self.sql.len(), |&e| e);
            return (start + column <= end).then_some(start + column);
        }
        let (mut col, mut at) = (0, start);
        if let Some((l, c, b)) = self.cursor.get()
            && l == line
            && c <= column
        {
            (col, at) = (c, b);
        }
        let mut chars = self.sql.get(at..)?.char_indices();
        while col < column {
            let (_, ch) = chars.next()?;
            at += ch.len_utf8();
            col += 1;
        }
        self.cursor.set(Some((line, col, at)));
        Some(at)
    }

    /// The text.
    pub(crate) fn sql(&self) -> &'a str {
        self.sql
    }

    /// The table to name in a refusal when `text` (a part of the statement,
    /// printed) may involve a configured table; `None` when it certainly does
    /// not. The name comes from the statement's identifiers, never from the
    /// text of a literal.
    pub(crate) fn involved(&self, schema: &EncryptionSchema, text: &str) -> Option<String> {
        expr::words(text)
            .any(|w| schema.table(w).is_some())
            .then(|| self.table.clone())
    }
}

/// The last part of a possibly qualified name (`db.sbtest1` -> `sbtest1`).
pub(crate) fn last_name(name: &ObjectName) -> Option<&str> {
    match name.0.last()? {
        ObjectNamePart::Identifier(ident) => Some(ident.value.as_str()),
        ObjectNamePart::Function(_) => None,
    }
}

/// A configured table as a statement names it.
pub(crate) struct Bound<'s> {
    /// The table's name as written (unquoted): what the AAD binds.
    pub(crate) table: String,
    /// Its alias, if any.
    pub(crate) alias: Option<String>,
    /// Its rule.
    pub(crate) rule: &'s TableRule,
}

/// What a column reference is.
pub(crate) enum ColRef<'r> {
    Encrypted(&'r ColumnRule),
    Id,
    Plain,
}

impl<'s> Bound<'s> {
    /// The encrypted column `name` of this table, ready to seal and open with.
    pub(crate) fn column(&self, rule: &ColumnRule) -> Result<Arc<EncryptedColumn>, Refusal> {
        let aad = TableColumn::new(self.table.clone(), rule.name.clone())
            .map_err(|_| Refusal::unsupported("a table name over 255 bytes", self.table.clone()))?;
        Ok(Arc::new(EncryptedColumn {
            aad,
            mode: rule.mode,
            kind: rule.kind,
        }))
    }

    /// `table.column`, for messages.
    pub(crate) fn qualified(&self, rule: &ColumnRule) -> String {
        format!("{}.{}", self.table, rule.name)
    }

    /// Whether `qualifier` names this table (by name or alias).
    fn names(&self, qualifier: &str) -> bool {
        self.table.eq_ignore_ascii_case(qualifier)
            || self
                .alias
                .as_deref()
                .is_some_and(|a| a.eq_ignore_ascii_case(qualifier))
    }

    /// What the column reference `expr` is, or `None` when `expr` is not a
    /// column reference of this table.
    pub(crate) fn col_ref(&self, expr: &sqlparser::ast::Expr) -> Option<ColRef<'s>> {
        use sqlparser::ast::Expr;
        let name = match expr {
            Expr::Identifier(ident) => &ident.value,
            Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
                let qualifier = &parts[parts.len() - 2].value;
                if !self.names(qualifier) {
                    return None;
                }
                &parts[parts.len() - 1].value
            }
            Expr::Nested(inner) => return self.col_ref(inner),
            _ => return None,
        };
        Some(self.classify(name))
    }

    /// What the column `name` of this table is.
    pub(crate) fn classify(&self, name: &str) -> ColRef<'s> {
        if let Some(rule) = self.rule.column(name) {
            ColRef::Encrypted(rule)
        } else if self.rule.is_id(name) {
            ColRef::Id
        } else {
            ColRef::Plain
        }
    }
}
