//! sysbench's `oltp_read_write.lua`: BEGIN, the reads, an index update, a
//! non-index update and a delete + insert, COMMIT (20 queries by default: 14
//! read, 4 write, 2 other).

use crate::driver::Connection;

use super::common::{begin, commit, reads};
use super::{Done, Event, write_only};

pub(crate) async fn event<C: Connection>(e: &mut Event<'_, C>) -> Done {
    begin(e).await?;
    reads(e).await?;
    write_only::writes(e).await?;
    commit(e).await
}
