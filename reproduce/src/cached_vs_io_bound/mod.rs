//! Report 004, ApsaraDB RDS cached vs disk I/O-bound: sysbench
//! oltp_read_write at the report's thread counts (16, 32, 64) on the private
//! MariaDB with the report's durability (`sync_binlog=1`,
//! `innodb_flush_log_at_trx_commit=1`), `--profile cached` (4 GiB buffer
//! pool, larger than the data) vs `--profile io-bound` (128 MiB, several
//! times smaller than the data), in interleaved rounds (the server restarted
//! with the other profile between them, on the same data). The effect
//! compared is the ratio IO-bound / cached QPS per thread count (as a %
//! change over paired rounds), never QPS across hardware; and QPS / TPS = 20,
//! oltp_read_write's queries per transaction, on both sides.
//!
//! Beyond the report (full mode, the data file's `beyond`): four more grids
//! in the same rotation, each at the scale's first thread count: each
//! profile with column encryption (a sealed data set of its own) and with
//! InnoDB's encryption at rest (a server and data set of its own), each
//! compared with its profile's plaintext run of the same round: a table and
//! `measurements.beyond`, not rows (the report has no such figures).
//!
//! By job: [`mod@plan`] (the grids, the data sets and each round's setup time,
//! with the constants measured for it), [`analysis`] (the comparisons and the
//! rows), [`tables`] (the buffer-pool and beyond-the-report tables), [`report`]
//! (the setup differences, and the reproduction updated from the runs).

pub mod analysis;
pub mod plan;
pub mod report;
pub mod tables;
#[cfg(test)]
mod tests;

pub use analysis::{BeyondCost, beyond_costs, compare_grids, io_by_threads, ratio, rows};
pub use plan::{
    AddedEncryption, MEASURED_BYTES_PER_ROW, PAGE_BYTES, SEALED_MEASURED_BYTES_PER_ROW,
    SERVER_RESTART_SECS, UNCAPPED_READS_PER_SEC, data_bytes, data_bytes_at, grid_name, plan,
    round_setup_secs, warms_buffer_pool,
};
pub use report::{setup_differences, update_reproduction};
pub use tables::{beyond_table, io_table};

/// The plaintext database of report 004 (overridden and quick scales get
/// their own, as 000's).
pub const DB: &str = "repro004";

/// The grid of the cache-resident profile.
pub const CACHED: &str = "cached";

/// The grid of the IO-bound profile.
pub const IO_BOUND: &str = "io-bound";
