//! pgbench's `simple-update` (`-N`): BEGIN, UPDATE pgbench_accounts, SELECT
//! abalance, INSERT INTO pgbench_history, END (5 queries: 1 read, 2 write, 2
//! other). All four `\set` lines are drawn, as the script has them.

use crate::driver::Connection;
use crate::measure::StatementKind;
use crate::workload::scripts::common::count_dml;
use crate::workload::scripts::{Done, Event, timed};

use super::Draws;

pub(crate) async fn event<C: Connection>(e: &mut Event<'_, C>) -> Done {
    let d = Draws::all(e.rng, e.s.params.scale);
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
