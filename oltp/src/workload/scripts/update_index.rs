//! sysbench's `oltp_update_index.lua`: `--index-updates` index updates (k=k+1) on one table, no BEGIN/COMMIT.

use crate::driver::Connection;
use crate::measure::Aggregate;
use crate::rand::SbRng;
use crate::workload::{QueryError, Session};

pub(super) async fn event<C: Connection>(
    s: &mut Session<C>,
    rng: &mut SbRng,
    agg: &mut Aggregate,
) -> Result<(), QueryError> {
    super::common::index_updates(s, rng, agg).await
}
