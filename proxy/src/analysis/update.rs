//! UPDATE and DELETE: the WHERE is checked as a SELECT's (deterministic
//! equality sealed, other uses of encrypted columns refused); `SET col = ?`
//! seals the new value at the row's id from `WHERE id = ?`; `SET k = k + N`
//! on an encrypted integer becomes a read-modify-write the proxy runs.

use sqlparser::ast::{
    Assignment, AssignmentTarget, BinaryOperator, Delete, Expr, FromTable, TableFactor,
    TableWithJoins,
};

use super::expr::{
    Lit, Sealing, ValueRef, check_where, encrypted_ref, id_from_where, no_encrypted, value_ref,
};
use super::plan::{Delta, Plan, ReadModifyWritePlan, SqlTemplate, WritePlan};
use super::{Bound, ColRef, EncryptionSchema, Refusal, Source, last_name};

/// The parts of an UPDATE the analysis reads.
pub(crate) struct Update<'a> {
    pub(crate) table: &'a TableWithJoins,
    pub(crate) assignments: &'a [Assignment],
    pub(crate) from: bool,
    pub(crate) selection: Option<&'a Expr>,
    pub(crate) returning: bool,
    pub(crate) limit: bool,
}

fn bind<'s>(
    schema: &'s EncryptionSchema,
    table: &TableWithJoins,
) -> Result<Option<Bound<'s>>, String> {
    let TableFactor::Table { name, alias, .. } = &table.relation else {
        return Err(table.to_string());
    };
    let Some(t) = last_name(name) else {
        return Ok(None);
    };
    let Some(rule) = schema.table(t) else {
        return if table.joins.is_empty() {
            Ok(None)
        } else {
            Err(table.to_string())
        };
    };
    if !table.joins.is_empty() {
        return Err(t.to_string());
    }
    Ok(Some(Bound {
        table: t.to_string(),
        alias: alias.as_ref().map(|a| a.name.value.clone()),
        rule,
    }))
}

/// The plan of an UPDATE.
pub(crate) fn analyze_update(
    schema: &EncryptionSchema,
    source: &Source<'_>,
    update: Update<'_>,
) -> Result<Plan, Refusal> {
    let bound = match bind(schema, update.table) {
        Ok(Some(b)) => b,
        Ok(None) => return Ok(Plan::PassThrough),
        Err(text) => {
            return match source.involved(schema, &text) {
                Some(t) => Err(Refusal::unsupported("a multi-table UPDATE", t)),
                None => Ok(Plan::PassThrough),
            };
        }
    };
    let table = bound.table.clone();
    if update.from || update.returning {
        return Err(Refusal::unsupported("UPDATE ... FROM or RETURNING", table));
    }
    let mut sealing = Sealing::new(source);
    if let Some(selection) = update.selection {
        check_where(&bound, selection, &mut sealing)?;
    }
    let id = update
        .selection
        .and_then(|w| id_from_where(&bound, source, w));
    let mut rmw = None;
    let mut set_seals = Sealing::new(source);
    for assignment in update.assignments {
        let AssignmentTarget::ColumnName(name) = &assignment.target else {
            return Err(Refusal::unsupported("UPDATE of a column tuple", table));
        };
        let column = last_name(name).unwrap_or_default();
        match bound.classify(column) {
            ColRef::Id => {
                if bound.rule.any_randomized() {
                    return Err(Refusal::unsupported_fix(
                        format!("UPDATE of the id column {column}"),
                        table,
                        "randomized values are bound to the id: delete and insert the row instead",
                    ));
                }
                no_encrypted(&bound, &assignment.value, "SET")?;
            }
            ColRef::Plain => no_encrypted(&bound, &assignment.value, "SET")?,
            ColRef::Encrypted(rule) => {
                if let Some(delta) = increment(&bound, source, column, &assignment.value) {
                    if rule.kind != super::PlainKind::Integer
                        || update.assignments.len() != 1
                        || update.limit
                    {
                        return Err(Refusal::unsupported_fix(
                            format!(
                                "SET {column} = {column} + ... beside other assignments, with LIMIT, or on a non-integer column"
                            ),
                            table,
                            "update the column alone",
                        ));
                    }
                    rmw = Some((rule, delta));
                    continue;
                }
                if rule.mode == encbench_columns::ColumnMode::Randomized && id.is_none() {
                    return Err(Refusal::NeedsId {
                        construct: "UPDATE".to_string(),
                        column: bound.qualified(rule),
                        id: bound.rule.id_column.clone(),
                    });
                }
                set_seals.seal(&bound, rule, &assignment.value, id, "SET")?;
            }
        }
    }
    if let Some((rule, delta)) = rmw {
        if sealing.has_literals() {
            return Err(Refusal::unsupported_fix(
                "a literal compared with a deterministic column in SET k = k + ...",
                table,
                "use a parameter",
            ));
        }
        // The client's parameters the SELECT binds: every one after the SET clause's.
        let first_where_param = match delta {
            Delta::Param(p, _) => p + 1,
            Delta::Literal(_) => 0,
        };
        let where_text = update
            .selection
            .map(|w| format!(" WHERE {w}"))
            .unwrap_or_default();
        if source.sql().contains('\\') {
            return Err(Refusal::unsupported_fix(
                "a backslash escape in SET k = k + ...",
                table,
                "use a parameter",
            ));
        }
        let (_, seals) = sealing.finish();
        return Ok(Plan::ReadModifyWrite(ReadModifyWritePlan {
            select: SqlTemplate::plain(format!(
                "SELECT {id}, {col} FROM {table}{where_text} FOR UPDATE",
                id = bound.rule.id_column,
                col = rule.name,
            )),
            select_params: (first_where_param..source.param_count()).collect(),
            seals,
            column: bound.column(rule)?,
            delta,
            update: format!(
                "UPDATE {table} SET {col} = ? WHERE {id} = ?",
                col = rule.name,
                id = bound.rule.id_column,
            ),
        }));
    }
    // SET values come before WHERE values in the text: one sealing, SET first.
    let mut all = set_seals;
    all.absorb(sealing);
    if all.seals_none() {
        return Ok(Plan::PassThrough);
    }
    let (sql, seals) = all.finish();
    Ok(Plan::Write(WritePlan { sql, seals }))
}

/// `col + N`, `col - N`, `col + ?`, `N + col` for `col` itself.
fn increment(bound: &Bound<'_>, source: &Source<'_>, column: &str, value: &Expr) -> Option<Delta> {
    let Expr::BinaryOp { left, op, right } = value else {
        return None;
    };
    let is_col = |e: &Expr| matches!(encrypted_ref(bound, e), Some(r) if r.name.eq_ignore_ascii_case(column));
    let (other, negate) = match op {
        BinaryOperator::Plus if is_col(left) => (right, false),
        BinaryOperator::Plus if is_col(right) => (left, false),
        BinaryOperator::Minus if is_col(left) => (right, true),
        _ => return None,
    };
    match value_ref(source, other)? {
        ValueRef::Param(p) => Some(Delta::Param(p, negate)),
        ValueRef::Literal(_, Lit::Number(n)) => {
            let n: i64 = n.parse().ok()?;
            Some(Delta::Literal(if negate { n.checked_neg()? } else { n }))
        }
        _ => None,
    }
}

/// The plan of a DELETE.
pub(crate) fn analyze_delete(
    schema: &EncryptionSchema,
    source: &Source<'_>,
    delete: &Delete,
) -> Result<Plan, Refusal> {
    let tables = match &delete.from {
        FromTable::WithFromKeyword(t) | FromTable::WithoutKeyword(t) => t,
    };
    let [table] = tables.as_slice() else {
        return match source.involved(schema, &delete.to_string()) {
            Some(t) => Err(Refusal::unsupported("a multi-table DELETE", t)),
            None => Ok(Plan::PassThrough),
        };
    };
    let bound = match bind(schema, table) {
        Ok(Some(b)) => b,
        Ok(None) if delete.using.is_none() && delete.tables.is_empty() => {
            return Ok(Plan::PassThrough);
        }
        Ok(None) | Err(_) => {
            return match source.involved(schema, &delete.to_string()) {
                Some(t) => Err(Refusal::unsupported("a multi-table DELETE", t)),
                None => Ok(Plan::PassThrough),
            };
        }
    };
    if delete.using.is_some() || !delete.tables.is_empty() || delete.returning.is_some() {
        return Err(Refusal::unsupported(
            "a multi-table DELETE or RETURNING",
            bound.table.clone(),
        ));
    }
    let mut sealing = Sealing::new(source);
    if let Some(selection) = &delete.selection {
        check_where(&bound, selection, &mut sealing)?;
    }
    for o in &delete.order_by {
        if let Some(rule) = encrypted_ref(&bound, &o.expr) {
            return Err(Refusal::SortWithLimit {
                construct: "ORDER BY".to_string(),
                column: bound.qualified(rule),
            });
        }
        no_encrypted(&bound, &o.expr, "ORDER BY")?;
    }
    if sealing.seals_none() {
        return Ok(Plan::PassThrough);
    }
    let (sql, seals) = sealing.finish();
    Ok(Plan::Write(WritePlan { sql, seals }))
}
