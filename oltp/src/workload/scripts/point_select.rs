//! sysbench's `oltp_point_select.lua`: one point select, no BEGIN/COMMIT (1
//! read query).

use super::{Done, Event, common};
use crate::driver::Connection;

pub(crate) async fn event<C: Connection>(e: &mut Event<'_, C>) -> Done {
    let t = e.rng.uniform(1, e.s.params.tables);
    common::point_select(e, t).await
}
