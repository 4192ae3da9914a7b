//! sysbench's `oltp_write_only.lua`: BEGIN, index update, non-index update, delete + insert, COMMIT (6 queries by default).

use crate::driver::Connection;
use crate::measure::Aggregate;
use crate::rand::SbRng;
use crate::workload::{QueryError, Session};

use super::common::{begin, commit, delete_inserts, index_updates, non_index_updates};

pub(super) async fn event<C: Connection>(
    s: &mut Session<C>,
    rng: &mut SbRng,
    agg: &mut Aggregate,
) -> Result<(), QueryError> {
    begin(s, agg).await?;
    index_updates(s, rng, agg).await?;
    non_index_updates(s, rng, agg).await?;
    delete_inserts(s, rng, agg).await?;
    commit(s, agg).await
}
