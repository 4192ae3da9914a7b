//! pgbench's `simple-update` (`-N`): BEGIN, UPDATE pgbench_accounts, SELECT
//! abalance, INSERT INTO pgbench_history, END (5 queries: 1 read, 2 write, 2
//! other). All four `\set` lines are drawn, as the script has them.

use crate::driver::Connection;
use crate::workload::scripts::{Done, Event};

use super::{Draws, common};

pub(crate) async fn event<C: Connection>(e: &mut Event<'_, C>) -> Done {
    let d = Draws::all(e.rng, e.s.params.scale);
    common::open(e, d).await?;
    common::close(e, d).await
}
