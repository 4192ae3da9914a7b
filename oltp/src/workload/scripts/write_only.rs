//! sysbench's `oltp_write_only.lua`: BEGIN, index update, non-index update,
//! delete + insert, COMMIT (6 queries by default).

use crate::driver::Connection;

use super::common::{begin, commit, delete_inserts, index_updates, non_index_updates};
use super::{Done, Event};

pub(crate) async fn event<C: Connection>(e: &mut Event<'_, C>) -> Done {
    begin(e).await?;
    writes(e).await?;
    commit(e).await
}

/// The writes of `oltp_write_only.lua` (also `oltp_read_write.lua`'s).
pub(super) async fn writes<C: Connection>(e: &mut Event<'_, C>) -> Done {
    index_updates(e).await?;
    non_index_updates(e).await?;
    delete_inserts(e).await
}
