//! The event scripts: one file per sysbench 1.0 script (`oltp_*.lua`,
//! `select_random_points.lua`), each its `event()` over a [`Session`], with
//! the helpers of `oltp_common.lua` in [`common`]. Each draws its random
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
mod update_index;
mod update_non_index;
mod write_only;

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
        match self.workload {
            Workload::OltpPointSelect => point_select::event(self, rng, agg).await,
            Workload::OltpReadOnly => read_only::event(self, rng, agg).await,
            Workload::OltpReadWrite => read_write::event(self, rng, agg).await,
            Workload::OltpWriteOnly => write_only::event(self, rng, agg).await,
            Workload::OltpUpdateIndex => update_index::event(self, rng, agg).await,
            Workload::OltpUpdateNonIndex => update_non_index::event(self, rng, agg).await,
            Workload::OltpDelete => delete::event(self, rng, agg).await,
            Workload::OltpInsert => insert::event(self, rng, agg).await,
            Workload::SelectRandomPoints => random_points::event(self, rng, agg).await,
        }
    }
}
