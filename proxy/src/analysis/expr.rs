//! Expressions: values (parameters and literals), WHERE clauses over a
//! configured table, and the search for encrypted columns inside any expression.

use std::ops::Range;
use std::sync::Arc;

use encbench_columns::{ColumnMode, k_plaintext};
use sqlparser::ast::{
    BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, UnaryOperator, Value,
};

use super::plan::{EncryptedColumn, IdSource, Plaintext, Seal, SealTarget, SqlTemplate};
use super::{Bound, ColRef, ColumnRule, PlainKind, Refusal, Source};

/// A literal's value as written.
pub(crate) enum Lit {
    /// A number's text, sign included.
    Number(String),
    /// A quoted string (escapes resolved).
    Text(String),
    /// `X'..'`.
    Bytes(Vec<u8>),
}

/// A value a statement supplies.
pub(crate) enum ValueRef {
    /// Parameter `n`.
    Param(usize),
    /// NULL (never sealed).
    Null,
    /// A literal and where its text lies.
    Literal(Range<usize>, Lit),
}

/// The value `expr` is, when it is a parameter, NULL or a plain literal.
pub(crate) fn value_ref(source: &Source<'_>, expr: &Expr) -> Option<ValueRef> {
    match expr {
        Expr::Value(v) => {
            let lit = match &v.value {
                Value::Placeholder(p) if p == "?" => {
                    return source.param_index(v.span).map(ValueRef::Param);
                }
                Value::Null => return Some(ValueRef::Null),
                Value::Number(n, _) => Lit::Number(n.clone()),
                Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Lit::Text(s.clone()),
                Value::HexStringLiteral(h) => Lit::Bytes(hex_bytes(h)?),
                _ => return None,
            };
            let start = source.offset(v.span.start)?;
            let end = source.offset(v.span.end)?;
            (start < end).then_some(ValueRef::Literal(start..end, lit))
        }
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr: inner,
        } => match value_ref(source, inner)? {
            ValueRef::Literal(range, Lit::Number(n)) => {
                // The minus sign: the first non-space byte before the number.
                let before = source.sql().get(..range.start)?.trim_end();
                before.ends_with('-').then(|| {
                    ValueRef::Literal(before.len() - 1..range.end, Lit::Number(format!("-{n}")))
                })
            }
            _ => None,
        },
        Expr::Nested(inner) => value_ref(source, inner),
        _ => None,
    }
}

fn hex_bytes(hex: &str) -> Option<Vec<u8>> {
    if hex.len() % 2 != 0 {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

/// An integer literal (optionally negative).
pub(crate) fn int_literal(source: &Source<'_>, expr: &Expr) -> Option<i64> {
    match value_ref(source, expr)? {
        ValueRef::Literal(_, Lit::Number(n)) => n.parse().ok(),
        _ => None,
    }
}

/// The id a WHERE clause pins every row to: a top-level conjunct `id = ?` or
/// `id = <integer>` (either side).
pub(crate) fn id_from_where(
    bound: &Bound<'_>,
    source: &Source<'_>,
    expr: &Expr,
) -> Option<IdSource> {
    match expr {
        Expr::Nested(inner) => id_from_where(bound, source, inner),
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => id_from_where(bound, source, left).or_else(|| id_from_where(bound, source, right)),
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } => {
            let value = match (bound.col_ref(left), bound.col_ref(right)) {
                (Some(ColRef::Id), _) => right,
                (_, Some(ColRef::Id)) => left,
                _ => return None,
            };
            match value_ref(source, value)? {
                ValueRef::Param(i) => Some(IdSource::Param(i)),
                ValueRef::Literal(_, Lit::Number(n)) => n.parse().ok().map(IdSource::Literal),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The values a statement seals, and the literal slots of its text.
pub(crate) struct Sealing<'a, 'b> {
    source: &'a Source<'b>,
    seals: Vec<Seal>,
    ranges: Vec<Range<usize>>,
    /// The columns sealed so far, built once each (a bulk INSERT seals
    /// thousands of values into three columns).
    columns: Vec<Arc<EncryptedColumn>>,
}

impl<'a, 'b> Sealing<'a, 'b> {
    pub(crate) fn new(source: &'a Source<'b>) -> Self {
        Sealing {
            source,
            seals: Vec::new(),
            ranges: Vec::new(),
            columns: Vec::new(),
        }
    }

    /// Takes `other`'s seals and slots after this one's.
    pub(crate) fn absorb(&mut self, other: Sealing<'_, '_>) {
        let base = self.ranges.len();
        for mut seal in other.seals {
            if let SealTarget::Literal { slot, .. } = &mut seal.target {
                *slot += base;
            }
            self.seals.push(seal);
        }
        self.ranges.extend(other.ranges);
    }

    /// Whether nothing is sealed.
    pub(crate) fn seals_none(&self) -> bool {
        self.seals.is_empty()
    }

    /// Whether any literal is sealed (its text must be rewritten).
    pub(crate) fn has_literals(&self) -> bool {
        !self.ranges.is_empty()
    }

    /// Seals `value` (a parameter or literal) under `rule` of `bound` at `id`.
    /// NULL stays NULL.
    ///
    /// # Errors
    /// A value that is neither a parameter nor a literal, or a literal that
    /// is not of the column's kind.
    pub(crate) fn seal(
        &mut self,
        bound: &Bound<'_>,
        rule: &ColumnRule,
        value: &Expr,
        id: Option<IdSource>,
        construct: &str,
    ) -> Result<(), Refusal> {
        let column = match self
            .columns
            .iter()
            .find(|c| c.aad.table() == bound.table && c.aad.column() == rule.name)
        {
            Some(c) => Arc::clone(c),
            None => {
                let c = bound.column(rule)?;
                self.columns.push(Arc::clone(&c));
                c
            }
        };
        let id = if column.needs_id() { id } else { None };
        let target = match value_ref(self.source, value) {
            Some(ValueRef::Null) => return Ok(()),
            Some(ValueRef::Param(i)) => SealTarget::Param(i),
            Some(ValueRef::Literal(range, lit)) => {
                let plaintext = plaintext(rule.kind, lit).ok_or_else(|| Refusal::Function {
                    construct: format!(
                        "{construct} of a literal that is not {}",
                        kind_name(rule.kind)
                    ),
                    column: bound.qualified(rule),
                })?;
                self.ranges.push(range);
                SealTarget::Literal {
                    slot: self.ranges.len() - 1,
                    plaintext: Plaintext(plaintext),
                }
            }
            None => {
                return Err(Refusal::Function {
                    construct: format!("{construct} of an expression"),
                    column: bound.qualified(rule),
                });
            }
        };
        self.seals.push(Seal { target, column, id });
        Ok(())
    }

    /// The seals, and the client's text with slots for the sealed literals
    /// (`None` when none is).
    pub(crate) fn finish(mut self) -> (Option<SqlTemplate>, Vec<Seal>) {
        if self.ranges.is_empty() {
            return (None, self.seals);
        }
        let mut order: Vec<usize> = (0..self.ranges.len()).collect();
        order.sort_by_key(|&i| self.ranges[i].start);
        let mut final_slot = vec![0; order.len()];
        let sql = self.source.sql();
        let mut pieces = Vec::with_capacity(order.len() + 1);
        let mut at = 0;
        for (slot, &i) in order.iter().enumerate() {
            final_slot[i] = slot;
            let r = &self.ranges[i];
            pieces.push(sql[at..r.start].to_string());
            at = r.end;
        }
        pieces.push(sql[at..].to_string());
        for seal in &mut self.seals {
            if let SealTarget::Literal { slot, .. } = &mut seal.target {
                *slot = final_slot[*slot];
            }
        }
        (Some(SqlTemplate { pieces }), self.seals)
    }
}

fn kind_name(kind: PlainKind) -> &'static str {
    match kind {
        PlainKind::Integer => "an INTEGER",
        PlainKind::Bytes => "a string",
    }
}

/// The plaintext a literal seals as in a column of `kind`.
fn plaintext(kind: PlainKind, lit: Lit) -> Option<Vec<u8>> {
    match (kind, lit) {
        (PlainKind::Integer, Lit::Number(n)) => int32(&n),
        (PlainKind::Integer, Lit::Text(s)) => int32(s.trim()),
        (PlainKind::Integer, Lit::Bytes(_)) => None,
        (PlainKind::Bytes, Lit::Number(n)) => Some(n.into_bytes()),
        (PlainKind::Bytes, Lit::Text(s)) => Some(s.into_bytes()),
        (PlainKind::Bytes, Lit::Bytes(b)) => Some(b),
    }
}

/// An INTEGER's plaintext, when `text` is an integer within its 32-bit range.
fn int32(text: &str) -> Option<Vec<u8>> {
    let v: i64 = text.parse().ok()?;
    i32::try_from(v).ok()?;
    Some(k_plaintext(v).to_vec())
}

/// Checks a WHERE (or HAVING, ON) clause over `bound`: equality of a
/// deterministic column with a parameter or literal seals it; every other use
/// of an encrypted column is refused.
pub(crate) fn check_where(
    bound: &Bound<'_>,
    expr: &Expr,
    sealing: &mut Sealing<'_, '_>,
) -> Result<(), Refusal> {
    match expr {
        Expr::Nested(inner) => check_where(bound, inner, sealing),
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr: inner,
        } => check_where(bound, inner, sealing),
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And | BinaryOperator::Or | BinaryOperator::Xor,
            right,
        } => {
            check_where(bound, left, sealing)?;
            check_where(bound, right, sealing)
        }
        Expr::BinaryOp {
            left,
            op: op @ (BinaryOperator::Eq | BinaryOperator::NotEq | BinaryOperator::Spaceship),
            right,
        } => {
            let construct = op.to_string();
            let (rule, value) = match (encrypted_ref(bound, left), encrypted_ref(bound, right)) {
                (Some(rule), _) => (rule, right),
                (None, Some(rule)) => (rule, left),
                (None, None) => {
                    no_encrypted(bound, left, &construct)?;
                    return no_encrypted(bound, right, &construct);
                }
            };
            equality(bound, rule, &construct)?;
            sealing.seal(
                bound,
                rule,
                value,
                None,
                &format!("comparison ({construct})"),
            )
        }
        Expr::BinaryOp {
            left,
            op:
                op @ (BinaryOperator::Lt
                | BinaryOperator::LtEq
                | BinaryOperator::Gt
                | BinaryOperator::GtEq),
            right,
        } => {
            for side in [left, right] {
                if let Some(rule) = find_encrypted(bound, side) {
                    return Err(Refusal::Range {
                        construct: op.to_string(),
                        column: bound.qualified(rule),
                    });
                }
            }
            Ok(())
        }
        Expr::Between {
            expr, low, high, ..
        } => {
            for side in [expr, low, high] {
                if let Some(rule) = find_encrypted(bound, side) {
                    return Err(Refusal::Range {
                        construct: "BETWEEN".to_string(),
                        column: bound.qualified(rule),
                    });
                }
            }
            Ok(())
        }
        Expr::Like { .. } | Expr::ILike { .. } | Expr::SimilarTo { .. } | Expr::RLike { .. } => {
            let (name, expr, pattern) = match expr {
                Expr::Like { expr, pattern, .. } => ("LIKE", expr, pattern),
                Expr::ILike { expr, pattern, .. } => ("ILIKE", expr, pattern),
                Expr::SimilarTo { expr, pattern, .. } => ("SIMILAR TO", expr, pattern),
                Expr::RLike { expr, pattern, .. } => ("REGEXP", expr, pattern),
                _ => unreachable!("matched above"),
            };
            for side in [expr, pattern] {
                if let Some(rule) = find_encrypted(bound, side) {
                    return Err(Refusal::Pattern {
                        construct: name.to_string(),
                        column: bound.qualified(rule),
                    });
                }
            }
            Ok(())
        }
        Expr::InList {
            expr,
            list,
            negated,
        } => {
            let construct = if *negated { "NOT IN" } else { "IN" };
            match encrypted_ref(bound, expr) {
                Some(rule) => {
                    equality(bound, rule, construct)?;
                    for item in list {
                        sealing.seal(
                            bound,
                            rule,
                            item,
                            None,
                            &format!("comparison ({construct})"),
                        )?;
                    }
                    Ok(())
                }
                None => {
                    no_encrypted(bound, expr, construct)?;
                    list.iter()
                        .try_for_each(|item| no_encrypted(bound, item, construct))
                }
            }
        }
        Expr::IsNull(inner) | Expr::IsNotNull(inner) if encrypted_ref(bound, inner).is_some() => {
            Ok(())
        }
        Expr::InSubquery { .. } | Expr::Exists { .. } | Expr::Subquery(_) => {
            if bound_mentioned(bound, expr) {
                Err(Refusal::unsupported("a subquery", bound.table.clone()))
            } else {
                Ok(())
            }
        }
        other => no_encrypted(bound, other, "an expression"),
    }
}

/// Whether `expr`'s text names an encrypted column of `bound` or its table
/// (conservative: a subquery naming the table is refused).
fn bound_mentioned(bound: &Bound<'_>, expr: &Expr) -> bool {
    let text = expr.to_string();
    words(&text).any(|w| w.eq_ignore_ascii_case(&bound.table) || bound.rule.pattern.matches(w))
        || find_encrypted(bound, expr).is_some()
}

/// Equality is allowed on a deterministic column only.
fn equality(bound: &Bound<'_>, rule: &ColumnRule, construct: &str) -> Result<(), Refusal> {
    if rule.mode == ColumnMode::Deterministic {
        Ok(())
    } else {
        Err(Refusal::EqualityOnRandomized {
            construct: construct.to_string(),
            column: bound.qualified(rule),
            name: rule.name.clone(),
        })
    }
}

/// The encrypted column `expr` is a bare reference to.
pub(crate) fn encrypted_ref<'s>(bound: &Bound<'s>, expr: &Expr) -> Option<&'s ColumnRule> {
    match bound.col_ref(expr)? {
        ColRef::Encrypted(rule) => Some(rule),
        _ => None,
    }
}

/// Refuses `expr` when it uses an encrypted column (`construct` names the use).
pub(crate) fn no_encrypted(bound: &Bound<'_>, expr: &Expr, construct: &str) -> Result<(), Refusal> {
    match find_encrypted(bound, expr) {
        Some(rule) => Err(Refusal::Function {
            construct: construct.to_string(),
            column: bound.qualified(rule),
        }),
        None => Ok(()),
    }
}

/// An encrypted column of `bound` used anywhere inside `expr`. Expressions
/// this walk does not open are searched by their text (a word equal to an
/// encrypted column's name counts: a false alarm refuses, it never leaks).
pub(crate) fn find_encrypted<'s>(bound: &Bound<'s>, expr: &Expr) -> Option<&'s ColumnRule> {
    if let Some(r) = bound.col_ref(expr) {
        return match r {
            ColRef::Encrypted(rule) => Some(rule),
            _ => None,
        };
    }
    let many = |mut exprs: &mut dyn Iterator<Item = &Expr>| {
        Iterator::find_map(&mut exprs, |e| find_encrypted(bound, e))
    };
    match expr {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Value(_) => None,
        Expr::Nested(e)
        | Expr::UnaryOp { expr: e, .. }
        | Expr::IsNull(e)
        | Expr::IsNotNull(e)
        | Expr::IsTrue(e)
        | Expr::IsFalse(e)
        | Expr::IsNotTrue(e)
        | Expr::IsNotFalse(e)
        | Expr::Cast { expr: e, .. }
        | Expr::Collate { expr: e, .. } => find_encrypted(bound, e),
        Expr::BinaryOp { left, right, .. } => many(&mut [&**left, &**right].into_iter()),
        Expr::Between {
            expr, low, high, ..
        } => many(&mut [&**expr, &**low, &**high].into_iter()),
        Expr::Like { expr, pattern, .. }
        | Expr::ILike { expr, pattern, .. }
        | Expr::SimilarTo { expr, pattern, .. }
        | Expr::RLike { expr, pattern, .. } => many(&mut [&**expr, &**pattern].into_iter()),
        Expr::InList { expr, list, .. } => {
            find_encrypted(bound, expr).or_else(|| many(&mut list.iter()))
        }
        Expr::Tuple(list) => many(&mut list.iter()),
        Expr::Function(f) => match &f.args {
            FunctionArguments::None => None,
            FunctionArguments::List(list) => list.args.iter().find_map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e))
                | FunctionArg::Named {
                    arg: FunctionArgExpr::Expr(e),
                    ..
                }
                | FunctionArg::ExprNamed {
                    arg: FunctionArgExpr::Expr(e),
                    ..
                } => find_encrypted(bound, e),
                _ => None,
            }),
            FunctionArguments::Subquery(_) => text_search(bound, expr),
        }
        .or_else(|| text_search(bound, expr)),
        _ => text_search(bound, expr),
    }
}

/// The conservative search by text.
fn text_search<'s>(bound: &Bound<'s>, expr: &Expr) -> Option<&'s ColumnRule> {
    let text = expr.to_string();
    words(&text).find_map(|w| bound.rule.column(w))
}

/// The identifier-like words of a text.
pub(crate) fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| !w.is_empty())
}
