//! The statements tpcb-like and simple-update share, in the scripts' order:
//! [`open`] (BEGIN, the account's UPDATE and SELECT) and [`close`] (the
//! history INSERT, END). tpcb-like puts its tellers and branches updates
//! between the two; simple-update has nothing between them.

use crate::driver::Connection;
use crate::measure::StatementKind;
use crate::workload::scripts::common::count_dml;
use crate::workload::scripts::{Done, Event, timed};

use super::Draws;

/// `BEGIN;`, `UPDATE pgbench_accounts ...;` and `SELECT abalance ...;` of
/// the account `d.aid` (3 queries: 1 read, 1 write or other, 1 other).
pub(super) async fn open<C: Connection>(e: &mut Event<'_, C>, d: Draws) -> Done {
    timed!(e.agg, StatementKind::Begin, e.s.pgbench_begin().await)?;
    e.agg.other += 1;
    let changed = timed!(
        e.agg,
        StatementKind::UpdateAccounts,
        e.s.pgbench_update_accounts(d.aid, d.delta).await
    )?;
    count_dml(e.agg, changed);
    timed!(
        e.agg,
        StatementKind::SelectAbalance,
        e.s.pgbench_select_abalance(d.aid).await
    )?;
    e.agg.read += 1;
    Ok(())
}

/// `INSERT INTO pgbench_history ...;` of `d` and `END;` (2 queries: 1 write
/// or other, 1 other).
pub(super) async fn close<C: Connection>(e: &mut Event<'_, C>, d: Draws) -> Done {
    let changed = timed!(
        e.agg,
        StatementKind::InsertHistory,
        e.s.pgbench_insert_history(d).await
    )?;
    count_dml(e.agg, changed);
    timed!(e.agg, StatementKind::Commit, e.s.pgbench_end().await)?;
    e.agg.other += 1;
    Ok(())
}
