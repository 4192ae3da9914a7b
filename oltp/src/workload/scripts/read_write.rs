//! sysbench's `oltp_read_write.lua`: BEGIN, the reads, an index update, a non-index update and a delete + insert, COMMIT (20 queries by default: 14 read, 4 write, 2 other).

use crate::driver::Connection;
use crate::measure::Aggregate;
use crate::rand::SbRng;
use crate::workload::{QueryError, Session};

use super::common::{begin, commit, delete_inserts, index_updates, non_index_updates, reads};

pub(super) async fn event<C: Connection>(
    s: &mut Session<C>,
    rng: &mut SbRng,
    agg: &mut Aggregate,
) -> Result<(), QueryError> {
    begin(s, agg).await?;
    reads(s, rng, agg).await?;
    index_updates(s, rng, agg).await?;
    non_index_updates(s, rng, agg).await?;
    delete_inserts(s, rng, agg).await?;
    commit(s, agg).await
}
