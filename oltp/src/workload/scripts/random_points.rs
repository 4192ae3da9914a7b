//! sysbench's `select_random_points.lua`: `SELECT id, k, c, pad FROM sbtest1
//! WHERE k IN (...)` with `--random-points` values from this thread's slice of
//! 1..=table-size (1 read query).

use crate::driver::Connection;
use crate::measure::StatementKind;

use super::{Done, Event, timed};

pub(crate) async fn event<C: Connection>(e: &mut Event<'_, C>) -> Done {
    let (lo, hi) = e.s.params.random_points_range();
    let ks: Vec<u32> = (0..e.s.params.opts.random_points)
        .map(|_| e.rng.id(lo, hi))
        .collect();
    timed!(
        e.agg,
        StatementKind::RandomPoints,
        e.s.random_points(&ks).await
    )?;
    e.agg.read += 1;
    Ok(())
}
