//! pgbench's `tpcb-like` (the default script, "TPC-B (sort of)"): BEGIN,
//! UPDATE pgbench_accounts, SELECT abalance, UPDATE pgbench_tellers, UPDATE
//! pgbench_branches, INSERT INTO pgbench_history, END (7 queries: 1 read, 4
//! write, 2 other).

use crate::driver::Connection;
use crate::measure::StatementKind;
use crate::workload::scripts::common::count_dml;
use crate::workload::scripts::{Done, Event, timed};

use super::{Draws, common};

pub(crate) async fn event<C: Connection>(e: &mut Event<'_, C>) -> Done {
    let d = Draws::all(e.rng, e.s.params.scale);
    common::open(e, d).await?;
    let changed = timed!(
        e.agg,
        StatementKind::UpdateTellers,
        e.s.pgbench_update_tellers(d.tid, d.delta).await
    )?;
    count_dml(e.agg, changed);
    let changed = timed!(
        e.agg,
        StatementKind::UpdateBranches,
        e.s.pgbench_update_branches(d.bid, d.delta).await
    )?;
    count_dml(e.agg, changed);
    common::close(e, d).await
}
