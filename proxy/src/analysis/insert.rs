//! INSERT (and REPLACE): which parameters or literals are sealed, under which
//! column, at which id. The id must be in the statement (a parameter or a
//! non-zero literal): an id the server assigns is unknown when the values are
//! sealed, so such an insert into a table with a randomized column is refused.

use sqlparser::ast::{Insert, SetExpr, TableObject};

use super::expr::{Lit, Sealing, ValueRef, value_ref};
use super::plan::{IdSource, Plan, WritePlan};
use super::{Bound, ColRef, EncryptionSchema, Refusal, Source, last_name};

/// The plan of an INSERT.
pub(crate) fn analyze(
    schema: &EncryptionSchema,
    source: &Source<'_>,
    insert: &Insert,
) -> Result<Plan, Refusal> {
    let TableObject::TableName(name) = &insert.table else {
        return Ok(Plan::PassThrough);
    };
    let Some(table) = last_name(name) else {
        return Ok(Plan::PassThrough);
    };
    let Some(rule) = schema.table(table) else {
        return match insert.source.as_ref().map(|q| q.to_string()) {
            Some(text) if source.involved(schema, &text).is_some() => {
                Err(Refusal::unsupported("INSERT ... SELECT", table))
            }
            _ => Ok(Plan::PassThrough),
        };
    };
    let bound = Bound {
        table: table.to_string(),
        alias: None,
        rule,
    };
    if insert.on.is_some() || insert.returning.is_some() || !insert.assignments.is_empty() {
        return Err(Refusal::unsupported_fix(
            "INSERT ... SET, ON DUPLICATE KEY UPDATE or RETURNING",
            table,
            "use INSERT (columns) VALUES (...)",
        ));
    }
    if insert.columns.is_empty() {
        return Err(Refusal::unsupported_fix(
            "INSERT without a column list",
            table,
            "name the columns",
        ));
    }
    let Some(query) = &insert.source else {
        return Err(Refusal::unsupported("INSERT without VALUES", table));
    };
    let SetExpr::Values(values) = &*query.body else {
        return Err(Refusal::unsupported("INSERT ... SELECT", table));
    };
    let kinds: Vec<ColRef<'_>> = insert
        .columns
        .iter()
        .map(|c| bound.classify(&c.value))
        .collect();
    let id_at = kinds.iter().position(|k| matches!(k, ColRef::Id));
    let randomized = kinds.iter().any(
        |k| matches!(k, ColRef::Encrypted(r) if r.mode == encbench_columns::ColumnMode::Randomized),
    );
    let mut sealing = Sealing::new(source);
    for row in &values.rows {
        if row.len() != kinds.len() {
            return Err(Refusal::unsupported_fix(
                "a VALUES row whose length differs from the column list",
                table,
                "give one value per column",
            ));
        }
        let id = match id_at {
            None => None,
            Some(i) => match value_ref(source, &row[i]) {
                Some(ValueRef::Param(p)) => Some(IdSource::Param(p)),
                Some(ValueRef::Literal(_, Lit::Number(n))) => match n.parse::<i64>() {
                    Ok(0) => None,
                    Ok(id) => Some(IdSource::Literal(id)),
                    Err(_) => None,
                },
                _ => None,
            },
        };
        if randomized && id.is_none() {
            return Err(Refusal::ServerAssignedId {
                table: table.to_string(),
            });
        }
        for (value, kind) in row.iter().zip(&kinds) {
            if let ColRef::Encrypted(rule) = kind {
                sealing.seal(&bound, rule, value, id, "INSERT")?;
            }
        }
    }
    if sealing.seals_none() {
        return Ok(Plan::PassThrough);
    }
    let (sql, seals) = sealing.finish();
    Ok(Plan::Write(WritePlan { sql, seals }))
}
