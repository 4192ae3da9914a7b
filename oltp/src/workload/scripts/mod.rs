//! The event scripts: one file per sysbench 1.0 script (`oltp_*.lua`,
//! `select_random_points.lua`), each its `event()` over a [`Session`], with
//! the helpers of `oltp_common.lua` in [`common`] (`oltp_update_index.lua` and
//! `oltp_update_non_index.lua` are one of them each, so they have no file). Each draws its random
//! numbers in the Lua script's order, so a seeded run repeats sysbench's.

use crate::driver::Connection;
use crate::measure::Aggregate;
use crate::rand::SbRng;

use super::{QueryError, Session, Workload};

mod common;
mod delete;
mod insert;
mod point_select;
mod random_points;
mod read_only;
mod read_write;
mod write_only;

/// What an event script works with: the worker's session, its random numbers
/// and its aggregate.
pub(super) struct Event<'a, C: Connection> {
    pub(super) s: &'a mut Session<C>,
    pub(super) rng: &'a mut SbRng,
    pub(super) agg: &'a mut Aggregate,
}

/// What an event script returns: done, or the error that stopped it.
pub(super) type Done = Result<(), QueryError>;

/// Times one statement into `agg` under `kind`.
macro_rules! timed {
    ($agg:expr, $kind:expr, $body:expr) => {{
        let t0 = std::time::Instant::now();
        let r = $body;
        $agg.record_statement($kind, t0.elapsed());
        r
    }};
}
pub(crate) use timed;

impl<C: Connection> Session<C> {
    /// Runs one event (transaction) of the session's workload, as sysbench's
    /// `event()`, counting its queries and timing each statement into `agg`.
    /// On error the caller decides (restart, reconnect, or stop); the counts of
    /// the failed attempt's finished queries stay recorded, as in sysbench.
    ///
    /// # Errors
    /// Any query error.
    pub async fn event(&mut self, rng: &mut SbRng, agg: &mut Aggregate) -> Result<(), QueryError> {
        let workload = self.workload;
        let e = &mut Event { s: self, rng, agg };
        match workload {
            Workload::OltpPointSelect => point_select::event(e).await,
            Workload::OltpReadOnly => read_only::event(e).await,
            Workload::OltpReadWrite => read_write::event(e).await,
            Workload::OltpWriteOnly => write_only::event(e).await,
            Workload::OltpUpdateIndex => common::index_updates(e).await,
            Workload::OltpUpdateNonIndex => common::non_index_updates(e).await,
            Workload::OltpDelete => delete::event(e).await,
            Workload::OltpInsert => insert::event(e).await,
            Workload::SelectRandomPoints => random_points::event(e).await,
        }
    }
}
