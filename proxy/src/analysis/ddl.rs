//! CREATE TABLE of a configured table: its encrypted columns become
//! `VARBINARY(longest plaintext + envelope overhead)` without a DEFAULT (an
//! envelope is longer than the plaintext, CHAR would strip trailing bytes, and
//! a plaintext default is no envelope), as oltp's own schema does. Every other
//! DDL passes: an index on an encrypted column is an index on bytes.

use encbench_columns::ColumnMode;
use sqlparser::ast::{BinaryLength, ColumnOption, CreateTable, DataType};

use super::plan::Plan;
use super::{EncryptionSchema, Refusal, last_name};

/// The plan of a CREATE TABLE.
pub(crate) fn create_table(
    schema: &EncryptionSchema,
    create: &CreateTable,
) -> Result<Plan, Refusal> {
    let Some(table) = last_name(&create.name) else {
        return Ok(Plan::PassThrough);
    };
    let Some(rule) = schema.table(table) else {
        return Ok(Plan::PassThrough);
    };
    if create.query.is_some() || create.like.is_some() || create.clone.is_some() {
        return Err(Refusal::unsupported_fix(
            "CREATE TABLE ... AS SELECT, LIKE or CLONE",
            table,
            "declare the columns",
        ));
    }
    let mut create = create.clone();
    let mut changed = false;
    for column in &mut create.columns {
        let Some(encrypted) = rule.column(&column.name.value) else {
            continue;
        };
        let overhead = match encrypted.mode {
            ColumnMode::Deterministic => schema.deterministic_overhead,
            _ => schema.randomized_overhead,
        };
        column.data_type = DataType::Varbinary(Some(BinaryLength::IntegerLength {
            length: (encrypted.max_len + overhead) as u64,
        }));
        column
            .options
            .retain(|o| !matches!(o.option, ColumnOption::Default(_)));
        changed = true;
    }
    Ok(if changed {
        Plan::Rewrite(create.to_string())
    } else {
        Plan::PassThrough
    })
}
