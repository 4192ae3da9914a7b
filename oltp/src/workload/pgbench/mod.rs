//! pgbench's built-in scripts, as PostgreSQL 15's pgbench defines them
//! (`src/bin/pgbench/pgbench.c`, `builtin_script`), one file each
//! (`tpcb_like`, `simple_update`, `select_only`; `common` holds the
//! statements the first two share), over the same
//! [`Session`] and driver seam as sysbench's: the statements each prepares
//! (here), the draws of its `\set` lines ([`Draws`]), and the statements as
//! session methods.
//!
//! ```text
//! \set aid random(1, 100000 * :scale)
//! \set bid random(1, 1 * :scale)
//! \set tid random(1, 10 * :scale)
//! \set delta random(-5000, 5000)
//! BEGIN;
//! UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
//! SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
//! UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
//! UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
//! INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
//! END;
//! ```
//!
//! simple-update (`-N`) is the same without the tellers and branches
//! updates; select-only (`-S`) is `\set aid` and the SELECT alone. The draws
//! are uniform (pgbench's `random()`), in the script's order, from the
//! worker's generator (`--rand-seed` repeats them; pgbench's own PRNG is
//! another, so the same seed does not give pgbench's ids). On PostgreSQL every
//! statement is prepared, BEGIN and END too, as pgbench's `-M prepared`
//! prepares every command of the script (or each is sent with its values
//! inlined with `--db-ps-mode disable`, pgbench's `-M simple`). On MariaDB,
//! which has no END, BEGIN and COMMIT go over the text protocol.
//!
//! No statement reads or writes a filler, so column encryption of the
//! fillers costs these scripts nothing in the client: the cost is the load
//! and the larger rows on the server (see docs/postgresql.md).

use crate::driver::{Connection, Param};
use crate::sb_rand::SbRng;
use crate::schema::pgbench::{ACCOUNTS_PER_SCALE, BRANCHES_PER_SCALE, TELLERS_PER_SCALE};

use super::session::Session;
use super::{QueryError, Workload};

mod common;
pub(crate) mod select_only;
pub(crate) mod simple_update;
pub(crate) mod tpcb_like;

/// The statements of one pgbench script, prepared on a connection.
pub(super) struct PgbenchStatements<S> {
    /// `BEGIN` and `END`, prepared on PostgreSQL (`None`: sent as text).
    begin: Option<S>,
    end: Option<S>,
    update_accounts: Option<S>,
    select_abalance: S,
    update_tellers: Option<S>,
    update_branches: Option<S>,
    insert_history: Option<S>,
}

/// pgbench's statements, with `?` placeholders.
const UPDATE_ACCOUNTS: &str = "UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?";
const SELECT_ABALANCE: &str = "SELECT abalance FROM pgbench_accounts WHERE aid = ?";
const UPDATE_TELLERS: &str = "UPDATE pgbench_tellers SET tbalance = tbalance + ? WHERE tid = ?";
const UPDATE_BRANCHES: &str = "UPDATE pgbench_branches SET bbalance = bbalance + ? WHERE bid = ?";
const INSERT_HISTORY: &str = "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)";

/// Statements a pgbench workload prepares on each MariaDB connection (the
/// count `max_prepared_stmt_count` is checked against; on PostgreSQL, which
/// has no such limit, tpcb-like and simple-update also prepare BEGIN and END).
pub(super) fn statements(workload: Workload) -> usize {
    match workload {
        Workload::PgbenchTpcbLike => 5,
        Workload::PgbenchSimpleUpdate => 3,
        _ => 1,
    }
}

/// One transaction's `\set` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Draws {
    /// `random(1, 100000 * :scale)`.
    pub aid: u32,
    /// `random(1, 1 * :scale)`.
    pub bid: u32,
    /// `random(1, 10 * :scale)`.
    pub tid: u32,
    /// `random(-5000, 5000)`.
    pub delta: i32,
}

impl Draws {
    /// The four `\set` lines of tpcb-like and simple-update, in order.
    pub fn all(rng: &mut SbRng, scale: u32) -> Draws {
        let aid = rng.uniform(1, ACCOUNTS_PER_SCALE * scale);
        let bid = rng.uniform(1, BRANCHES_PER_SCALE * scale);
        let tid = rng.uniform(1, TELLERS_PER_SCALE * scale);
        let delta = rng.uniform(0, 10_000) as i32 - 5000;
        Draws {
            aid,
            bid,
            tid,
            delta,
        }
    }

    /// select-only's one `\set aid`.
    pub fn aid(rng: &mut SbRng, scale: u32) -> u32 {
        rng.uniform(1, ACCOUNTS_PER_SCALE * scale)
    }
}

/// `sql` prepared on `conn` when `on`.
async fn prep<C: Connection>(
    conn: &mut C,
    on: bool,
    sql: &str,
) -> Result<Option<C::Statement>, QueryError> {
    Ok(if on {
        Some(conn.prepare(sql).await?)
    } else {
        None
    })
}

/// The statement `pick` selects of `workload`'s prepared `statements`.
fn pgbench_stmt<S>(
    statements: &Option<PgbenchStatements<S>>,
    workload: Workload,
    pick: impl FnOnce(&PgbenchStatements<S>) -> Option<&S>,
) -> Result<&S, QueryError> {
    statements.as_ref().and_then(pick).ok_or_else(|| {
        QueryError::Protocol(format!(
            "{} does not prepare this statement",
            workload.name()
        ))
    })
}

impl<C: Connection> Session<C> {
    /// Prepares `workload`'s statements (a pgbench workload).
    pub(super) async fn prepare_pgbench(&mut self) -> Result<(), QueryError> {
        let w = self.workload;
        let writes = w != Workload::PgbenchSelectOnly;
        let branches = w == Workload::PgbenchTpcbLike;
        let transaction = writes && self.dialect() == crate::schema::Dialect::Postgres;
        let conn = &mut self.conn;
        let begin = prep(conn, transaction, "BEGIN").await?;
        let end = prep(conn, transaction, "END").await?;
        let update_accounts = prep(conn, writes, UPDATE_ACCOUNTS).await?;
        let select_abalance = conn.prepare(SELECT_ABALANCE).await?;
        let update_tellers = prep(conn, branches, UPDATE_TELLERS).await?;
        let update_branches = prep(conn, branches, UPDATE_BRANCHES).await?;
        let insert_history = prep(conn, writes, INSERT_HISTORY).await?;
        self.pgbench = Some(PgbenchStatements {
            begin,
            end,
            update_accounts,
            select_abalance,
            update_tellers,
            update_branches,
            insert_history,
        });
        Ok(())
    }

    /// `BEGIN`: the prepared statement on PostgreSQL, text on MariaDB.
    ///
    /// # Errors
    /// Server or connection errors.
    pub async fn pgbench_begin(&mut self) -> Result<(), QueryError> {
        match self.pgbench.as_ref().and_then(|p| p.begin.as_ref()) {
            Some(st) => self.conn.execute(st, &[]).await?,
            None => self.conn.simple("BEGIN").await?,
        };
        Ok(())
    }

    /// `END` (PostgreSQL's COMMIT; `COMMIT` on MySQL, which has no END): the
    /// prepared statement on PostgreSQL, text on MariaDB.
    ///
    /// # Errors
    /// Server or connection errors.
    pub async fn pgbench_end(&mut self) -> Result<(), QueryError> {
        if let Some(st) = self.pgbench.as_ref().and_then(|p| p.end.as_ref()) {
            self.conn.execute(st, &[]).await?;
            return Ok(());
        }
        let end = match self.dialect() {
            crate::schema::Dialect::Postgres => "END",
            crate::schema::Dialect::Mysql => "COMMIT",
        };
        self.conn.simple(end).await?;
        Ok(())
    }

    /// `UPDATE pgbench_accounts SET abalance = abalance + delta WHERE aid = aid`;
    /// true when a row changed.
    ///
    /// # Errors
    /// Server or connection errors.
    pub async fn pgbench_update_accounts(
        &mut self,
        aid: u32,
        delta: i32,
    ) -> Result<bool, QueryError> {
        let st = pgbench_stmt(&self.pgbench, self.workload, |p| p.update_accounts.as_ref())?;
        let params = [Param::Int(i64::from(delta)), aid.into()];
        Ok(self.conn.execute(st, &params).await? > 0)
    }

    /// `SELECT abalance FROM pgbench_accounts WHERE aid = aid`: the balance,
    /// `None` when no row matched.
    ///
    /// # Errors
    /// Server or connection errors.
    pub async fn pgbench_select_abalance(&mut self, aid: u32) -> Result<Option<i64>, QueryError> {
        let st = pgbench_stmt(&self.pgbench, self.workload, |p| Some(&p.select_abalance))?;
        let mut balance = None;
        self.conn
            .query(st, &[aid.into()], |row: &mut C::Row| {
                use crate::driver::Row as _;
                balance = row.int(0);
            })
            .await?;
        Ok(balance)
    }

    /// `UPDATE pgbench_tellers SET tbalance = tbalance + delta WHERE tid = tid`.
    ///
    /// # Errors
    /// Server or connection errors.
    pub async fn pgbench_update_tellers(
        &mut self,
        tid: u32,
        delta: i32,
    ) -> Result<bool, QueryError> {
        let st = pgbench_stmt(&self.pgbench, self.workload, |p| p.update_tellers.as_ref())?;
        let params = [Param::Int(i64::from(delta)), tid.into()];
        Ok(self.conn.execute(st, &params).await? > 0)
    }

    /// `UPDATE pgbench_branches SET bbalance = bbalance + delta WHERE bid = bid`.
    ///
    /// # Errors
    /// Server or connection errors.
    pub async fn pgbench_update_branches(
        &mut self,
        bid: u32,
        delta: i32,
    ) -> Result<bool, QueryError> {
        let st = pgbench_stmt(&self.pgbench, self.workload, |p| p.update_branches.as_ref())?;
        let params = [Param::Int(i64::from(delta)), bid.into()];
        Ok(self.conn.execute(st, &params).await? > 0)
    }

    /// `INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES
    /// (tid, bid, aid, delta, CURRENT_TIMESTAMP)`.
    ///
    /// # Errors
    /// Server or connection errors.
    pub async fn pgbench_insert_history(&mut self, d: Draws) -> Result<bool, QueryError> {
        let st = pgbench_stmt(&self.pgbench, self.workload, |p| p.insert_history.as_ref())?;
        let params = [
            d.tid.into(),
            d.bid.into(),
            d.aid.into(),
            Param::Int(i64::from(d.delta)),
        ];
        Ok(self.conn.execute(st, &params).await? > 0)
    }
}
