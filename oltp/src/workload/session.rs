//! One worker's connection with its prepared statements and column codec:
//! the statements each workload prepares (sysbench's `prepare_statements`),
//! written once over the [`Connection`] trait.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::columns::{Codec, Column, ColumnMode, TableAad};
use crate::driver::{ConnectOptions, Connection};
use crate::schema::{Dialect, table_name};

use super::{Params, QueryError, Workload};

/// The statements of one table.
pub(super) struct TableStatements<S> {
    pub(super) point: Option<S>,
    pub(super) ranges: Option<RangeStatements<S>>,
    pub(super) index_update: Option<IndexUpdate<S>>,
    pub(super) non_index_update: Option<S>,
    pub(super) delete: Option<S>,
    pub(super) insert: Option<S>,
    pub(super) random_points: Option<S>,
}

impl<S> Default for TableStatements<S> {
    fn default() -> Self {
        TableStatements {
            point: None,
            ranges: None,
            index_update: None,
            non_index_update: None,
            delete: None,
            insert: None,
            random_points: None,
        }
    }
}

/// `k=k+1`: one statement on plaintext `k`; with `k` encrypted the proxy's
/// read-modify-write: a locking read of the stored `k`, then an update that
/// writes the new envelope only if the stored one is unchanged.
pub(super) enum IndexUpdate<S> {
    Plain(S),
    Encrypted { read: S, write: S },
}

pub(super) struct RangeStatements<S> {
    pub(super) simple: S,
    pub(super) sum: S,
    pub(super) order: S,
    pub(super) distinct: S,
}

/// One worker's connection with its prepared statements and column codec;
/// `C` is the driver's connection.
pub struct Session<C: Connection> {
    pub(super) conn: C,
    opts: ConnectOptions,
    pub(crate) workload: Workload,
    pub(super) codec: Codec,
    pub(super) params: Params,
    /// Per table: its name and columns' AAD prefixes, and its statements.
    pub(super) tables: Vec<(TableAad, TableStatements<C::Statement>)>,
    /// Plaintext values of the last query, reused.
    pub(super) rows: Vec<Vec<u8>>,
    /// A pgbench workload's statements (`None` for sysbench's).
    pub(super) pgbench: Option<super::pgbench::PgbenchStatements<C::Statement>>,
}

impl<C: Connection> std::fmt::Debug for Session<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("workload", &self.workload)
            .field("encrypted", &self.codec.is_encrypted())
            .field("tables", &self.tables.len())
            .finish_non_exhaustive()
    }
}

impl<C: Connection> Session<C> {
    /// Connects with `opts` (its protocol, prepared or text, is the one in
    /// `params.opts.db_ps_mode`) and prepares `workload`'s statements for
    /// `params.tables` tables.
    ///
    /// # Errors
    /// Connection (including the TLS check) or prepare failures.
    pub async fn connect(
        mut opts: ConnectOptions,
        workload: Workload,
        codec: Codec,
        params: Params,
    ) -> Result<Session<C>, QueryError> {
        opts.ps_mode = params.opts.db_ps_mode;
        // Room for every statement the session prepares: a driver's statement
        // cache must never evict (and close) one the session still holds.
        let needed = workload.statements_per_connection(params.tables, params.opts.range_selects);
        opts.statements = opts.statements.max(needed + 16);
        let conn = C::connect(&opts).await?;
        let mut s = Session {
            conn,
            opts,
            workload,
            codec,
            params,
            tables: Vec::new(),
            rows: Vec::with_capacity(128),
            pgbench: None,
        };
        s.prepare_all().await?;
        Ok(s)
    }

    /// The SQL dialect of the connection's server.
    pub(super) fn dialect(&self) -> Dialect {
        C::DRIVER.dialect()
    }

    /// The TLS session of the connection, when it uses TLS.
    pub fn tls_session(&self) -> Option<&crate::driver::TlsSession> {
        self.conn.tls_session()
    }

    async fn prepare_all(&mut self) -> Result<(), QueryError> {
        self.tables.clear();
        if self.workload.is_pgbench() {
            return self.prepare_pgbench().await;
        }
        let enc = self.codec.mode(Column::C) != ColumnMode::Plain;
        let k_enc = self.codec.mode(Column::K) != ColumnMode::Plain;
        let set = self.workload.statements(self.params.opts.range_selects);
        let conn = &mut self.conn;
        for n in 1..=self.params.tables {
            let t = table_name(n);
            let range_cols = if enc { "id, c" } else { "c" };
            let between = "WHERE id BETWEEN ? AND ?";
            let mut st = TableStatements::default();
            if set.point {
                st.point = Some(
                    conn.prepare(&format!("SELECT c FROM {t} WHERE id=?"))
                        .await?,
                );
            }
            if set.ranges {
                st.ranges = Some(RangeStatements {
                    simple: conn
                        .prepare(&format!("SELECT {range_cols} FROM {t} {between}"))
                        .await?,
                    sum: conn
                        .prepare(&if k_enc {
                            format!("SELECT id, k FROM {t} {between}")
                        } else {
                            format!("SELECT SUM(k) FROM {t} {between}")
                        })
                        .await?,
                    order: conn
                        .prepare(&if enc {
                            format!("SELECT id, c FROM {t} {between}")
                        } else {
                            format!("SELECT c FROM {t} {between} ORDER BY c")
                        })
                        .await?,
                    distinct: conn
                        .prepare(&if enc {
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
                        read: conn
                            .prepare(&format!("SELECT k FROM {t} WHERE id=? FOR UPDATE"))
                            .await?,
                        write: conn
                            .prepare(&format!("UPDATE {t} SET k=? WHERE id=? AND k=?"))
                            .await?,
                    }
                } else {
                    IndexUpdate::Plain(
                        conn.prepare(&format!("UPDATE {t} SET k=k+1 WHERE id=?"))
                            .await?,
                    )
                });
            }
            if set.random_points && n == 1 {
                let points = vec!["?"; self.params.opts.random_points as usize].join(", ");
                st.random_points = Some(
                    conn.prepare(&format!(
                        "SELECT id, k, c, pad FROM {t} WHERE k IN ({points})"
                    ))
                    .await?,
                );
            }
            if set.non_index_update {
                st.non_index_update = Some(
                    conn.prepare(&format!("UPDATE {t} SET c=? WHERE id=?"))
                        .await?,
                );
            }
            if set.delete_insert || set.delete {
                st.delete = Some(conn.prepare(&format!("DELETE FROM {t} WHERE id=?")).await?);
            }
            if set.delete_insert {
                st.insert = Some(
                    conn.prepare(&format!(
                        "INSERT INTO {t} (id, k, c, pad) VALUES (?, ?, ?, ?)"
                    ))
                    .await?,
                );
            }
            let aad = TableAad::new(t).map_err(|e| QueryError::Protocol(e.to_string()))?;
            self.tables.push((aad, st));
        }
        Ok(())
    }

    /// Drops the connection and connects again, re-preparing every statement
    /// (what sysbench does after errors 2013, 2055, 2006, 2011).
    ///
    /// # Errors
    /// The server is still unreachable.
    pub async fn reconnect(&mut self) -> Result<(), QueryError> {
        self.conn = C::connect(&self.opts).await?;
        self.prepare_all().await
    }

    /// Closes the connection politely.
    pub async fn close(self) {
        self.conn.close().await;
    }

    /// Sends a text-protocol statement that returns no rows (BEGIN, COMMIT, ROLLBACK).
    ///
    /// # Errors
    /// Server or connection errors.
    pub async fn text(&mut self, sql: &str) -> Result<(), QueryError> {
        self.conn.simple(sql).await?;
        Ok(())
    }
}

/// The statement `pick` selects for `table` (1-based), with the table's name.
pub(super) fn stmt<'a, S>(
    tables: &'a [(TableAad, TableStatements<S>)],
    workload: Workload,
    table: u32,
    pick: impl FnOnce(&'a TableStatements<S>) -> Option<&'a S>,
) -> Result<(&'a TableAad, &'a S), QueryError> {
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

/// Opens `v`, a stored value of `table.column` at `id`, in place.
pub(super) fn open(
    codec: &Codec,
    table: &TableAad,
    column: Column,
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

/// The error of a NULL where `table.column` at `id` must hold an envelope.
pub(super) fn null_value(table: &TableAad, column: Column, id: i64) -> QueryError {
    QueryError::Null {
        table: table.to_string(),
        column,
        id,
    }
}

/// Unique ids for `oltp_insert` without auto-increment (and under column
/// encryption, where the AAD needs the id before the row exists): negative
/// 32-bit ids, so they never meet prepared rows (1..=table_size) or
/// auto-increment ones; a bijection of a process-wide counter, so no two are
/// equal within a process, with a random offset per process.
pub(super) fn unique_insert_id() -> i64 {
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
