//! sysbench's `oltp_delete.lua`: one DELETE by id (rows are not put back: a later delete of the same id matches nothing and counts as other).

use crate::driver::Connection;
use crate::measure::Aggregate;
use crate::rand::SbRng;
use crate::workload::{QueryError, Session};

use crate::measure::StatementKind;

use super::common::count_dml;
use super::timed;

pub(super) async fn event<C: Connection>(
    s: &mut Session<C>,
    rng: &mut SbRng,
    agg: &mut Aggregate,
) -> Result<(), QueryError> {
    let p = s.params;
    let t = rng.uniform(1, p.tables);
    let id = rng.id(1, p.table_size);
    let changed = timed!(agg, StatementKind::Delete, s.delete(t, id).await)?;
    count_dml(agg, changed);
    Ok(())
}
