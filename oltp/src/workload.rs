//! What is sent: sysbench 1.0's `oltp_read_only` transaction over server-side
//! prepared statements, one connection per worker, and what a decrypting proxy
//! does with each result.
//!
//! Statements (sysbench `oltp_common.lua`), prepared for every table on every
//! connection:
//!
//! | kind | plaintext SQL | encrypted SQL (the proxy's rewrite) |
//! |---|---|---|
//! | point select | `SELECT c FROM sbtestN WHERE id=?` | same; `c` opened with the AAD of (table, `c`, id) |
//! | simple range | `SELECT c FROM sbtestN WHERE id BETWEEN ? AND ?` | `SELECT id, c ...`: the id is needed for the AAD |
//! | sum range | `SELECT SUM(k) FROM sbtestN WHERE id BETWEEN ? AND ?` | same (`k` is plaintext) |
//! | order range | `... ORDER BY c` | `SELECT id, c ...`, opened, then sorted in the client |
//! | distinct range | `SELECT DISTINCT c ... ORDER BY c` | `SELECT id, c ...`, opened, sorted and deduplicated in the client |
//!
//! ORDER BY and DISTINCT on ciphertext would be wrong (random nonces make every
//! envelope distinct and unordered), so the proxy sorts and deduplicates after
//! decryption; results equal the plaintext server's byte for byte.

use std::time::Instant;

use encbench_crypto::envelope::EnvelopeError;
use mysql_async::prelude::*;
use mysql_async::{Conn, Opts, Statement, Value};

use crate::codec::Codec;
use crate::measure::Aggregate;
use crate::rand::SbRng;
use crate::schema::table_name;

/// sysbench's default list of ignorable errors (`--mysql-ignore-errors`):
/// 1213 deadlock, 1020 record changed, 1205 lock wait timeout.
pub const IGNORABLE_ERRORS: [u16; 3] = [1213, 1020, 1205];

/// Server-side prepared statements per table for `oltp_read_only`.
pub const READ_ONLY_STATEMENTS_PER_TABLE: usize = 5;

/// The workload (`--workload`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
pub enum Workload {
    /// sysbench's `oltp_read_only`: BEGIN, 10 point selects, simple, sum, order and
    /// distinct ranges, COMMIT (16 queries: 14 read, 2 other).
    #[value(name = "oltp_read_only")]
    #[serde(rename = "oltp_read_only")]
    OltpReadOnly,
    /// sysbench's `oltp_point_select`: one point select, no BEGIN/COMMIT (1 read query).
    #[value(name = "oltp_point_select")]
    #[serde(rename = "oltp_point_select")]
    OltpPointSelect,
}

impl Workload {
    /// sysbench's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Workload::OltpReadOnly => "oltp_read_only",
            Workload::OltpPointSelect => "oltp_point_select",
        }
    }

    /// Server-side prepared statements one connection holds for `tables` tables.
    pub fn statements_per_connection(self, tables: u32) -> usize {
        self.statements_per_table() * tables as usize
    }

    /// Server-side prepared statements per table (sysbench prepares the
    /// statements a workload uses for every table on every connection).
    pub fn statements_per_table(self) -> usize {
        match self {
            Workload::OltpReadOnly => READ_ONLY_STATEMENTS_PER_TABLE,
            Workload::OltpPointSelect => 1,
        }
    }
}

/// Workload parameters with sysbench's defaults.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Params {
    /// Tables (`--tables`).
    pub tables: u32,
    /// Rows per table (`--table-size`); ids are drawn from 1..=table_size.
    pub table_size: u32,
    /// Rows per range query (`--range-size`, sysbench default 100).
    pub range_size: u32,
    /// Point selects per transaction (`--point-selects`, default 10).
    pub point_selects: u32,
}

/// A range query kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeKind {
    /// `SELECT c ... BETWEEN`.
    Simple,
    /// `SELECT c ... BETWEEN ... ORDER BY c`.
    Order,
    /// `SELECT DISTINCT c ... BETWEEN ... ORDER BY c`.
    Distinct,
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

struct TableStatements {
    point: Statement,
    ranges: Option<RangeStatements>,
}

struct RangeStatements {
    simple: Statement,
    sum: Statement,
    order: Statement,
    distinct: Statement,
}

/// One worker's connection with its prepared statements and column codec.
pub struct Session {
    conn: Conn,
    opts: Opts,
    workload: Workload,
    codec: Codec,
    tables: Vec<(String, TableStatements)>,
    rows: Vec<Vec<u8>>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("encrypted", &self.codec.is_encrypted())
            .field("tables", &self.tables.len())
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Connects with `opts` (database and statement cache set, see
    /// [`crate::schema::conn_opts`]) and prepares `workload`'s statements for
    /// `tables` tables.
    ///
    /// # Errors
    /// Connection or prepare failures.
    pub async fn connect(
        opts: Opts,
        workload: Workload,
        codec: Codec,
        tables: u32,
    ) -> Result<Session, QueryError> {
        let conn = Conn::new(opts.clone()).await?;
        let mut s = Session {
            conn,
            opts,
            workload,
            codec,
            tables: Vec::new(),
            rows: Vec::with_capacity(128),
        };
        s.prepare_all(tables).await?;
        Ok(s)
    }

    async fn prepare_all(&mut self, tables: u32) -> Result<(), QueryError> {
        self.tables.clear();
        let enc = self.codec.is_encrypted();
        for n in 1..=tables {
            let t = table_name(n);
            let range_cols = if enc { "id, c" } else { "c" };
            let between = "WHERE id BETWEEN ? AND ?";
            let point = self
                .conn
                .prep(format!("SELECT c FROM {t} WHERE id=?"))
                .await?;
            let ranges = if self.workload == Workload::OltpPointSelect {
                None
            } else {
                Some(RangeStatements {
                    simple: self
                        .conn
                        .prep(format!("SELECT {range_cols} FROM {t} {between}"))
                        .await?,
                    sum: self
                        .conn
                        .prep(format!("SELECT SUM(k) FROM {t} {between}"))
                        .await?,
                    order: self
                        .conn
                        .prep(if enc {
                            format!("SELECT id, c FROM {t} {between}")
                        } else {
                            format!("SELECT c FROM {t} {between} ORDER BY c")
                        })
                        .await?,
                    distinct: self
                        .conn
                        .prep(if enc {
                            format!("SELECT id, c FROM {t} {between}")
                        } else {
                            format!("SELECT DISTINCT c FROM {t} {between} ORDER BY c")
                        })
                        .await?,
                })
            };
            let st = TableStatements { point, ranges };
            self.tables.push((t, st));
        }
        Ok(())
    }

    /// Drops the connection and connects again, re-preparing every statement
    /// (what sysbench does after errors 2013, 2055, 2006, 2011).
    ///
    /// # Errors
    /// The server is still unreachable.
    pub async fn reconnect(&mut self) -> Result<(), QueryError> {
        self.conn = Conn::new(self.opts.clone()).await?;
        let n = self.tables.len() as u32;
        self.prepare_all(n).await
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
        let (name, st) = &self.tables[table as usize - 1];
        let mut result = self.conn.exec_iter(&st.point, (id,)).await?;
        let rows = &mut self.rows;
        result
            .for_each(|mut row| {
                if let Some(Value::Bytes(v)) = row.take::<Value, _>(0) {
                    rows.push(v);
                }
            })
            .await?;
        drop(result);
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
        let enc = self.codec.is_encrypted();
        let (name, st) = &self.tables[table as usize - 1];
        let st = st.ranges.as_ref().ok_or_else(|| no_ranges(self.workload))?;
        let stmt = match kind {
            RangeKind::Simple => &st.simple,
            RangeKind::Order => &st.order,
            RangeKind::Distinct => &st.distinct,
        };
        let mut result = self.conn.exec_iter(stmt, (lo, hi)).await?;
        let rows = &mut self.rows;
        let codec = &self.codec;
        let mut failure = None;
        result
            .for_each(|mut row| {
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
        drop(result);
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
        let st = self.tables[table as usize - 1]
            .1
            .ranges
            .as_ref()
            .ok_or_else(|| no_ranges(self.workload))?;
        let sum: Option<Option<String>> = self.conn.exec_first(&st.sum, (lo, hi)).await?;
        match sum.flatten() {
            None => Ok(None),
            Some(s) => s
                .parse::<i64>()
                .map(Some)
                .map_err(|_| QueryError::Protocol(format!("SUM(k) returned {s:?}"))),
        }
    }

    /// Runs one event (transaction) of the session's workload and counts its
    /// queries into `agg`.
    ///
    /// # Errors
    /// Any query error.
    pub async fn event(
        &mut self,
        rng: &mut SbRng,
        p: &Params,
        agg: &mut Aggregate,
    ) -> Result<(), QueryError> {
        match self.workload {
            Workload::OltpReadOnly => self.read_only_event(rng, p, agg).await,
            Workload::OltpPointSelect => {
                let t = rng.uniform(1, p.tables);
                let id = rng.id(1, p.table_size);
                self.point_select(t, id).await?;
                agg.read += 1;
                Ok(())
            }
        }
    }

    /// Runs one `oltp_read_only` event (transaction) and counts its queries into
    /// `agg`. On error the caller decides (restart, reconnect, or stop); the
    /// counts of the failed attempt's finished queries stay recorded, as in sysbench.
    ///
    /// # Errors
    /// Any query error.
    pub async fn read_only_event(
        &mut self,
        rng: &mut SbRng,
        p: &Params,
        agg: &mut Aggregate,
    ) -> Result<(), QueryError> {
        self.text("BEGIN").await?;
        agg.other += 1;
        let t = rng.uniform(1, p.tables);
        for _ in 0..p.point_selects {
            let id = rng.id(1, p.table_size);
            self.point_select(t, id).await?;
            agg.read += 1;
        }
        for kind in [RangeKind::Simple, RangeKind::Order, RangeKind::Distinct] {
            if kind == RangeKind::Order {
                // sysbench order: simple, sum, order, distinct.
                let t = rng.uniform(1, p.tables);
                let lo = rng.id(1, p.table_size);
                self.sum_range(t, lo, lo + p.range_size - 1).await?;
                agg.read += 1;
            }
            let t = rng.uniform(1, p.tables);
            let lo = rng.id(1, p.table_size);
            self.range(kind, t, lo, lo + p.range_size - 1).await?;
            agg.read += 1;
        }
        self.text("COMMIT").await?;
        agg.other += 1;
        Ok(())
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

fn no_ranges(w: Workload) -> QueryError {
    QueryError::Protocol(format!("{} prepares no range statements", w.name()))
}

/// Runs events on `session` until `deadline`, restarting events after ignorable
/// errors and reconnecting after lost connections (each counted), and returns
/// the worker's aggregate. `live` counts events and queries for progress display;
/// `stop` ends the loop early (Ctrl-C).
///
/// # Errors
/// A non-ignorable error, a value that does not open, or a reconnect that failed
/// for `reconnect_window`; the aggregate so far is returned with it.
pub async fn run_worker(
    session: &mut Session,
    mut rng: SbRng,
    params: Params,
    deadline: Instant,
    reconnect_window: std::time::Duration,
    live: &crate::measure::Live,
    stop: &std::sync::atomic::AtomicBool,
) -> (Aggregate, Option<QueryError>) {
    let mut agg = Aggregate::new();
    let start = Instant::now();
    while Instant::now() < deadline && !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let t0 = Instant::now();
        let before = agg.queries();
        match session.event(&mut rng, &params, &mut agg).await {
            Ok(()) => {
                let end = Instant::now();
                agg.record_event(end - t0, end);
                live.add(1, agg.queries() - before);
            }
            Err(e) if e.is_ignorable() => {
                agg.errors += 1;
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
                        Err(e2) if Instant::now() < until => {
                            let _ = e2;
                            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                        }
                        Err(e2) => {
                            agg.exec_time = start.elapsed();
                            let source = match e2 {
                                QueryError::Db(db) => db,
                                other => return (agg, Some(other)),
                            };
                            let secs = reconnect_window.as_secs();
                            return (agg, Some(QueryError::ConnectionLost { secs, source }));
                        }
                    }
                }
                let _ = e;
            }
            Err(e) => {
                agg.exec_time = start.elapsed();
                return (agg, Some(e));
            }
        }
    }
    agg.exec_time = start.elapsed();
    (agg, None)
}
