//! SELECT: which result columns are encrypted, where each row's id comes
//! from, and what moves from the server to the proxy (ORDER BY, DISTINCT, SUM).
//!
//! The id a randomized column is opened with: taken from the result when the
//! projection holds `id`; else from the WHERE's top-level `id = ?` (or an
//! integer literal), which pins every row to that id: the statement is sent as
//! the client wrote it and no byte is added per row (sysbench's point select);
//! else `id` is appended to the projection as a hidden column the proxy strips.

use encbench_columns::ColumnMode;
use sqlparser::ast::{
    Distinct, DuplicateTreatment, Expr, FunctionArg, FunctionArgExpr, FunctionArguments,
    GroupByExpr, Ident, OrderByKind, Query, Select, SelectItem, SetExpr, Spanned, TableFactor,
};

use super::expr::{Sealing, check_where, encrypted_ref, id_from_where, no_encrypted};
use super::plan::{
    IdSource, Plan, PostProcess, ResultColumn, SelectPlan, SortKey, SqlTemplate, SumColumn,
};
use super::{Bound, ColRef, ColumnRule, EncryptionSchema, PlainKind, Refusal, Source, last_name};

/// The plan of a query.
pub(crate) fn analyze(
    schema: &EncryptionSchema,
    source: &Source<'_>,
    query: &Query,
) -> Result<Plan, Refusal> {
    let involved = || source.involved(schema, &query.to_string());
    let SetExpr::Select(select) = &*query.body else {
        return refuse_if(involved(), "UNION, VALUES or a parenthesized query");
    };
    let Some(bound) = single_table(schema, select) else {
        return refuse_if(involved(), "a join, derived table or subquery");
    };
    if query.with.is_some()
        || query.fetch.is_some()
        || query.for_clause.is_some()
        || query.settings.is_some()
        || query.format_clause.is_some()
        || !query.pipe_operators.is_empty()
        || select.into.is_some()
        || select.top.is_some()
        || select.prewhere.is_some()
        || select.qualify.is_some()
        || select.connect_by.is_some()
        || !select.lateral_views.is_empty()
        || !select.cluster_by.is_empty()
        || !select.distribute_by.is_empty()
        || !select.sort_by.is_empty()
        || !select.named_window.is_empty()
    {
        return Err(Refusal::unsupported(
            "this SELECT clause",
            bound.table.clone(),
        ));
    }
    // Subqueries elsewhere than the WHERE (which check_where handles).
    let mut sealing = Sealing::new(source);
    if let Some(selection) = &select.selection {
        check_where(&bound, selection, &mut sealing)?;
    }
    if let Some(having) = &select.having {
        no_encrypted(&bound, having, "HAVING")?;
    }
    match &select.group_by {
        GroupByExpr::Expressions(exprs, _) => {
            for e in exprs {
                match encrypted_ref(&bound, e) {
                    Some(rule) if rule.mode == ColumnMode::Deterministic => {}
                    Some(rule) => {
                        return Err(Refusal::Function {
                            construct: "GROUP BY".to_string(),
                            column: bound.qualified(rule),
                        });
                    }
                    None => no_encrypted(&bound, e, "GROUP BY")?,
                }
            }
        }
        GroupByExpr::All(_) => {
            return Err(Refusal::unsupported("GROUP BY ALL", bound.table.clone()));
        }
    }

    // The projection.
    let mut items: Vec<Item<'_>> = Vec::with_capacity(select.projection.len());
    for item in &select.projection {
        items.push(projection_item(&bound, source, item)?);
    }
    let has_limit = query.limit_clause.is_some();
    let sums = items.iter().filter(|i| matches!(i, Item::Sum(..))).count();
    if sums > 0 {
        if sums != items.len() {
            return Err(Refusal::unsupported_fix(
                "SUM over an encrypted column beside other select items",
                bound.table.clone(),
                "select the sums alone",
            ));
        }
        if select.distinct.is_some()
            || query.order_by.is_some()
            || has_limit
            || !matches!(&select.group_by, GroupByExpr::Expressions(e, _) if e.is_empty())
            || select.having.is_some()
        {
            return Err(Refusal::unsupported_fix(
                "SUM over an encrypted column with GROUP BY, HAVING, DISTINCT, ORDER BY or LIMIT",
                bound.table.clone(),
                "select the sum alone",
            ));
        }
    }

    // Encrypted result columns at their projection positions.
    let mut columns = Vec::new();
    let mut id_position = None;
    for (position, item) in items.iter().enumerate() {
        match item {
            Item::Encrypted(rule, _) | Item::Sum(rule, _) => columns.push(ResultColumn {
                position,
                column: bound.column(rule)?,
            }),
            Item::Id => id_position = id_position.or(Some(position)),
            Item::Other(_) => {}
        }
    }
    let grouped = !matches!(&select.group_by, GroupByExpr::Expressions(e, _) if e.is_empty());
    if grouped && let Some(c) = columns.iter().find(|c| c.column.needs_id()) {
        // A grouped row's id and value may come from different rows.
        return Err(Refusal::unsupported_fix(
            format!("a grouped SELECT of randomized column {}", c.column.aad),
            bound.table.clone(),
            "select it without GROUP BY, or encrypt it deterministically",
        ));
    }
    let mut hidden: Vec<Expr> = Vec::new();

    // ORDER BY and DISTINCT on encrypted columns move to the proxy.
    let mut keys = Vec::new();
    let mut server_order = true;
    if let Some(order_by) = &query.order_by {
        let OrderByKind::Expressions(exprs) = &order_by.kind else {
            return Err(Refusal::unsupported("ORDER BY ALL", bound.table.clone()));
        };
        let resolved: Vec<_> = exprs
            .iter()
            .map(|o| (o, order_key(&bound, source, &items, &o.expr)))
            .collect();
        let encrypted = resolved.iter().find_map(|(_, k)| match k {
            Key::Encrypted(rule, _) => Some(*rule),
            _ => None,
        });
        if let Some(rule) = encrypted {
            if has_limit {
                return Err(Refusal::SortWithLimit {
                    construct: "ORDER BY".to_string(),
                    column: bound.qualified(rule),
                });
            }
            server_order = false;
            for (o, key) in &resolved {
                let Key::Encrypted(rule, position) = key else {
                    return Err(Refusal::unsupported_fix(
                        format!(
                            "ORDER BY mixing encrypted column {} with a plaintext key",
                            bound.qualified(rule)
                        ),
                        bound.table.clone(),
                        "order by encrypted columns only",
                    ));
                };
                if o.with_fill.is_some() || o.options.nulls_first.is_some() {
                    return Err(Refusal::unsupported(
                        "ORDER BY ... NULLS or WITH FILL",
                        bound.table.clone(),
                    ));
                }
                let position = match position {
                    Some(p) => *p,
                    None => {
                        if select.distinct.is_some() {
                            return Err(Refusal::unsupported_fix(
                                format!(
                                    "DISTINCT with ORDER BY {} not in the select list",
                                    bound.qualified(rule)
                                ),
                                bound.table.clone(),
                                "select the column",
                            ));
                        }
                        hidden.push(Expr::Identifier(Ident::new(rule.name.clone())));
                        let p = items.len() + hidden.len() - 1;
                        columns.push(ResultColumn {
                            position: p,
                            column: bound.column(rule)?,
                        });
                        p
                    }
                };
                keys.push(SortKey {
                    position,
                    descending: o.options.asc == Some(false),
                    kind: rule.kind,
                });
            }
        } else {
            for (o, _) in &resolved {
                no_encrypted(&bound, &o.expr, "ORDER BY")?;
            }
        }
    }
    let mut distinct = false;
    match &select.distinct {
        Some(Distinct::On(_)) => {
            return Err(Refusal::unsupported("DISTINCT ON", bound.table.clone()));
        }
        Some(Distinct::Distinct) if !columns.is_empty() => {
            if has_limit {
                return Err(Refusal::SortWithLimit {
                    construct: "DISTINCT".to_string(),
                    column: columns[0].column.aad.to_string(),
                });
            }
            distinct = true;
        }
        _ => {}
    }

    if columns.is_empty() && sealing.seals_none() {
        return Ok(Plan::PassThrough);
    }

    // The id of each row, when a randomized column is opened.
    let id = if columns.iter().any(|c| c.column.needs_id()) {
        Some(match id_position {
            Some(p) => IdSource::Column(p),
            None => match select
                .selection
                .as_ref()
                .and_then(|w| id_from_where(&bound, source, w))
            {
                Some(id) => id,
                None => {
                    hidden.push(Expr::Identifier(Ident::new(bound.rule.id_column.clone())));
                    IdSource::Column(items.len() + hidden.len() - 1)
                }
            },
        })
    } else {
        None
    };

    let post = if sums > 0 {
        PostProcess::Sum(
            items
                .iter()
                .enumerate()
                .filter_map(|(position, i)| match i {
                    Item::Sum(_, name) => Some(SumColumn {
                        name: name.clone(),
                        position,
                    }),
                    _ => None,
                })
                .collect(),
        )
    } else if !server_order || distinct {
        PostProcess::Sort { keys, distinct }
    } else {
        PostProcess::None
    };

    let rewrite = !hidden.is_empty() || !server_order || distinct || sums > 0;
    let (sql, seals) = if rewrite {
        if sealing.has_literals() || source.sql().contains('\\') {
            return Err(Refusal::unsupported_fix(
                "a literal compared with a deterministic column, or a backslash escape, in a SELECT the proxy rewrites",
                bound.table.clone(),
                "use a parameter",
            ));
        }
        let mut query = query.clone();
        let SetExpr::Select(select) = &mut *query.body else {
            unreachable!("matched above");
        };
        let select: &mut Select = select;
        for (item, analyzed) in select.projection.iter_mut().zip(&items) {
            if let Item::Sum(rule, _) = analyzed {
                *item = SelectItem::UnnamedExpr(Expr::Identifier(Ident::new(rule.name.clone())));
            }
        }
        select
            .projection
            .extend(hidden.iter().cloned().map(SelectItem::UnnamedExpr));
        if distinct {
            select.distinct = None;
        }
        if !server_order {
            query.order_by = None;
        }
        let (_, seals) = sealing.finish();
        (Some(SqlTemplate::plain(query.to_string())), seals)
    } else {
        sealing.finish()
    };
    Ok(Plan::Select(SelectPlan {
        sql,
        seals,
        columns,
        id,
        hidden: hidden.len(),
        post,
    }))
}

fn refuse_if(table: Option<String>, construct: &str) -> Result<Plan, Refusal> {
    match table {
        None => Ok(Plan::PassThrough),
        Some(table) => Err(Refusal::unsupported(construct, table)),
    }
}

/// The configured table of a SELECT over exactly one table, no join.
fn single_table<'s>(schema: &'s EncryptionSchema, select: &Select) -> Option<Bound<'s>> {
    let [from] = select.from.as_slice() else {
        return None;
    };
    if !from.joins.is_empty() {
        return None;
    }
    let TableFactor::Table {
        name,
        alias,
        args: None,
        ..
    } = &from.relation
    else {
        return None;
    };
    let table = last_name(name)?;
    Some(Bound {
        rule: schema.table(table)?,
        table: table.to_string(),
        alias: alias.as_ref().map(|a| a.name.value.clone()),
    })
}

/// One projection item.
enum Item<'s> {
    /// An encrypted column, with its alias.
    Encrypted(&'s ColumnRule, Option<String>),
    /// `SUM(col)` of an encrypted integer column, with the reply's column name.
    Sum(&'s ColumnRule, String),
    /// The id column.
    Id,
    /// Anything without an encrypted column, with its alias.
    Other(Option<String>),
}

/// A call as the client wrote it (`sum( k )`): the name MySQL gives its
/// result column. sqlparser's span of a call ends at its last argument.
fn call_text(source: &Source<'_>, f: &sqlparser::ast::Function) -> Option<String> {
    let span = f.span();
    let start = source.offset(span.start)?;
    let end = source.offset(span.end)?;
    let sql = source.sql();
    let rest = sql.get(end..)?;
    let close = end + (rest.len() - rest.trim_start().len());
    (sql.get(close..close + 1)? == ")").then(|| sql[start..=close].to_string())
}

fn projection_item<'s>(
    bound: &Bound<'s>,
    source: &Source<'_>,
    item: &SelectItem,
) -> Result<Item<'s>, Refusal> {
    let (expr, alias) = match item {
        SelectItem::UnnamedExpr(e) => (e, None),
        SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.value.clone())),
        SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => {
            return Err(Refusal::unsupported_fix(
                "SELECT *",
                bound.table.clone(),
                "name the columns",
            ));
        }
    };
    match bound.col_ref(expr) {
        Some(ColRef::Encrypted(rule)) => return Ok(Item::Encrypted(rule, alias)),
        Some(ColRef::Id) => return Ok(Item::Id),
        Some(ColRef::Plain) => return Ok(Item::Other(alias)),
        None => {}
    }
    if let Expr::Function(f) = expr {
        let name = last_name(&f.name).unwrap_or_default().to_ascii_uppercase();
        if let FunctionArguments::List(list) = &f.args {
            let single = match list.args.as_slice() {
                [FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))] => encrypted_ref(bound, arg),
                _ => None,
            };
            let distinct = list.duplicate_treatment == Some(DuplicateTreatment::Distinct);
            if let Some(rule) = single {
                let plain_call = list.clauses.is_empty() && f.filter.is_none() && f.over.is_none();
                match name.as_str() {
                    "SUM" if plain_call && !distinct && rule.kind == PlainKind::Integer => {
                        let name = alias
                            .or_else(|| call_text(source, f))
                            .unwrap_or_else(|| expr.to_string());
                        return Ok(Item::Sum(rule, name));
                    }
                    "COUNT"
                        if plain_call && (!distinct || rule.mode == ColumnMode::Deterministic) =>
                    {
                        return Ok(Item::Other(alias));
                    }
                    "SUM" | "COUNT" | "MIN" | "MAX" | "AVG" | "GROUP_CONCAT" | "STD" | "STDDEV"
                    | "STDDEV_POP" | "STDDEV_SAMP" | "VARIANCE" | "VAR_POP" | "VAR_SAMP"
                    | "BIT_AND" | "BIT_OR" | "BIT_XOR" | "JSON_ARRAYAGG" | "JSON_OBJECTAGG" => {
                        let function = if distinct {
                            format!("{name}(DISTINCT)")
                        } else {
                            name
                        };
                        return Err(Refusal::Aggregate {
                            function,
                            column: bound.qualified(rule),
                        });
                    }
                    _ => {}
                }
            }
        }
        no_encrypted(bound, expr, &format!("function {name}"))?;
        return Ok(Item::Other(alias));
    }
    no_encrypted(bound, expr, "an expression")?;
    Ok(Item::Other(alias))
}

/// What an ORDER BY key is.
enum Key<'s> {
    /// An encrypted column, at its projection position if it is selected.
    Encrypted(&'s ColumnRule, Option<usize>),
    /// Anything else.
    Other,
}

fn order_key<'s>(
    bound: &Bound<'s>,
    source: &Source<'_>,
    items: &[Item<'s>],
    expr: &Expr,
) -> Key<'s> {
    // `ORDER BY 2`: a projection position (1-based).
    if let Some(n) = super::expr::int_literal(source, expr) {
        return match usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| items.get(i).map(|it| (i, it)))
        {
            Some((i, Item::Encrypted(rule, _))) => Key::Encrypted(rule, Some(i)),
            _ => Key::Other,
        };
    }
    // A select alias (MySQL resolves ORDER BY names against aliases first).
    if let Expr::Identifier(ident) = expr {
        for (i, item) in items.iter().enumerate() {
            match item {
                Item::Encrypted(rule, Some(alias)) if alias.eq_ignore_ascii_case(&ident.value) => {
                    return Key::Encrypted(rule, Some(i));
                }
                Item::Other(Some(alias)) if alias.eq_ignore_ascii_case(&ident.value) => {
                    return Key::Other;
                }
                _ => {}
            }
        }
    }
    match encrypted_ref(bound, expr) {
        Some(rule) => {
            let position = items
                .iter()
                .position(|it| matches!(it, Item::Encrypted(r, _) if std::ptr::eq(*r, rule)));
            Key::Encrypted(rule, position)
        }
        None => Key::Other,
    }
}
