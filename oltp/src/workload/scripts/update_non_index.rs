//! sysbench's `oltp_update_non_index.lua`: `--non-index-updates` updates of `c` on one table, no BEGIN/COMMIT.

use crate::driver::Connection;
use crate::measure::Aggregate;
use crate::rand::SbRng;
use crate::workload::{QueryError, Session};

pub(super) async fn event<C: Connection>(
    s: &mut Session<C>,
    rng: &mut SbRng,
    agg: &mut Aggregate,
) -> Result<(), QueryError> {
    super::common::non_index_updates(s, rng, agg).await
}
