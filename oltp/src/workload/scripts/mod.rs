//! The event scripts: one file per sysbench 1.0 script (`oltp_*.lua`,
//! `select_random_points.lua`), each its `event()` over a [`Session`], with
//! the helpers of `oltp_common.lua` in [`common`] (`oltp_update_index.lua` and
//! `oltp_update_non_index.lua` are one of them each, so they have no file). Each draws its random
//! numbers in the Lua script's order, so a seeded run repeats sysbench's.

use crate::driver::Connection;
use crate::measure::Aggregate;
use crate::sb_rand::SbRng;

use super::{QueryError, Session};

pub(crate) mod common;
pub(crate) mod delete;
pub(crate) mod insert;
pub(crate) mod point_select;
pub(crate) mod random_points;
pub(crate) mod read_only;
pub(crate) mod read_write;
pub(crate) mod write_only;

/// What an event script works with: the worker's session, its random numbers
/// and its aggregate.
pub(crate) struct Event<'a, C: Connection> {
    pub(crate) s: &'a mut Session<C>,
    pub(crate) rng: &'a mut SbRng,
    pub(crate) agg: &'a mut Aggregate,
}

/// What an event script returns: done, or the error that stopped it.
pub(crate) type Done = Result<(), QueryError>;

/// Times one statement into `agg` under `kind`, when it succeeded: a failed
/// statement is counted as an error of its kind, never in the statement table
/// (whose counts then match read/write/other, counted after the `?`).
macro_rules! timed {
    ($agg:expr, $kind:expr, $body:expr) => {{
        let t0 = std::time::Instant::now();
        let r = $body;
        if r.is_ok() {
            $agg.record_statement($kind, t0.elapsed());
        }
        r
    }};
}
pub(crate) use timed;

/// Runs one event (transaction) of `$session`'s workload, as sysbench's
/// `event()`, counting its queries and timing each statement into `$agg`
/// (`&mut Aggregate`), with random numbers from `$rng` (`&mut SbRng`). On
/// error the caller decides (restart, reconnect, or stop); the counts of the
/// failed attempt's finished queries stay recorded, as in sysbench. Evaluates
/// to `Result<(), QueryError>`; use it inside an async fn.
///
/// A macro, not an async fn, so that the event script's future sits directly
/// in the caller's: one state-machine level less on every poll, about 40
/// instructions per point select (callgrind, `oltp/bench/callgrind-vs-sysbench`).
macro_rules! event {
    ($session:expr, $rng:expr, $agg:expr) => {{
        use $crate::workload::Workload as W;
        use $crate::workload::scripts as sc;
        let session = $session;
        let workload = session.workload;
        let e = &mut sc::Event {
            s: session,
            rng: $rng,
            agg: $agg,
        };
        match workload {
            W::OltpPointSelect => sc::point_select::event(e).await,
            W::OltpReadOnly => sc::read_only::event(e).await,
            W::OltpReadWrite => sc::read_write::event(e).await,
            W::OltpWriteOnly => sc::write_only::event(e).await,
            W::OltpUpdateIndex => sc::common::index_updates(e).await,
            W::OltpUpdateNonIndex => sc::common::non_index_updates(e).await,
            W::OltpDelete => sc::delete::event(e).await,
            W::OltpInsert => sc::insert::event(e).await,
            W::SelectRandomPoints => sc::random_points::event(e).await,
            W::PgbenchTpcbLike => $crate::workload::pgbench::tpcb_like::event(e).await,
            W::PgbenchSimpleUpdate => $crate::workload::pgbench::simple_update::event(e).await,
            W::PgbenchSelectOnly => $crate::workload::pgbench::select_only::event(e).await,
        }
    }};
}
pub(crate) use event;
