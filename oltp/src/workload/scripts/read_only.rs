//! sysbench's `oltp_read_only.lua`: BEGIN, the reads of `oltp_common.lua`,
//! COMMIT (16 queries by default: 14 read, 2 other).

use crate::driver::Connection;

use super::common::{begin, commit, reads};
use super::{Done, Event};

pub(crate) async fn event<C: Connection>(e: &mut Event<'_, C>) -> Done {
    begin(e).await?;
    reads(e).await?;
    commit(e).await
}
