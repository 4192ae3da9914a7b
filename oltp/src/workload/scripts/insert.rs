//! sysbench's `oltp_insert.lua`: one INSERT over the text protocol (an
//! auto-increment id 0 in plaintext with `--auto-inc on`).

use crate::driver::Connection;
use crate::measure::StatementKind;

use super::common::count_dml;
use super::{Done, Event, timed};

pub(crate) async fn event<C: Connection>(e: &mut Event<'_, C>) -> Done {
    let p = e.s.params;
    let t = e.rng.uniform(1, p.tables);
    let k = e.rng.id(1, p.table_size);
    let (c, pad) = (e.rng.c_value(), e.rng.pad_value());
    let changed = timed!(
        e.agg,
        StatementKind::Insert,
        e.s.text_insert(t, k, &c, &pad).await
    )?;
    count_dml(e.agg, changed);
    Ok(())
}
