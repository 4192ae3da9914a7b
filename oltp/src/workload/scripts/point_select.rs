//! sysbench's `oltp_point_select.lua`: one point select, no BEGIN/COMMIT (1
//! read query).

use crate::driver::Connection;
use crate::measure::StatementKind;

use super::{Done, Event, timed};

pub(crate) async fn event<C: Connection>(e: &mut Event<'_, C>) -> Done {
    let p = e.s.params;
    let t = e.rng.uniform(1, p.tables);
    let id = e.rng.id(1, p.table_size);
    timed!(
        e.agg,
        StatementKind::PointSelect,
        e.s.point_select(t, id).await
    )?;
    e.agg.read += 1;
    Ok(())
}
