//! sysbench's `oltp_delete.lua`: one DELETE by id (rows are not put back: a
//! later delete of the same id matches nothing and counts as other).

use crate::driver::Connection;
use crate::measure::StatementKind;

use super::common::count_dml;
use super::{Done, Event, timed};

pub(crate) async fn event<C: Connection>(e: &mut Event<'_, C>) -> Done {
    let p = e.s.params;
    let t = e.rng.uniform(1, p.tables);
    let id = e.rng.id(1, p.table_size);
    let changed = timed!(e.agg, StatementKind::Delete, e.s.delete(t, id).await)?;
    count_dml(e.agg, changed);
    Ok(())
}
