//! What is sent: sysbench 1.0's OLTP transactions (`oltp_common.lua` and the
//! eight `oltp_*.lua` scripts) over server-side prepared statements (or the text
//! protocol with `--db-ps-mode disable`, see [`crate::driver::PsMode`]), one
//! connection per worker, and what a decrypting proxy does with each statement.
//!
//! Statements (sysbench `oltp_common.lua`), prepared for every table on every
//! connection (only those the workload uses, as sysbench):
//!
//! | kind | plaintext SQL | encrypted SQL (the proxy's rewrite) |
//! |---|---|---|
//! | point select | `SELECT c FROM sbtestN WHERE id=?` | same; `c` opened with the AAD of (table, `c`, id) |
//! | simple range | `SELECT c FROM sbtestN WHERE id BETWEEN ? AND ?` | `SELECT id, c ...`: the id is needed for the AAD |
//! | sum range | `SELECT SUM(k) FROM sbtestN WHERE id BETWEEN ? AND ?` | same (`k` is plaintext) |
//! | order range | `... ORDER BY c` | `SELECT id, c ...`, opened, then sorted in the client |
//! | distinct range | `SELECT DISTINCT c ... ORDER BY c` | `SELECT id, c ...`, opened, sorted and deduplicated in the client |
//! | index update | `UPDATE sbtestN SET k=k+1 WHERE id=?` | same (`k` is plaintext) |
//! | non-index update | `UPDATE sbtestN SET c=? WHERE id=?` | same; the new `c` sealed with the AAD of (table, `c`, id) |
//! | delete | `DELETE FROM sbtestN WHERE id=?` | same |
//! | insert | `INSERT INTO sbtestN (id, k, c, pad) VALUES (?, ?, ?, ?)` | same; `c` and `pad` sealed |
//! | `oltp_insert` | text `INSERT ... VALUES (0, k, 'c', 'pad')` (auto-increment id) | an explicit unique negative id (the AAD needs the id before the row exists), `c` and `pad` sealed, as `X'..'` |
//!
//! ORDER BY and DISTINCT on ciphertext would be wrong (random nonces make every
//! envelope distinct and unordered), so the proxy sorts and deduplicates after
//! decryption; results equal the plaintext server's byte for byte.
//!
//! Counting (sysbench's): a statement that returns a result set is a read; DML
//! that changed rows is a write; BEGIN, COMMIT and DML that matched nothing are
//! other.

mod error;
mod options;
pub mod pgbench;
mod reads;
pub(crate) mod scripts;
mod session;
mod writes;

pub use error::QueryError;
pub use options::{
    LATENCY_LIMIT_RESOLUTION, Options, Params, parse_latency_limit, parse_on_off, parse_tls,
};
pub use session::Session;

/// The workload (`--workload`): sysbench 1.0's OLTP scripts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
pub enum Workload {
    /// BEGIN, 10 point selects, simple, sum, order and distinct ranges, COMMIT
    /// (16 queries: 14 read, 2 other).
    #[value(name = "oltp_read_only")]
    #[serde(rename = "oltp_read_only")]
    OltpReadOnly,
    /// One point select, no BEGIN/COMMIT (1 read query).
    #[value(name = "oltp_point_select")]
    #[serde(rename = "oltp_point_select")]
    OltpPointSelect,
    /// read_only's reads plus an index update, a non-index update and a
    /// delete + insert, in BEGIN/COMMIT (20 queries: 14 read, 4 write, 2 other).
    #[value(name = "oltp_read_write")]
    #[serde(rename = "oltp_read_write")]
    OltpReadWrite,
    /// BEGIN, index update, non-index update, delete + insert, COMMIT (6 queries).
    #[value(name = "oltp_write_only")]
    #[serde(rename = "oltp_write_only")]
    OltpWriteOnly,
    /// `--index-updates` index updates on one table (1 query by default).
    #[value(name = "oltp_update_index")]
    #[serde(rename = "oltp_update_index")]
    OltpUpdateIndex,
    /// `--non-index-updates` non-index updates on one table (1 query by default).
    #[value(name = "oltp_update_non_index")]
    #[serde(rename = "oltp_update_non_index")]
    OltpUpdateNonIndex,
    /// One INSERT over the text protocol (auto-increment id).
    #[value(name = "oltp_insert")]
    #[serde(rename = "oltp_insert")]
    OltpInsert,
    /// One DELETE by id (rows are not put back: later deletes of the same id
    /// count as other).
    #[value(name = "oltp_delete")]
    #[serde(rename = "oltp_delete")]
    OltpDelete,
    /// sysbench's `select_random_points.lua`: `SELECT id, k, c, pad FROM
    /// sbtest1 WHERE k IN (?, ...)` with `--random-points` values drawn from the
    /// thread's own slice of 1..=table-size (1 read query). Lookups by equality
    /// on `k`: under column encryption `k` must be plaintext or deterministic.
    #[value(name = "select_random_points")]
    #[serde(rename = "select_random_points")]
    SelectRandomPoints,
    /// pgbench's default script `tpcb-like`: BEGIN, UPDATE accounts, SELECT
    /// abalance, UPDATE tellers, UPDATE branches, INSERT history, END (7
    /// queries: 1 read, 4 write, 2 other). Tables from `prepare --workload
    /// pgbench_* --scale N` or `pgbench -i`.
    #[value(name = "pgbench_tpcb_like")]
    #[serde(rename = "pgbench_tpcb_like")]
    PgbenchTpcbLike,
    /// pgbench's `simple-update` (`-N`): tpcb-like without the tellers and
    /// branches updates (5 queries).
    #[value(name = "pgbench_simple_update")]
    #[serde(rename = "pgbench_simple_update")]
    PgbenchSimpleUpdate,
    /// pgbench's `select-only` (`-S`): `SELECT abalance FROM pgbench_accounts
    /// WHERE aid = ?` (1 read query).
    #[value(name = "pgbench_select_only")]
    #[serde(rename = "pgbench_select_only")]
    PgbenchSelectOnly,
}

/// Which statements a workload prepares for each table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatementSet {
    /// Point select.
    pub point: bool,
    /// Simple, sum, order and distinct ranges.
    pub ranges: bool,
    /// Index update.
    pub index_update: bool,
    /// Non-index update.
    pub non_index_update: bool,
    /// Delete and insert.
    pub delete_insert: bool,
    /// Delete only (`oltp_delete`).
    pub delete: bool,
    /// `SELECT id, k, c, pad ... WHERE k IN (...)`, on `sbtest1` only
    /// (`select_random_points`).
    pub random_points: bool,
}

impl StatementSet {
    /// Statements per table.
    pub fn count(&self) -> usize {
        usize::from(self.point)
            + 4 * usize::from(self.ranges)
            + usize::from(self.index_update)
            + usize::from(self.non_index_update)
            + 2 * usize::from(self.delete_insert)
            + usize::from(self.delete && !self.delete_insert)
            + usize::from(self.random_points)
    }
}

impl Workload {
    /// sysbench's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Workload::OltpReadOnly => "oltp_read_only",
            Workload::OltpPointSelect => "oltp_point_select",
            Workload::OltpReadWrite => "oltp_read_write",
            Workload::OltpWriteOnly => "oltp_write_only",
            Workload::OltpUpdateIndex => "oltp_update_index",
            Workload::OltpUpdateNonIndex => "oltp_update_non_index",
            Workload::OltpInsert => "oltp_insert",
            Workload::OltpDelete => "oltp_delete",
            Workload::SelectRandomPoints => "select_random_points",
            Workload::PgbenchTpcbLike => "pgbench_tpcb_like",
            Workload::PgbenchSimpleUpdate => "pgbench_simple_update",
            Workload::PgbenchSelectOnly => "pgbench_select_only",
        }
    }

    /// Whether it is one of pgbench's built-in scripts (pgbench's tables,
    /// `--scale`), not sysbench's.
    pub fn is_pgbench(self) -> bool {
        matches!(
            self,
            Workload::PgbenchTpcbLike | Workload::PgbenchSimpleUpdate | Workload::PgbenchSelectOnly
        )
    }

    /// pgbench's name of the script (`-b NAME`), e.g. `tpcb-like`; `None`
    /// for sysbench's workloads.
    pub fn pgbench_script(self) -> Option<&'static str> {
        match self {
            Workload::PgbenchTpcbLike => Some("tpcb-like"),
            Workload::PgbenchSimpleUpdate => Some("simple-update"),
            Workload::PgbenchSelectOnly => Some("select-only"),
            _ => None,
        }
    }

    /// Whether the workload changes rows.
    pub fn writes(self) -> bool {
        !matches!(
            self,
            Workload::OltpReadOnly
                | Workload::OltpPointSelect
                | Workload::SelectRandomPoints
                | Workload::PgbenchSelectOnly
        )
    }

    /// The statements the workload prepares per table (sysbench's
    /// `prepare_statements` of each script); `range_selects` is `--range-selects`.
    pub fn statements(self, range_selects: bool) -> StatementSet {
        let none = StatementSet::default();
        match self {
            Workload::OltpPointSelect => StatementSet {
                point: true,
                ..none
            },
            Workload::OltpReadOnly => StatementSet {
                point: true,
                ranges: range_selects,
                ..none
            },
            Workload::OltpReadWrite => StatementSet {
                point: true,
                ranges: range_selects,
                index_update: true,
                non_index_update: true,
                delete_insert: true,
                delete: false,
                random_points: false,
            },
            Workload::OltpWriteOnly => StatementSet {
                index_update: true,
                non_index_update: true,
                delete_insert: true,
                ..none
            },
            Workload::OltpUpdateIndex => StatementSet {
                index_update: true,
                ..none
            },
            Workload::OltpUpdateNonIndex => StatementSet {
                non_index_update: true,
                ..none
            },
            Workload::OltpInsert => none,
            Workload::OltpDelete => StatementSet {
                delete: true,
                ..none
            },
            Workload::SelectRandomPoints => StatementSet {
                random_points: true,
                ..none
            },
            // pgbench's statements are not per sbtest table.
            Workload::PgbenchTpcbLike
            | Workload::PgbenchSimpleUpdate
            | Workload::PgbenchSelectOnly => none,
        }
    }

    /// Server-side prepared statements one connection holds for `tables` tables
    /// (`select_random_points` prepares one, for `sbtest1`).
    pub fn statements_per_connection(self, tables: u32, range_selects: bool) -> usize {
        if self == Workload::SelectRandomPoints {
            return 1;
        }
        if self.is_pgbench() {
            return pgbench::statements(self);
        }
        self.statements_per_table(range_selects) * tables as usize
    }

    /// Server-side prepared statements per table (sysbench prepares the
    /// statements a workload uses for every table on every connection).
    pub fn statements_per_table(self, range_selects: bool) -> usize {
        self.statements(range_selects).count()
    }
}

/// A range query kind that returns `c` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeKind {
    /// `SELECT c ... BETWEEN`.
    Simple,
    /// `SELECT c ... BETWEEN ... ORDER BY c`.
    Order,
    /// `SELECT DISTINCT c ... BETWEEN ... ORDER BY c`.
    Distinct,
}

/// One row of `select_random_points`, in plaintext.
#[derive(Clone, PartialEq, Eq)]
pub struct PointRow {
    /// Primary key.
    pub id: i64,
    /// `k`.
    pub k: i64,
    /// `c` (plaintext; never printed by `Debug`).
    pub c: Vec<u8>,
    /// `pad` (plaintext; never printed by `Debug`).
    pub pad: Vec<u8>,
}

impl std::fmt::Debug for PointRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PointRow")
            .field("id", &self.id)
            .field("k", &self.k)
            .field("c_len", &self.c.len())
            .field("pad_len", &self.pad.len())
            .finish()
    }
}
