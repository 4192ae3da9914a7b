//! The prepare lock: a server-side lock per database that `prepare` holds on
//! a connection of its own from its first check to its last step (MySQL's
//! `GET_LOCK`, PostgreSQL's session advisory lock). The server releases it
//! when that connection ends, so a killed prepare leaves it free: a database
//! marked `state=loading` whose lock is held is being loaded now (another
//! prepare runs: wait for it), one whose lock is free is half loaded (a
//! prepare did not finish: clean it up).

use std::time::{Duration, Instant};

use anyhow::Result;

use crate::driver::{Connection, TlsOptions};

use super::{Dialect, connect, scalar};

/// How long a prepare waits for another's lock, and a check for a lock that
/// a command is still releasing (a probe's, or a killed prepare's whose
/// connection the server has not closed yet).
const WAIT: Duration = Duration::from_secs(5);
/// Pause between two attempts to take the lock.
const RETRY: Duration = Duration::from_millis(100);

/// The prepare lock of one database, held on its own connection until
/// [`release`](Self::release) (or until it is dropped: the connection then
/// closes and the server releases the lock).
pub(crate) struct PrepareLock<C: Connection> {
    conn: C,
    dialect: Dialect,
    db: String,
}

impl<C: Connection> PrepareLock<C> {
    /// Takes the prepare lock of `db` on the server of `url` (over TLS when
    /// `tls` is given, as every connection of the command), waiting up to
    /// [`WAIT`] for a holder to let it go; `None`: another prepare holds it.
    ///
    /// # Errors
    /// The server cannot be reached, or a query fails.
    pub(crate) async fn take(
        dialect: Dialect,
        url: &str,
        tls: Option<&TlsOptions>,
        db: &str,
    ) -> Result<Option<PrepareLock<C>>> {
        let mut conn: C = connect(url, tls, None).await?;
        let sql = dialect.try_prepare_lock_sql(db);
        let t0 = Instant::now();
        loop {
            let got = scalar(&mut conn, &sql).await?;
            if got.as_deref() == Some("1") {
                return Ok(Some(PrepareLock {
                    conn,
                    dialect,
                    db: db.to_string(),
                }));
            }
            if t0.elapsed() >= WAIT {
                conn.close().await;
                return Ok(None);
            }
            tokio::time::sleep(RETRY).await;
        }
    }

    /// Releases the lock and closes its connection (a lock the server lost
    /// with the connection is released already).
    pub(crate) async fn release(mut self) {
        let _ = self
            .conn
            .simple(&self.dialect.prepare_unlock_sql(&self.db))
            .await;
        self.conn.close().await;
    }
}

/// Whether a prepare holds the lock of `db` on the server of `url` (reached
/// over TLS when `tls` is given) now: it
/// is loading `db` (the lock is taken and released at once when free).
///
/// # Errors
/// The server cannot be reached, or a query fails.
pub(crate) async fn prepare_running<C: Connection>(
    dialect: Dialect,
    url: &str,
    tls: Option<&TlsOptions>,
    db: &str,
) -> Result<bool> {
    Ok(match PrepareLock::<C>::take(dialect, url, tls, db).await? {
        Some(lock) => {
            lock.release().await;
            false
        }
        None => true,
    })
}

/// The error of a prepare that found `db` being loaded by another prepare:
/// wait for it (its tables are then ready); never a cleanup, which would
/// destroy them under it.
pub(crate) fn another_prepare(db: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "{db} is being loaded by another prepare running now: wait for it to finish, then use its tables (they are ready when it ends)"
    )
}
