//! sysbench's `oltp_read_only.lua`: BEGIN, the reads of `oltp_common.lua`, COMMIT (16 queries by default: 14 read, 2 other).

use crate::driver::Connection;
use crate::measure::Aggregate;
use crate::rand::SbRng;
use crate::workload::{QueryError, Session};

use super::common::{begin, commit, reads};

pub(super) async fn event<C: Connection>(
    s: &mut Session<C>,
    rng: &mut SbRng,
    agg: &mut Aggregate,
) -> Result<(), QueryError> {
    begin(s, agg).await?;
    reads(s, rng, agg).await?;
    commit(s, agg).await
}
