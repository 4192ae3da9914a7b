//! sysbench's `select_random_points.lua`: `SELECT id, k, c, pad FROM sbtest1 WHERE k IN (...)` with `--random-points` values from this thread's slice of 1..=table-size (1 read query).

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
    let (lo, hi) = s.params.random_points_range();
    let ks: Vec<u32> = (0..s.params.opts.random_points)
        .map(|_| rng.id(lo, hi))
        .collect();
    timed!(agg, StatementKind::RandomPoints, s.random_points(&ks).await)?;
    agg.read += 1;
    Ok(())
}
