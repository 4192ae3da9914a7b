//! sysbench's `oltp_common.lua`: the statement groups the OLTP scripts share,
//! each picking one table and drawing its ids in the Lua order.
//! `oltp_update_index.lua` and `oltp_update_non_index.lua` are
//! [`index_updates`] and [`non_index_updates`] alone.

use crate::driver::Connection;
use crate::measure::{Aggregate, StatementKind};
use crate::workload::RangeKind;

use super::{Done, Event, timed};

/// sysbench's class of a DML statement: write when it changed rows, else other.
pub(crate) fn count_dml(agg: &mut Aggregate, changed: bool) {
    if changed {
        agg.write += 1;
    } else {
        agg.other += 1;
    }
}

/// `begin()`: BEGIN unless `--skip-trx`.
pub(super) async fn begin<C: Connection>(e: &mut Event<'_, C>) -> Done {
    if !e.s.params.opts.skip_trx {
        timed!(e.agg, StatementKind::Begin, e.s.text("BEGIN").await)?;
        e.agg.other += 1;
    }
    Ok(())
}

/// `commit()`: COMMIT unless `--skip-trx`.
pub(super) async fn commit<C: Connection>(e: &mut Event<'_, C>) -> Done {
    if !e.s.params.opts.skip_trx {
        timed!(e.agg, StatementKind::Commit, e.s.text("COMMIT").await)?;
        e.agg.other += 1;
    }
    Ok(())
}

/// The four range groups, in `oltp_common.lua`'s order.
#[derive(Clone, Copy)]
enum Range {
    Rows(RangeKind, StatementKind),
    Sum,
}

/// One of `execute_point_selects()`'s selects on table `t`: draws the id, one
/// read query.
pub(super) async fn point_select<C: Connection>(e: &mut Event<'_, C>, t: u32) -> Done {
    let id = e.rng.id(1, e.s.params.table_size);
    timed!(
        e.agg,
        StatementKind::PointSelect,
        e.s.point_select(t, id).await
    )?;
    e.agg.read += 1;
    Ok(())
}

/// `execute_point_selects()` and, with `--range-selects`, the four range
/// groups (`execute_simple_ranges()` ... `execute_distinct_ranges()`).
pub(super) async fn reads<C: Connection>(e: &mut Event<'_, C>) -> Done {
    let p = e.s.params;
    let o = p.opts;
    let t = e.rng.uniform(1, p.tables);
    for _ in 0..o.point_selects {
        point_select(e, t).await?;
    }
    if !o.range_selects {
        return Ok(());
    }
    let span = o.range_size - 1;
    for (count, range) in [
        (
            o.simple_ranges,
            Range::Rows(RangeKind::Simple, StatementKind::SimpleRange),
        ),
        (o.sum_ranges, Range::Sum),
        (
            o.order_ranges,
            Range::Rows(RangeKind::Order, StatementKind::OrderRange),
        ),
        (
            o.distinct_ranges,
            Range::Rows(RangeKind::Distinct, StatementKind::DistinctRange),
        ),
    ] {
        let t = e.rng.uniform(1, p.tables);
        for _ in 0..count {
            let lo = e.rng.id(1, p.table_size);
            match range {
                Range::Rows(kind, stat) => {
                    timed!(e.agg, stat, e.s.range(kind, t, lo, lo + span).await)?;
                }
                Range::Sum => {
                    timed!(
                        e.agg,
                        StatementKind::SumRange,
                        e.s.sum_range(t, lo, lo + span).await
                    )?;
                }
            }
            e.agg.read += 1;
        }
    }
    Ok(())
}

/// `execute_index_updates()`.
pub(crate) async fn index_updates<C: Connection>(e: &mut Event<'_, C>) -> Done {
    updates(e, Update::Index).await
}

/// `execute_non_index_updates()`.
pub(crate) async fn non_index_updates<C: Connection>(e: &mut Event<'_, C>) -> Done {
    updates(e, Update::NonIndex).await
}

/// The two UPDATE groups: `k = k + 1`, or a new `c`.
#[derive(Clone, Copy)]
enum Update {
    Index,
    NonIndex,
}

/// `--index-updates` or `--non-index-updates` updates of one table.
async fn updates<C: Connection>(e: &mut Event<'_, C>, update: Update) -> Done {
    let p = e.s.params;
    let t = e.rng.uniform(1, p.tables);
    let count = match update {
        Update::Index => p.opts.index_updates,
        Update::NonIndex => p.opts.non_index_updates,
    };
    for _ in 0..count {
        let changed = match update {
            Update::Index => {
                let id = e.rng.id(1, p.table_size);
                timed!(
                    e.agg,
                    StatementKind::IndexUpdate,
                    e.s.index_update(t, id).await
                )?
            }
            Update::NonIndex => {
                // sysbench sets the new c before drawing the id.
                let c = e.rng.c_value();
                let id = e.rng.id(1, p.table_size);
                timed!(
                    e.agg,
                    StatementKind::NonIndexUpdate,
                    e.s.non_index_update(t, id, &c).await
                )?
            }
        };
        count_dml(e.agg, changed);
    }
    Ok(())
}

/// `execute_delete_inserts()`.
pub(super) async fn delete_inserts<C: Connection>(e: &mut Event<'_, C>) -> Done {
    let p = e.s.params;
    let t = e.rng.uniform(1, p.tables);
    for _ in 0..p.opts.delete_inserts {
        let id = e.rng.id(1, p.table_size);
        let k = e.rng.id(1, p.table_size);
        let c = e.rng.c_value();
        let pad = e.rng.pad_value();
        let changed = timed!(e.agg, StatementKind::Delete, e.s.delete(t, id).await)?;
        count_dml(e.agg, changed);
        let changed = timed!(
            e.agg,
            StatementKind::Insert,
            e.s.insert(t, id, k, &c, &pad).await
        )?;
        count_dml(e.agg, changed);
    }
    Ok(())
}
