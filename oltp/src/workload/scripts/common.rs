//! sysbench's `oltp_common.lua`: the statement groups the OLTP scripts share,
//! each picking one table and drawing its ids in the Lua order.

use crate::driver::Connection;
use crate::measure::{Aggregate, StatementKind};
use crate::rand::SbRng;
use crate::workload::{QueryError, RangeKind, Session};

use super::timed;

/// sysbench's class of a DML statement: write when it changed rows, else other.
pub(super) fn count_dml(agg: &mut Aggregate, changed: bool) {
    if changed {
        agg.write += 1;
    } else {
        agg.other += 1;
    }
}

/// `begin()`: BEGIN unless `--skip-trx`.
pub(super) async fn begin<C: Connection>(
    s: &mut Session<C>,
    agg: &mut Aggregate,
) -> Result<(), QueryError> {
    if !s.params.opts.skip_trx {
        timed!(agg, StatementKind::Begin, s.text("BEGIN").await)?;
        agg.other += 1;
    }
    Ok(())
}

/// `commit()`: COMMIT unless `--skip-trx`.
pub(super) async fn commit<C: Connection>(
    s: &mut Session<C>,
    agg: &mut Aggregate,
) -> Result<(), QueryError> {
    if !s.params.opts.skip_trx {
        timed!(agg, StatementKind::Commit, s.text("COMMIT").await)?;
        agg.other += 1;
    }
    Ok(())
}

/// `execute_point_selects()` and, with `--range-selects`, the four range
/// kinds (`execute_simple_ranges()` ... `execute_distinct_ranges()`).
pub(super) async fn reads<C: Connection>(
    s: &mut Session<C>,
    rng: &mut SbRng,
    agg: &mut Aggregate,
) -> Result<(), QueryError> {
    let p = s.params;
    let o = p.opts;
    let t = rng.uniform(1, p.tables);
    for _ in 0..o.point_selects {
        let id = rng.id(1, p.table_size);
        timed!(agg, StatementKind::PointSelect, s.point_select(t, id).await)?;
        agg.read += 1;
    }
    if !o.range_selects {
        return Ok(());
    }
    let span = o.range_size - 1;
    let t = rng.uniform(1, p.tables);
    for _ in 0..o.simple_ranges {
        let lo = rng.id(1, p.table_size);
        timed!(
            agg,
            StatementKind::SimpleRange,
            s.range(RangeKind::Simple, t, lo, lo + span).await
        )?;
        agg.read += 1;
    }
    let t = rng.uniform(1, p.tables);
    for _ in 0..o.sum_ranges {
        let lo = rng.id(1, p.table_size);
        timed!(
            agg,
            StatementKind::SumRange,
            s.sum_range(t, lo, lo + span).await
        )?;
        agg.read += 1;
    }
    let t = rng.uniform(1, p.tables);
    for _ in 0..o.order_ranges {
        let lo = rng.id(1, p.table_size);
        timed!(
            agg,
            StatementKind::OrderRange,
            s.range(RangeKind::Order, t, lo, lo + span).await
        )?;
        agg.read += 1;
    }
    let t = rng.uniform(1, p.tables);
    for _ in 0..o.distinct_ranges {
        let lo = rng.id(1, p.table_size);
        timed!(
            agg,
            StatementKind::DistinctRange,
            s.range(RangeKind::Distinct, t, lo, lo + span).await
        )?;
        agg.read += 1;
    }
    Ok(())
}

/// `execute_index_updates()`.
pub(super) async fn index_updates<C: Connection>(
    s: &mut Session<C>,
    rng: &mut SbRng,
    agg: &mut Aggregate,
) -> Result<(), QueryError> {
    let p = s.params;
    let t = rng.uniform(1, p.tables);
    for _ in 0..p.opts.index_updates {
        let id = rng.id(1, p.table_size);
        let changed = timed!(agg, StatementKind::IndexUpdate, s.index_update(t, id).await)?;
        count_dml(agg, changed);
    }
    Ok(())
}

/// `execute_non_index_updates()`.
pub(super) async fn non_index_updates<C: Connection>(
    s: &mut Session<C>,
    rng: &mut SbRng,
    agg: &mut Aggregate,
) -> Result<(), QueryError> {
    let p = s.params;
    let t = rng.uniform(1, p.tables);
    for _ in 0..p.opts.non_index_updates {
        // sysbench sets the new c before drawing the id.
        let c = rng.c_value();
        let id = rng.id(1, p.table_size);
        let changed = timed!(
            agg,
            StatementKind::NonIndexUpdate,
            s.non_index_update(t, id, &c).await
        )?;
        count_dml(agg, changed);
    }
    Ok(())
}

/// `execute_delete_inserts()`.
pub(super) async fn delete_inserts<C: Connection>(
    s: &mut Session<C>,
    rng: &mut SbRng,
    agg: &mut Aggregate,
) -> Result<(), QueryError> {
    let p = s.params;
    let t = rng.uniform(1, p.tables);
    for _ in 0..p.opts.delete_inserts {
        let id = rng.id(1, p.table_size);
        let k = rng.id(1, p.table_size);
        let c = rng.c_value();
        let pad = rng.pad_value();
        let changed = timed!(agg, StatementKind::Delete, s.delete(t, id).await)?;
        count_dml(agg, changed);
        let changed = timed!(
            agg,
            StatementKind::Insert,
            s.insert(t, id, k, &c, &pad).await
        )?;
        count_dml(agg, changed);
    }
    Ok(())
}
