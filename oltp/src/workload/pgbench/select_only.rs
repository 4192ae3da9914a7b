//! pgbench's `select-only` (`-S`): `SELECT abalance FROM pgbench_accounts
//! WHERE aid = :aid`, no BEGIN/END (1 read query). It reads no filler, so
//! an encrypted `pgbench_accounts.filler` costs it nothing in the client.

use crate::driver::Connection;
use crate::measure::StatementKind;
use crate::workload::scripts::{Done, Event, timed};

use super::Draws;

pub(crate) async fn event<C: Connection>(e: &mut Event<'_, C>) -> Done {
    let aid = Draws::aid(e.rng, e.s.params.scale);
    timed!(
        e.agg,
        StatementKind::SelectAbalance,
        e.s.pgbench_select_abalance(aid).await
    )?;
    e.agg.read += 1;
    Ok(())
}
