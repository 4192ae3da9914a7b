//! The private MariaDB's InnoDB buffer pool around report 004's runs: wait
//! until the pool it reloads at startup is loaded, warm it by reading every
//! table (the cached profile: the report's cached test keeps all data in the
//! pool), and read its counters (`SHOW GLOBAL STATUS`).

use std::time::{Duration, Instant};

use anyhow::{Result, bail};

use encbench_oltp::driver::{Connection, DbDriver, with_driver};
use encbench_oltp::schema;

/// The buffer pool's cumulative counters since the server started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolCounters {
    /// `Innodb_buffer_pool_read_requests`: logical page reads.
    pub read_requests: u64,
    /// `Innodb_buffer_pool_reads`: the page reads the pool could not serve,
    /// read from the data files (misses).
    pub reads: u64,
}

/// How long the buffer-pool load at startup may take before the runs go on
/// without it: 961 MiB at the 0.12 ms per 16 KiB read measured here take
/// under 10 s; the rest is margin for a loaded machine.
const LOAD_TIMEOUT: Duration = Duration::from_secs(120);

/// The counters of the server at `url`.
///
/// # Errors
/// The connection or the query fails, or the server lacks the counters (not
/// InnoDB).
pub async fn counters(url: &str) -> Result<PoolCounters> {
    with_driver!(DbDriver::of_url(url), C => counters_with::<C>(url).await)
}

/// [`counters`] over driver `C`.
async fn counters_with<C: Connection>(url: &str) -> Result<PoolCounters> {
    let mut c: C = schema::connect(url, None, None).await?;
    let rows = c
        .query_text(
            "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_buffer_pool_read_requests', 'Innodb_buffer_pool_reads')",
        )
        .await;
    c.close().await;
    parse_counters(&rows?)
}

/// [`PoolCounters`] of `SHOW GLOBAL STATUS` rows (name, value).
///
/// # Errors
/// A counter is missing or not a number.
pub fn parse_counters(rows: &[Vec<Option<String>>]) -> Result<PoolCounters> {
    let get = |name: &str| -> Result<u64> {
        let v = rows
            .iter()
            .find(|r| r.first().and_then(|n| n.as_deref()) == Some(name))
            .and_then(|r| r.get(1).cloned().flatten());
        match v.as_deref().map(str::parse::<u64>) {
            Some(Ok(n)) => Ok(n),
            _ => bail!("the server reports no {name} (SHOW GLOBAL STATUS): not InnoDB?"),
        }
    };
    Ok(PoolCounters {
        read_requests: get("Innodb_buffer_pool_read_requests")?,
        reads: get("Innodb_buffer_pool_reads")?,
    })
}

/// Waits until the server at `url` has finished loading the buffer pool it
/// dumped at its last shutdown (`Innodb_buffer_pool_load_status`; MariaDB's
/// defaults dump and reload it), so a run's counters do not include that
/// load. After `LOAD_TIMEOUT` (120 s) it goes on (the counters then include the
/// rest of the load, which only raises the miss rate) and says so.
///
/// # Errors
/// The connection or the query fails.
pub async fn wait_for_load(url: &str) -> Result<()> {
    with_driver!(DbDriver::of_url(url), C => wait_for_load_with::<C>(url).await)
}

/// [`wait_for_load`] over driver `C`.
async fn wait_for_load_with<C: Connection>(url: &str) -> Result<()> {
    let mut c: C = schema::connect(url, None, None).await?;
    let t0 = Instant::now();
    let outcome = loop {
        let rows = match c
            .query_text("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_load_status'")
            .await
        {
            Ok(r) => r,
            Err(e) => break Err(e.into()),
        };
        let status = rows
            .first()
            .and_then(|r| r.get(1).cloned().flatten())
            .unwrap_or_default();
        if !load_in_progress(&status) {
            break Ok(());
        }
        if t0.elapsed() > LOAD_TIMEOUT {
            println!(
                "buffer pool load still running after {} s ({status}): the runs go on",
                LOAD_TIMEOUT.as_secs()
            );
            break Ok(());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    c.close().await;
    outcome
}

/// Whether an `Innodb_buffer_pool_load_status` text says a load is running
/// (`Loaded 123/456 pages`; done: `Buffer pool(s) load completed at ...`,
/// none: empty or `... not started`, failed or aborted: their message).
pub fn load_in_progress(status: &str) -> bool {
    status.starts_with("Loaded ")
}

/// Reads every page of the `tables` sbtest tables of `db` into the buffer
/// pool: the clustered index (`FORCE INDEX (PRIMARY)`, the rows) and the
/// secondary index `k_N` (which the index updates write).
///
/// # Errors
/// The connection or a query fails.
pub async fn warm(url: &str, db: &str, tables: u32) -> Result<()> {
    with_driver!(DbDriver::of_url(url), C => warm_with::<C>(url, db, tables).await)
}

/// [`warm`] over driver `C`.
async fn warm_with<C: Connection>(url: &str, db: &str, tables: u32) -> Result<()> {
    let mut c: C = schema::connect(url, None, Some(db)).await?;
    let mut outcome = Ok(());
    for i in 1..=tables {
        for sql in [
            format!("SELECT COUNT(*) FROM sbtest{i} FORCE INDEX (PRIMARY)"),
            format!("SELECT COUNT(k) FROM sbtest{i} FORCE INDEX (k_{i})"),
        ] {
            if let Err(e) = c.query_text(&sql).await {
                outcome = Err(anyhow::anyhow!("warming the buffer pool ({sql}): {e}"));
                break;
            }
        }
    }
    c.close().await;
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: &str, v: &str) -> Vec<Option<String>> {
        vec![Some(n.into()), Some(v.into())]
    }

    #[test]
    fn the_counters_come_from_their_rows() {
        let rows = [
            row("Innodb_buffer_pool_read_requests", "48218"),
            row("Innodb_buffer_pool_reads", "9791"),
        ];
        assert_eq!(
            parse_counters(&rows).expect("counters"),
            PoolCounters {
                read_requests: 48_218,
                reads: 9_791
            }
        );
        let e = parse_counters(&rows[..1]).expect_err("missing");
        assert!(e.to_string().contains("Innodb_buffer_pool_reads"), "{e}");
    }

    #[test]
    fn only_a_loaded_count_is_a_load_in_progress() {
        assert!(load_in_progress("Loaded 1024/8192 pages"));
        assert!(!load_in_progress(
            "Buffer pool(s) load completed at 261201 21:38:15"
        ));
        assert!(!load_in_progress(""));
    }
}
