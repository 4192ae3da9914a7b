//! sysbench's `oltp_point_select.lua`: one point select, no BEGIN/COMMIT (1 read query).

use crate::driver::Connection;
use crate::measure::Aggregate;
use crate::rand::SbRng;
use crate::workload::{QueryError, Session};

use crate::measure::StatementKind;

use super::timed;

pub(super) async fn event<C: Connection>(
    s: &mut Session<C>,
    rng: &mut SbRng,
    agg: &mut Aggregate,
) -> Result<(), QueryError> {
    let p = s.params;
    let t = rng.uniform(1, p.tables);
    let id = rng.id(1, p.table_size);
    timed!(agg, StatementKind::PointSelect, s.point_select(t, id).await)?;
    agg.read += 1;
    Ok(())
}
