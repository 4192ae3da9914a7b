//! What is sent: sysbench 1.0's OLTP transactions (`oltp_common.lua` and the
//! eight `oltp_*.lua` scripts) over server-side prepared statements (or the text
//! protocol with `--db-ps-mode disable`, see [`crate::ps_mode`]), one
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

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use encbench_crypto::envelope::EnvelopeError;
use mysql_async::prelude::*;
use mysql_async::{Conn, Opts, Value};

use crate::codec::{Codec, ColumnMode, k_from_plaintext, k_plaintext};
use crate::measure::{Aggregate, StatementKind};
use crate::ps_mode::{PsMode, Stmt};
use crate::rand::SbRng;
use crate::schema::table_name;

/// sysbench's default list of ignorable errors (`--mysql-ignore-errors`):
/// 1213 deadlock, 1020 record changed, 1205 lock wait timeout.
pub const IGNORABLE_ERRORS: [u16; 3] = [1213, 1020, 1205];

/// Server-side prepared statements per table for `oltp_read_only` with range
/// selects on (point, simple, sum, order, distinct).
pub const READ_ONLY_STATEMENTS_PER_TABLE: usize = 5;

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
    /// Every workload.
    pub const ALL: [Workload; 9] = [
        Workload::OltpReadOnly,
        Workload::OltpPointSelect,
        Workload::OltpReadWrite,
        Workload::OltpWriteOnly,
        Workload::OltpUpdateIndex,
        Workload::OltpUpdateNonIndex,
        Workload::OltpInsert,
        Workload::OltpDelete,
        Workload::SelectRandomPoints,
    ];

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
        }
    }

    /// Whether the workload changes rows.
    pub fn writes(self) -> bool {
        !matches!(
            self,
            Workload::OltpReadOnly | Workload::OltpPointSelect | Workload::SelectRandomPoints
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
        }
    }

    /// Server-side prepared statements one connection holds for `tables` tables
    /// (`select_random_points` prepares one, for `sbtest1`).
    pub fn statements_per_connection(self, tables: u32, range_selects: bool) -> usize {
        if self == Workload::SelectRandomPoints {
            return 1;
        }
        self.statements_per_table(range_selects) * tables as usize
    }

    /// Server-side prepared statements per table (sysbench prepares the
    /// statements a workload uses for every table on every connection).
    pub fn statements_per_table(self, range_selects: bool) -> usize {
        self.statements(range_selects).count()
    }
}

/// Parses sysbench's boolean option values: on/off, true/false, yes/no, 1/0.
///
/// # Errors
/// Any other word.
pub fn parse_on_off(s: &str) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(format!("{s:?}: use on or off")),
    }
}

/// sysbench's OLTP options (`oltp_common.lua`), with its defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Options {
    /// Rows per range query (ids [x, x+range-size-1], not clamped to the table).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub range_size: u32,
    /// Point selects per transaction.
    #[arg(long, default_value_t = 10)]
    pub point_selects: u32,
    /// Simple range selects per transaction.
    #[arg(long, default_value_t = 1)]
    pub simple_ranges: u32,
    /// SELECT SUM() ranges per transaction.
    #[arg(long, default_value_t = 1)]
    pub sum_ranges: u32,
    /// SELECT ... ORDER BY ranges per transaction.
    #[arg(long, default_value_t = 1)]
    pub order_ranges: u32,
    /// SELECT DISTINCT ranges per transaction.
    #[arg(long, default_value_t = 1)]
    pub distinct_ranges: u32,
    /// Index updates (k=k+1) per transaction.
    #[arg(long, default_value_t = 1)]
    pub index_updates: u32,
    /// Non-index updates (new c) per transaction.
    #[arg(long, default_value_t = 1)]
    pub non_index_updates: u32,
    /// DELETE + INSERT pairs per transaction.
    #[arg(long, default_value_t = 1)]
    pub delete_inserts: u32,
    /// Range selects on or off (off: none of the four range kinds is prepared or run).
    #[arg(long, default_value = "on", value_name = "on|off", num_args = 0..=1,
          default_missing_value = "on", value_parser = parse_on_off)]
    pub range_selects: bool,
    /// No BEGIN/COMMIT: every statement in autocommit mode.
    #[arg(long, default_value = "off", value_name = "on|off", num_args = 0..=1,
          default_missing_value = "on", value_parser = parse_on_off)]
    pub skip_trx: bool,
    /// AUTO_INCREMENT id (oltp_insert sends id 0 and the server picks it); off:
    /// oltp_insert sends a unique client-made id.
    #[arg(long, default_value = "on", value_name = "on|off", num_args = 0..=1,
          default_missing_value = "on", value_parser = parse_on_off)]
    pub auto_inc: bool,
    /// Values in select_random_points' IN (...) (sysbench's --random-points).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    #[serde(default)]
    pub random_points: u32,
    /// sysbench's `--db-ps-mode`: auto (server-side prepared statements) or
    /// disable (the text protocol, values inlined in the SQL; needs no
    /// max_prepared_stmt_count).
    #[arg(long, default_value = "auto", value_name = "auto|disable",
          value_parser = crate::ps_mode::parse_ps_mode)]
    #[serde(default)]
    pub db_ps_mode: PsMode,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            range_size: 100,
            point_selects: 10,
            simple_ranges: 1,
            sum_ranges: 1,
            order_ranges: 1,
            distinct_ranges: 1,
            index_updates: 1,
            non_index_updates: 1,
            delete_inserts: 1,
            range_selects: true,
            skip_trx: false,
            auto_inc: true,
            random_points: 10,
            db_ps_mode: PsMode::Auto,
        }
    }
}

/// Workload parameters: the data set's shape and sysbench's options.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Params {
    /// Tables (`--tables`).
    pub tables: u32,
    /// Rows per table (`--table-size`); ids are drawn from 1..=table_size.
    pub table_size: u32,
    /// sysbench's options.
    pub opts: Options,
    /// This worker's index, 0-based (sysbench's `thread_id`).
    pub thread: u32,
    /// Workers in the run (sysbench's `--threads`).
    pub threads: u32,
}

impl Params {
    /// `tables` x `table_size` with sysbench's default options, for worker 0 of 1.
    pub fn new(tables: u32, table_size: u32) -> Params {
        Params {
            tables,
            table_size,
            opts: Options::default(),
            thread: 0,
            threads: 1,
        }
    }

    /// `select_random_points`' slice of k values for this worker, as sysbench's
    /// Lua computes it: `rlen = table_size / threads` (a floating-point
    /// division in Lua), `rmin = rlen * thread_id`, `rmax = rmin + rlen`, both
    /// truncated to integers where they are passed to `sb_rand`.
    pub fn random_points_range(&self) -> (u32, u32) {
        let rlen = f64::from(self.table_size) / f64::from(self.threads.max(1));
        let rmin = rlen * f64::from(self.thread);
        // Truncation, as the Lua-to-C call does; the values are in u32 range.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let (lo, hi) = (rmin as u32, (rmin + rlen) as u32);
        (lo, hi)
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

/// Errors of one query or transaction.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The driver or server failed.
    #[error(transparent)]
    Db(#[from] mysql_async::Error),
    /// A stored value did not open.
    #[error("{table}.{column} id={id}: {source}")]
    Open {
        /// Table name.
        table: String,
        /// Column name.
        column: &'static str,
        /// Primary key.
        id: i64,
        /// Why.
        source: EnvelopeError,
    },
    /// A new value could not be sealed.
    #[error("sealing {table}.{column} id={id}: {source}")]
    Seal {
        /// Table name.
        table: String,
        /// Column name.
        column: &'static str,
        /// Primary key.
        id: i64,
        /// Why.
        source: EnvelopeError,
    },
    /// The connection was lost and reconnecting failed for the whole window.
    #[error(
        "lost the connection to the server and could not reconnect within {secs} s ({source}): check that the server is up"
    )]
    ConnectionLost {
        /// The reconnect window, s.
        secs: u64,
        /// The last reconnect error.
        source: mysql_async::Error,
    },
    /// The server returned something the workload does not expect.
    #[error("unexpected result: {0}")]
    Protocol(String),
    /// TLS was asked for but the connection is not encrypted.
    #[error(transparent)]
    Tls(#[from] crate::security::TlsCheckError),
}

impl QueryError {
    /// A server error that sysbench ignores by default (the event is restarted).
    pub fn is_ignorable(&self) -> bool {
        matches!(self, QueryError::Db(mysql_async::Error::Server(e)) if IGNORABLE_ERRORS.contains(&e.code))
    }

    /// The connection is gone (sysbench's 2013, 2055, 2006, 2011): reconnect.
    pub fn is_connection_lost(&self) -> bool {
        match self {
            QueryError::Db(mysql_async::Error::Io(_)) => true,
            QueryError::Db(mysql_async::Error::Driver(d)) => {
                matches!(
                    d,
                    mysql_async::DriverError::ConnectionClosed
                        | mysql_async::DriverError::PoolDisconnected
                )
            }
            QueryError::Db(mysql_async::Error::Server(e)) => {
                matches!(e.code, 2013 | 2055 | 2006 | 2011 | 1927 | 1053)
            }
            _ => false,
        }
    }
}

#[derive(Default)]
struct TableStatements {
    point: Option<Stmt>,
    ranges: Option<RangeStatements>,
    index_update: Option<IndexUpdate>,
    non_index_update: Option<Stmt>,
    delete: Option<Stmt>,
    insert: Option<Stmt>,
    random_points: Option<Stmt>,
}

/// `k=k+1`: one statement on plaintext `k`; with `k` encrypted the proxy's
/// read-modify-write: a locking read of the stored `k`, then an update that
/// writes the new envelope only if the stored one is unchanged.
enum IndexUpdate {
    Plain(Stmt),
    Encrypted { read: Stmt, write: Stmt },
}

struct RangeStatements {
    simple: Stmt,
    sum: Stmt,
    order: Stmt,
    distinct: Stmt,
}

/// Unique ids for `oltp_insert` without auto-increment (and under column
/// encryption, where the AAD needs the id before the row exists): negative
/// 32-bit ids, so they never meet prepared rows (1..=table_size) or
/// auto-increment ones; a bijection of a process-wide counter, so no two are
/// equal within a process, with a random offset per process.
fn unique_insert_id() -> i64 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    static OFFSET: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    let offset = *OFFSET.get_or_init(|| {
        use rand::RngCore;
        rand::rng().next_u32()
    });
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    // Multiplying by an odd constant and adding are bijections mod 2^31.
    let x = n.wrapping_mul(0x6b43_a9b5).wrapping_add(offset) & 0x7fff_ffff;
    -i64::from(x) - 1
}

/// One worker's connection with its prepared statements and column codec.
pub struct Session {
    conn: Conn,
    opts: Opts,
    workload: Workload,
    codec: Codec,
    params: Params,
    tables: Vec<(String, TableStatements)>,
    rows: Vec<Vec<u8>>,
    /// Text mode's SQL, reused.
    sql: String,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("workload", &self.workload)
            .field("encrypted", &self.codec.is_encrypted())
            .field("tables", &self.tables.len())
            .finish_non_exhaustive()
    }
}

/// Times one statement into `agg` under `kind`.
macro_rules! timed {
    ($agg:expr, $kind:expr, $body:expr) => {{
        let t0 = Instant::now();
        let r = $body;
        $agg.record_statement($kind, t0.elapsed());
        r
    }};
}

impl Session {
    /// Connects with `opts` (database and statement cache set, see
    /// [`crate::schema::conn_opts`]) and prepares `workload`'s statements for
    /// `params.tables` tables.
    ///
    /// # Errors
    /// Connection or prepare failures.
    pub async fn connect(
        opts: Opts,
        workload: Workload,
        codec: Codec,
        params: Params,
    ) -> Result<Session, QueryError> {
        let conn = connect_checked(&opts).await?;
        let mut s = Session {
            conn,
            opts,
            workload,
            codec,
            params,
            tables: Vec::new(),
            rows: Vec::with_capacity(128),
            sql: String::with_capacity(256),
        };
        s.prepare_all().await?;
        Ok(s)
    }

    async fn prepare_all(&mut self) -> Result<(), QueryError> {
        self.tables.clear();
        let enc = self.codec.mode("c") != ColumnMode::Plain;
        let k_enc = self.codec.mode("k") != ColumnMode::Plain;
        let set = self.workload.statements(self.params.opts.range_selects);
        for n in 1..=self.params.tables {
            let t = table_name(n);
            let range_cols = if enc { "id, c" } else { "c" };
            let between = "WHERE id BETWEEN ? AND ?";
            let mut st = TableStatements::default();
            if set.point {
                st.point = Some(self.prep(format!("SELECT c FROM {t} WHERE id=?")).await?);
            }
            if set.ranges {
                st.ranges = Some(RangeStatements {
                    simple: self
                        .prep(format!("SELECT {range_cols} FROM {t} {between}"))
                        .await?,
                    sum: self
                        .prep(if k_enc {
                            format!("SELECT id, k FROM {t} {between}")
                        } else {
                            format!("SELECT SUM(k) FROM {t} {between}")
                        })
                        .await?,
                    order: self
                        .prep(if enc {
                            format!("SELECT id, c FROM {t} {between}")
                        } else {
                            format!("SELECT c FROM {t} {between} ORDER BY c")
                        })
                        .await?,
                    distinct: self
                        .prep(if enc {
                            format!("SELECT id, c FROM {t} {between}")
                        } else {
                            format!("SELECT DISTINCT c FROM {t} {between} ORDER BY c")
                        })
                        .await?,
                });
            }
            if set.index_update {
                st.index_update = Some(if k_enc {
                    IndexUpdate::Encrypted {
                        read: self
                            .prep(format!("SELECT k FROM {t} WHERE id=? FOR UPDATE"))
                            .await?,
                        write: self
                            .prep(format!("UPDATE {t} SET k=? WHERE id=? AND k=?"))
                            .await?,
                    }
                } else {
                    IndexUpdate::Plain(
                        self.prep(format!("UPDATE {t} SET k=k+1 WHERE id=?"))
                            .await?,
                    )
                });
            }
            if set.random_points && n == 1 {
                let points = vec!["?"; self.params.opts.random_points as usize].join(", ");
                st.random_points = Some(
                    self.prep(format!(
                        "SELECT id, k, c, pad FROM {t} WHERE k IN ({points})"
                    ))
                    .await?,
                );
            }
            if set.non_index_update {
                st.non_index_update =
                    Some(self.prep(format!("UPDATE {t} SET c=? WHERE id=?")).await?);
            }
            if set.delete_insert || set.delete {
                st.delete = Some(self.prep(format!("DELETE FROM {t} WHERE id=?")).await?);
            }
            if set.delete_insert {
                st.insert = Some(
                    self.prep(format!(
                        "INSERT INTO {t} (id, k, c, pad) VALUES (?, ?, ?, ?)"
                    ))
                    .await?,
                );
            }
            self.tables.push((t, st));
        }
        Ok(())
    }

    /// Prepares `sql` (`--db-ps-mode auto`), or keeps it for the text protocol
    /// (`disable`; byte strings inlined as `X'..'` under column encryption).
    async fn prep(&mut self, sql: String) -> Result<Stmt, QueryError> {
        let (mode, hex) = (self.params.opts.db_ps_mode, self.codec.is_encrypted());
        Ok(Stmt::new(&mut self.conn, mode, sql, hex).await?)
    }

    /// Drops the connection and connects again, re-preparing every statement
    /// (what sysbench does after errors 2013, 2055, 2006, 2011).
    ///
    /// # Errors
    /// The server is still unreachable.
    pub async fn reconnect(&mut self) -> Result<(), QueryError> {
        self.conn = connect_checked(&self.opts).await?;
        self.prepare_all().await
    }

    /// Closes the connection politely.
    pub async fn close(self) {
        let _ = self.conn.disconnect().await;
    }

    /// Sends a text-protocol statement that returns no rows (BEGIN, COMMIT, ROLLBACK).
    ///
    /// # Errors
    /// Server or connection errors.
    pub async fn text(&mut self, sql: &str) -> Result<(), QueryError> {
        Ok(self.conn.query_drop(sql).await?)
    }

    /// `SELECT c FROM sbtestT WHERE id=?`; returns the plaintext `c` values (0 or 1).
    ///
    /// # Errors
    /// Server errors, or a value that does not open.
    pub async fn point_select(&mut self, table: u32, id: u32) -> Result<&[Vec<u8>], QueryError> {
        self.rows.clear();
        let (name, st) = stmt(&self.tables, self.workload, table, |t| t.point.as_ref())?;
        let rows = &mut self.rows;
        st.for_each(&mut self.conn, vec![id.into()], &mut self.sql, |mut row| {
            if let Some(Value::Bytes(v)) = row.take::<Value, _>(0) {
                rows.push(v);
            }
        })
        .await?;
        for v in &mut self.rows {
            open(&self.codec, name, "c", i64::from(id), v)?;
        }
        Ok(&self.rows)
    }

    /// A range query over ids `[lo, hi]`; returns the plaintext `c` values in the
    /// order (and with the deduplication) the plaintext query gives.
    ///
    /// # Errors
    /// Server errors, or a value that does not open.
    pub async fn range(
        &mut self,
        kind: RangeKind,
        table: u32,
        lo: u32,
        hi: u32,
    ) -> Result<&[Vec<u8>], QueryError> {
        self.rows.clear();
        let enc = self.codec.mode("c") != ColumnMode::Plain;
        let (name, stmt) = stmt(&self.tables, self.workload, table, |t| {
            t.ranges.as_ref().map(|r| match kind {
                RangeKind::Simple => &r.simple,
                RangeKind::Order => &r.order,
                RangeKind::Distinct => &r.distinct,
            })
        })?;
        let rows = &mut self.rows;
        let codec = &self.codec;
        let mut failure = None;
        let params = vec![lo.into(), hi.into()];
        stmt.for_each(&mut self.conn, params, &mut self.sql, |mut row| {
            if failure.is_some() {
                return;
            }
            if enc {
                let id: Option<i64> = row.take(0);
                if let (Some(id), Some(Value::Bytes(mut v))) = (id, row.take::<Value, _>(1)) {
                    match open(codec, name, "c", id, &mut v) {
                        Ok(()) => rows.push(v),
                        Err(e) => failure = Some(e),
                    }
                }
            } else if let Some(Value::Bytes(v)) = row.take::<Value, _>(0) {
                rows.push(v);
            }
        })
        .await?;
        if let Some(e) = failure {
            return Err(e);
        }
        if enc {
            match kind {
                RangeKind::Simple => {}
                RangeKind::Order => self.rows.sort_unstable(),
                RangeKind::Distinct => {
                    self.rows.sort_unstable();
                    self.rows.dedup();
                }
            }
        }
        Ok(&self.rows)
    }

    /// `SELECT SUM(k) FROM sbtestT WHERE id BETWEEN lo AND hi`; `None` when no row matched.
    ///
    /// # Errors
    /// Server errors.
    pub async fn sum_range(
        &mut self,
        table: u32,
        lo: u32,
        hi: u32,
    ) -> Result<Option<i64>, QueryError> {
        let (name, st) = stmt(&self.tables, self.workload, table, |t| {
            t.ranges.as_ref().map(|r| &r.sum)
        })?;
        if self.codec.mode("k") != ColumnMode::Plain {
            // The proxy's SUM: every k in the range, opened and added up.
            let mut rows: Vec<(Option<i64>, Option<Vec<u8>>)> = Vec::new();
            st.for_each(
                &mut self.conn,
                vec![lo.into(), hi.into()],
                &mut self.sql,
                |mut row| {
                    rows.push((row.take(0), row.take(1)));
                },
            )
            .await?;
            let mut sum: Option<i64> = None;
            for row in rows {
                let (Some(id), Some(mut k)) = row else {
                    return Err(QueryError::Protocol(format!(
                        "{name}: a row without id or k"
                    )));
                };
                open(&self.codec, name, "k", id, &mut k)?;
                let k = k_from_plaintext(&k)
                    .map_err(|e| QueryError::Protocol(format!("{name} id={id}: {e}")))?;
                sum = Some(sum.unwrap_or(0) + k);
            }
            return Ok(sum);
        }
        let params = vec![lo.into(), hi.into()];
        let sum: Option<Option<String>> = st.first(&mut self.conn, params, &mut self.sql).await?;
        match sum.flatten() {
            None => Ok(None),
            Some(s) => s
                .parse::<i64>()
                .map(Some)
                .map_err(|_| QueryError::Protocol(format!("SUM(k) returned {s:?}"))),
        }
    }

    /// Runs a prepared DML statement; true when it changed rows (sysbench's
    /// write, else other).
    async fn dml(
        &mut self,
        table: u32,
        pick: impl FnOnce(&TableStatements) -> Option<&Stmt>,
        params: Vec<Value>,
    ) -> Result<bool, QueryError> {
        let (_, st) = stmt(&self.tables, self.workload, table, pick)?;
        st.drop_result(&mut self.conn, params, &mut self.sql)
            .await?;
        Ok(self.conn.affected_rows() > 0)
    }

    /// The stored form of a `c` or `pad` value of `table` at `id`: the value,
    /// or its envelope.
    fn seal(
        &self,
        table: u32,
        column: &'static str,
        id: i64,
        plain: &[u8],
    ) -> Result<Vec<u8>, QueryError> {
        let name = table_name(table);
        let mut out = Vec::with_capacity(plain.len() + 64);
        self.codec
            .seal(&name, column, id, plain, &mut out)
            .map_err(|source| QueryError::Seal {
                table: name.clone(),
                column,
                id,
                source,
            })?;
        Ok(out)
    }

    /// `UPDATE sbtestT SET k=k+1 WHERE id=?`; true when a row changed.
    ///
    /// # Errors
    /// Server errors.
    pub async fn index_update(&mut self, table: u32, id: u32) -> Result<bool, QueryError> {
        let (name, st) = self
            .tables
            .get((table as usize).wrapping_sub(1))
            .ok_or_else(|| QueryError::Protocol(format!("no table {table}")))?;
        let (st, write) = match st.index_update.as_ref() {
            None => {
                return Err(QueryError::Protocol(format!(
                    "{} does not prepare this statement",
                    self.workload.name()
                )));
            }
            Some(IndexUpdate::Plain(s)) => {
                s.drop_result(&mut self.conn, vec![id.into()], &mut self.sql)
                    .await?;
                return Ok(self.conn.affected_rows() > 0);
            }
            Some(IndexUpdate::Encrypted { read, write }) => (read, write),
        };
        // Read, add one, re-seal, and write only if nobody changed k meanwhile
        // (the locking read holds the row inside a transaction; in autocommit
        // mode the conditional write catches a concurrent change, and the
        // proxy retries).
        for _ in 0..16 {
            let old: Option<Vec<u8>> = st
                .first(&mut self.conn, vec![id.into()], &mut self.sql)
                .await?;
            let Some(old) = old else {
                return Ok(false);
            };
            let mut plain = old.clone();
            open(&self.codec, name, "k", i64::from(id), &mut plain)?;
            let k = k_from_plaintext(&plain)
                .map_err(|e| QueryError::Protocol(format!("{name} id={id}: {e}")))?;
            let new = self.seal(table, "k", i64::from(id), &k_plaintext(k + 1))?;
            write
                .drop_result(
                    &mut self.conn,
                    vec![Value::Bytes(new), id.into(), Value::Bytes(old)],
                    &mut self.sql,
                )
                .await?;
            if self.conn.affected_rows() > 0 {
                return Ok(true);
            }
        }
        Err(QueryError::Protocol(format!(
            "{name} id={id}: k changed under 16 read-modify-write attempts in a row"
        )))
    }

    /// `UPDATE sbtestT SET c=? WHERE id=?` with `c` sealed for (table, c, id)
    /// under encryption; true when a row changed.
    ///
    /// # Errors
    /// Server errors, or sealing failed.
    pub async fn non_index_update(
        &mut self,
        table: u32,
        id: u32,
        c: &[u8],
    ) -> Result<bool, QueryError> {
        let c = self.seal(table, "c", i64::from(id), c)?;
        self.dml(
            table,
            |t| t.non_index_update.as_ref(),
            vec![Value::Bytes(c), Value::from(id)],
        )
        .await
    }

    /// `DELETE FROM sbtestT WHERE id=?`; true when a row was deleted.
    ///
    /// # Errors
    /// Server errors.
    pub async fn delete(&mut self, table: u32, id: u32) -> Result<bool, QueryError> {
        self.dml(table, |t| t.delete.as_ref(), vec![Value::from(id)])
            .await
    }

    /// `INSERT INTO sbtestT (id, k, c, pad) VALUES (?, ?, ?, ?)` with `c` and
    /// `pad` sealed under encryption; true when a row was inserted.
    ///
    /// # Errors
    /// Server errors (e.g. a duplicate id), or sealing failed.
    pub async fn insert(
        &mut self,
        table: u32,
        id: u32,
        k: u32,
        c: &[u8],
        pad: &[u8],
    ) -> Result<bool, QueryError> {
        let c = self.seal(table, "c", i64::from(id), c)?;
        let pad = self.seal(table, "pad", i64::from(id), pad)?;
        let k = if self.codec.mode("k") == ColumnMode::Plain {
            Value::from(k)
        } else {
            Value::Bytes(self.seal(table, "k", i64::from(id), &k_plaintext(i64::from(k)))?)
        };
        self.dml(
            table,
            |t| t.insert.as_ref(),
            vec![Value::from(id), k, Value::Bytes(c), Value::Bytes(pad)],
        )
        .await
    }

    /// `oltp_insert`'s statement, over the text protocol as sysbench sends it:
    /// id 0 (auto-increment) in plaintext with `--auto-inc on`, else a unique
    /// negative id; `c` and `pad` as quoted digits, or envelopes as `X'..'`.
    /// True when a row was inserted.
    ///
    /// # Errors
    /// Server errors, or sealing failed.
    pub async fn text_insert(
        &mut self,
        table: u32,
        k: u32,
        c: &[u8],
        pad: &[u8],
    ) -> Result<bool, QueryError> {
        let enc = self.codec.is_encrypted();
        let id = if self.params.opts.auto_inc && !enc {
            0
        } else {
            unique_insert_id()
        };
        let literal = |v: &[u8], column: &str| -> String {
            if self.codec.mode(column) != ColumnMode::Plain {
                let mut s = String::with_capacity(3 + 2 * v.len());
                s.push_str("X'");
                for b in v {
                    use std::fmt::Write as _;
                    let _ = write!(s, "{b:02x}");
                }
                s.push('\'');
                s
            } else {
                // sysbench's values are digits and '-': nothing to escape.
                format!("'{}'", String::from_utf8_lossy(v))
            }
        };
        let c = literal(&self.seal(table, "c", id, c)?, "c");
        let pad = literal(&self.seal(table, "pad", id, pad)?, "pad");
        let k = if self.codec.mode("k") == ColumnMode::Plain {
            k.to_string()
        } else {
            literal(&self.seal(table, "k", id, &k_plaintext(i64::from(k)))?, "k")
        };
        let sql = format!(
            "INSERT INTO {} (id, k, c, pad) VALUES ({id}, {k}, {c}, {pad})",
            table_name(table)
        );
        self.conn.query_drop(sql).await?;
        Ok(self.conn.affected_rows() > 0)
    }

    /// `select_random_points`' query on `sbtest1`: `SELECT id, k, c, pad FROM
    /// sbtest1 WHERE k IN (ks...)`; under encryption the probe values are
    /// sealed deterministically and the rows opened. Returns the rows as
    /// `(id, k, c, pad)` plaintext, in the server's order (index order of the
    /// stored `k`: not the plaintext order when `k` is encrypted).
    ///
    /// # Errors
    /// Server errors; `ks.len()` differs from `--random-points`; `k` is
    /// encrypted but not deterministically; a value does not open.
    pub async fn random_points(&mut self, ks: &[u32]) -> Result<Vec<PointRow>, QueryError> {
        let (name, st) = stmt(&self.tables, self.workload, 1, |t| t.random_points.as_ref())?;
        if ks.len() != self.params.opts.random_points as usize {
            return Err(QueryError::Protocol(format!(
                "{} probe values for --random-points {}",
                ks.len(),
                self.params.opts.random_points
            )));
        }
        let params = match self.codec.mode("k") {
            ColumnMode::Plain => ks.iter().map(|&k| Value::from(k)).collect(),
            ColumnMode::Deterministic => {
                let mut v = Vec::with_capacity(ks.len());
                for &k in ks {
                    let mut out = Vec::new();
                    self.codec
                        .seal(name, "k", 0, &k_plaintext(i64::from(k)), &mut out)
                        .map_err(|source| QueryError::Seal {
                            table: name.to_string(),
                            column: "k",
                            id: 0,
                            source,
                        })?;
                    v.push(Value::Bytes(out));
                }
                v
            }
            ColumnMode::Randomized => {
                return Err(QueryError::Protocol(
                    "k is encrypted with random nonces: IN (...) on it cannot match; use --deterministic k".into(),
                ));
            }
        };
        let mut rows: Vec<mysql_async::Row> = Vec::new();
        st.for_each(&mut self.conn, params, &mut self.sql, |row| rows.push(row))
            .await?;
        let mut out = Vec::with_capacity(rows.len());
        for mut row in rows {
            let (Some(id), Some(k), Some(Value::Bytes(mut c)), Some(Value::Bytes(mut pad))) = (
                row.take::<i64, _>(0),
                row.take::<Value, _>(1),
                row.take::<Value, _>(2),
                row.take::<Value, _>(3),
            ) else {
                return Err(QueryError::Protocol(format!(
                    "{name}: a row of select_random_points lacks id, k, c or pad"
                )));
            };
            let k = match k {
                Value::Int(k) => k,
                Value::UInt(k) => i64::try_from(k).unwrap_or(i64::MAX),
                Value::Bytes(mut k) => {
                    open(&self.codec, name, "k", id, &mut k)?;
                    if self.codec.mode("k") == ColumnMode::Plain {
                        std::str::from_utf8(&k)
                            .ok()
                            .and_then(|s| s.parse().ok())
                            .ok_or_else(|| {
                                QueryError::Protocol(format!("{name} id={id}: k is not a number"))
                            })?
                    } else {
                        k_from_plaintext(&k)
                            .map_err(|e| QueryError::Protocol(format!("{name} id={id}: {e}")))?
                    }
                }
                other => {
                    return Err(QueryError::Protocol(format!(
                        "{name} id={id}: k is {other:?}"
                    )));
                }
            };
            open(&self.codec, name, "c", id, &mut c)?;
            open(&self.codec, name, "pad", id, &mut pad)?;
            out.push(PointRow { id, k, c, pad });
        }
        Ok(out)
    }

    /// Runs one event (transaction) of the session's workload, as sysbench's
    /// `event()`, counting its queries and timing each statement into `agg`.
    /// On error the caller decides (restart, reconnect, or stop); the counts of
    /// the failed attempt's finished queries stay recorded, as in sysbench.
    ///
    /// # Errors
    /// Any query error.
    pub async fn event(&mut self, rng: &mut SbRng, agg: &mut Aggregate) -> Result<(), QueryError> {
        let p = self.params;
        let o = p.opts;
        match self.workload {
            Workload::OltpPointSelect => {
                let t = rng.uniform(1, p.tables);
                let id = rng.id(1, p.table_size);
                timed!(
                    agg,
                    StatementKind::PointSelect,
                    self.point_select(t, id).await
                )?;
                agg.read += 1;
                Ok(())
            }
            Workload::OltpReadOnly | Workload::OltpReadWrite | Workload::OltpWriteOnly => {
                let reads = self.workload != Workload::OltpWriteOnly;
                let writes = self.workload != Workload::OltpReadOnly;
                if !o.skip_trx {
                    timed!(agg, StatementKind::Begin, self.text("BEGIN").await)?;
                    agg.other += 1;
                }
                if reads {
                    self.reads(rng, agg).await?;
                }
                if writes {
                    self.index_updates(rng, agg).await?;
                    self.non_index_updates(rng, agg).await?;
                    self.delete_inserts(rng, agg).await?;
                }
                if !o.skip_trx {
                    timed!(agg, StatementKind::Commit, self.text("COMMIT").await)?;
                    agg.other += 1;
                }
                Ok(())
            }
            Workload::OltpUpdateIndex => self.index_updates(rng, agg).await,
            Workload::OltpUpdateNonIndex => self.non_index_updates(rng, agg).await,
            Workload::OltpDelete => {
                let t = rng.uniform(1, p.tables);
                let id = rng.id(1, p.table_size);
                let changed = timed!(agg, StatementKind::Delete, self.delete(t, id).await)?;
                count_dml(agg, changed);
                Ok(())
            }
            Workload::SelectRandomPoints => {
                let (lo, hi) = p.random_points_range();
                let ks: Vec<u32> = (0..o.random_points).map(|_| rng.id(lo, hi)).collect();
                timed!(
                    agg,
                    StatementKind::RandomPoints,
                    self.random_points(&ks).await
                )?;
                agg.read += 1;
                Ok(())
            }
            Workload::OltpInsert => {
                let t = rng.uniform(1, p.tables);
                let k = rng.id(1, p.table_size);
                let c = rng.c_value();
                let pad = rng.pad_value();
                let changed = timed!(
                    agg,
                    StatementKind::Insert,
                    self.text_insert(t, k, &c, &pad).await
                )?;
                count_dml(agg, changed);
                Ok(())
            }
        }
    }

    /// Point selects and (with `--range-selects`) the four range kinds, in
    /// sysbench's order; each group picks one table.
    async fn reads(&mut self, rng: &mut SbRng, agg: &mut Aggregate) -> Result<(), QueryError> {
        let p = self.params;
        let o = p.opts;
        let t = rng.uniform(1, p.tables);
        for _ in 0..o.point_selects {
            let id = rng.id(1, p.table_size);
            timed!(
                agg,
                StatementKind::PointSelect,
                self.point_select(t, id).await
            )?;
            agg.read += 1;
        }
        if !o.range_selects {
            return Ok(());
        }
        let span = o.range_size - 1;
        let t = rng.uniform(1, p.tables);
        for _ in 0..o.simple_ranges {
            let lo = rng.id(1, p.table_size);
            timed!(
                agg,
                StatementKind::SimpleRange,
                self.range(RangeKind::Simple, t, lo, lo + span).await
            )?;
            agg.read += 1;
        }
        let t = rng.uniform(1, p.tables);
        for _ in 0..o.sum_ranges {
            let lo = rng.id(1, p.table_size);
            timed!(
                agg,
                StatementKind::SumRange,
                self.sum_range(t, lo, lo + span).await
            )?;
            agg.read += 1;
        }
        let t = rng.uniform(1, p.tables);
        for _ in 0..o.order_ranges {
            let lo = rng.id(1, p.table_size);
            timed!(
                agg,
                StatementKind::OrderRange,
                self.range(RangeKind::Order, t, lo, lo + span).await
            )?;
            agg.read += 1;
        }
        let t = rng.uniform(1, p.tables);
        for _ in 0..o.distinct_ranges {
            let lo = rng.id(1, p.table_size);
            timed!(
                agg,
                StatementKind::DistinctRange,
                self.range(RangeKind::Distinct, t, lo, lo + span).await
            )?;
            agg.read += 1;
        }
        Ok(())
    }

    async fn index_updates(
        &mut self,
        rng: &mut SbRng,
        agg: &mut Aggregate,
    ) -> Result<(), QueryError> {
        let p = self.params;
        let t = rng.uniform(1, p.tables);
        for _ in 0..p.opts.index_updates {
            let id = rng.id(1, p.table_size);
            let changed = timed!(
                agg,
                StatementKind::IndexUpdate,
                self.index_update(t, id).await
            )?;
            count_dml(agg, changed);
        }
        Ok(())
    }

    async fn non_index_updates(
        &mut self,
        rng: &mut SbRng,
        agg: &mut Aggregate,
    ) -> Result<(), QueryError> {
        let p = self.params;
        let t = rng.uniform(1, p.tables);
        for _ in 0..p.opts.non_index_updates {
            // sysbench sets the new c before drawing the id.
            let c = rng.c_value();
            let id = rng.id(1, p.table_size);
            let changed = timed!(
                agg,
                StatementKind::NonIndexUpdate,
                self.non_index_update(t, id, &c).await
            )?;
            count_dml(agg, changed);
        }
        Ok(())
    }

    async fn delete_inserts(
        &mut self,
        rng: &mut SbRng,
        agg: &mut Aggregate,
    ) -> Result<(), QueryError> {
        let p = self.params;
        let t = rng.uniform(1, p.tables);
        for _ in 0..p.opts.delete_inserts {
            let id = rng.id(1, p.table_size);
            let k = rng.id(1, p.table_size);
            let c = rng.c_value();
            let pad = rng.pad_value();
            let changed = timed!(agg, StatementKind::Delete, self.delete(t, id).await)?;
            count_dml(agg, changed);
            let changed = timed!(
                agg,
                StatementKind::Insert,
                self.insert(t, id, k, &c, &pad).await
            )?;
            count_dml(agg, changed);
        }
        Ok(())
    }
}

/// Connects; with TLS in `opts`, checks that the session really is encrypted
/// (`Ssl_cipher` non-empty), so a plaintext fallback cannot go unnoticed.
async fn connect_checked(opts: &Opts) -> Result<Conn, QueryError> {
    let mut conn = Conn::new(opts.clone()).await?;
    if opts.ssl_opts().is_some() {
        crate::security::check_tls(&mut conn).await?;
    }
    Ok(conn)
}

/// The statement `pick` selects for `table` (1-based), with the table's name.
fn stmt<'a>(
    tables: &'a [(String, TableStatements)],
    workload: Workload,
    table: u32,
    pick: impl FnOnce(&'a TableStatements) -> Option<&'a Stmt>,
) -> Result<(&'a str, &'a Stmt), QueryError> {
    let (name, st) = tables
        .get((table as usize).wrapping_sub(1))
        .ok_or_else(|| QueryError::Protocol(format!("no table {table}")))?;
    let s = pick(st).ok_or_else(|| {
        QueryError::Protocol(format!(
            "{} does not prepare this statement",
            workload.name()
        ))
    })?;
    Ok((name, s))
}

/// sysbench's class of a DML statement: write when it changed rows, else other.
fn count_dml(agg: &mut Aggregate, changed: bool) {
    if changed {
        agg.write += 1;
    } else {
        agg.other += 1;
    }
}

fn open(
    codec: &Codec,
    table: &str,
    column: &'static str,
    id: i64,
    v: &mut Vec<u8>,
) -> Result<(), QueryError> {
    codec
        .open_in_place(table, column, id, v)
        .map_err(|source| QueryError::Open {
            table: table.to_string(),
            column,
            id,
            source,
        })
}

/// When a worker stops measuring.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Unmeasured events run until this instant first (`--warmup`).
    pub warmup_until: Option<Instant>,
    /// The measured window ends here (`--time`; `None` with `--time 0`).
    pub deadline: Option<Instant>,
    /// Events left for all workers together (`--events`; `None`: no limit).
    pub events_left: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
    /// Open loop (`--rate`): this worker's mean time between event arrivals.
    pub mean_interarrival: Option<std::time::Duration>,
}

impl Limits {
    fn take_event(&self) -> bool {
        match &self.events_left {
            None => true,
            Some(left) => left
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok(),
        }
    }
}

/// Runs one event to completion, as sysbench does: an ignorable error
/// (deadlock, lock wait timeout) rolls back and restarts the event, a lost
/// connection reconnects (re-preparing every statement) and restarts it; each
/// is counted. Returns false when `stop` or the deadline cut a restart loop short.
async fn one_event(
    session: &mut Session,
    rng: &mut SbRng,
    agg: &mut Aggregate,
    reconnect_window: std::time::Duration,
    stop: &std::sync::atomic::AtomicBool,
    deadline: Option<Instant>,
) -> Result<bool, QueryError> {
    loop {
        match session.event(rng, agg).await {
            Ok(()) => return Ok(true),
            Err(e) if e.is_ignorable() => {
                agg.errors += 1;
                // InnoDB rolled back the transaction (deadlock) or only the
                // statement (lock wait timeout): end it, so the restart begins
                // afresh rather than committing half an event.
                let _ = session.text("ROLLBACK").await;
            }
            Err(e) if e.is_connection_lost() => {
                let until = Instant::now() + reconnect_window;
                loop {
                    match session.reconnect().await {
                        Ok(()) => {
                            agg.reconnects += 1;
                            break;
                        }
                        Err(_) if Instant::now() < until && !stop.load(Ordering::Relaxed) => {
                            // A blocking sleep: a worker's runtime has no time
                            // driver unless --rate needs one (see run.rs).
                            std::thread::sleep(std::time::Duration::from_millis(100));
                        }
                        Err(e2) => {
                            let source = match e2 {
                                QueryError::Db(db) => db,
                                other => return Err(other),
                            };
                            let secs = reconnect_window.as_secs();
                            return Err(QueryError::ConnectionLost { secs, source });
                        }
                    }
                }
                let _ = e;
            }
            Err(e) => return Err(e),
        }
        if stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(false);
        }
    }
}

/// Runs events on `session` (first unmeasured ones until `limits.warmup_until`)
/// until the deadline, the event budget or `stop` (Ctrl-C), and returns the
/// worker's aggregate. An event's latency runs from its first attempt to its
/// commit, restarts included, as sysbench's. `live` counts events and queries
/// for the progress display and interval lines.
///
/// # Errors
/// A non-ignorable error, a value that does not open, or a reconnect that failed
/// for `reconnect_window`; the aggregate so far is returned with it.
pub async fn run_worker(
    session: &mut Session,
    mut rng: SbRng,
    limits: &Limits,
    reconnect_window: std::time::Duration,
    live: &crate::measure::Live,
    stop: &std::sync::atomic::AtomicBool,
) -> (Aggregate, Option<QueryError>) {
    let mut agg = Aggregate::new();
    if let Some(warm_end) = limits.warmup_until {
        let mut scratch = Aggregate::new();
        while Instant::now() < warm_end && !stop.load(Ordering::Relaxed) {
            if let Err(e) = one_event(
                session,
                &mut rng,
                &mut scratch,
                reconnect_window,
                stop,
                Some(warm_end),
            )
            .await
            {
                return (agg, Some(e));
            }
        }
    }
    let start = Instant::now();
    // Open loop (--rate): events arrive at exponential intervals; an event's
    // latency starts at its arrival, so time spent queued behind a slow event
    // counts (no coordinated omission). Arrivals that are already due wait in
    // `queue` (sysbench's queue length); their times come from a generator of
    // their own, so the workload's draws do not depend on timing.
    let mut arrivals = limits.mean_interarrival.map(|_| {
        SbRng::seeded(
            u64::from(rng.uniform(0, u32::MAX - 1)),
            crate::rand::RandType::Uniform,
        )
    });
    let mut next_arrival = start;
    let mut queue: std::collections::VecDeque<Instant> = std::collections::VecDeque::new();
    let draw = |next: &mut Instant, arrivals: &mut Option<SbRng>| {
        if let (Some(mean), Some(a)) = (limits.mean_interarrival, arrivals.as_mut()) {
            *next += mean.mul_f64(a.exponential());
        }
    };
    draw(&mut next_arrival, &mut arrivals);
    while limits.deadline.is_none_or(|d| Instant::now() < d)
        && !stop.load(Ordering::Relaxed)
        && limits.take_event()
    {
        let t0 = if limits.mean_interarrival.is_none() {
            Instant::now()
        } else {
            let before = queue.len();
            if queue.is_empty() {
                if limits.deadline.is_some_and(|d| next_arrival >= d) {
                    break;
                }
                // The worker's thread has nothing else to do until then; an OS
                // sleep wakes within tens of microseconds (tokio's timer rounds
                // to whole milliseconds, which would count as latency). Slices of
                // at most 100 ms keep Ctrl-C prompt.
                loop {
                    let now = Instant::now();
                    if now >= next_arrival || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    std::thread::sleep(
                        (next_arrival - now).min(std::time::Duration::from_millis(100)),
                    );
                }
            }
            let now = Instant::now();
            while next_arrival <= now {
                queue.push_back(next_arrival);
                draw(&mut next_arrival, &mut arrivals);
            }
            let Some(t0) = queue.pop_front() else {
                continue;
            };
            live.requeue(before, queue.len());
            live.set_busy(true);
            t0
        };
        let before = agg.counts();
        let outcome = one_event(
            session,
            &mut rng,
            &mut agg,
            reconnect_window,
            stop,
            limits.deadline,
        )
        .await;
        if limits.mean_interarrival.is_some() {
            live.set_busy(false);
        }
        match outcome {
            Ok(true) => {
                let end = Instant::now();
                agg.record_event(end - t0, end);
                live.add(&before, &agg, Some(end - t0));
            }
            Ok(false) => live.add(&before, &agg, None),
            Err(e) => {
                live.requeue(queue.len(), 0);
                agg.exec_time = start.elapsed();
                live.add(&before, &agg, None);
                return (agg, Some(e));
            }
        }
    }
    live.requeue(queue.len(), 0);
    agg.exec_time = start.elapsed();
    (agg, None)
}
