//! sysbench's `oltp_insert.lua`: one INSERT over the text protocol (auto-increment id 0 in plaintext with `--auto-inc on`).

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
    let k = rng.id(1, p.table_size);
    let c = rng.c_value();
    let pad = rng.pad_value();
    let changed = timed!(
        agg,
        StatementKind::Insert,
        s.text_insert(t, k, &c, &pad).await
    )?;
    count_dml(agg, changed);
    Ok(())
}
