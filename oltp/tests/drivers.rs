//! The driver conformance suite: every check is written once, generic over
//! the [`Connection`] trait, and runs for every driver against its real
//! private server (MariaDB with `oltp`'s own settings, TLS on, as a
//! `common::SharedServer`; PostgreSQL: `common::shared_pg()`), as the crypto registry's conformance suite runs over every
//! backend. Adding a driver is one `conformance!` line at the end, with a
//! [`Server`] saying what differs between servers: their SQL for a session's
//! id, a kill, a cipher, and which [`ErrorKind`] each provoked error is
//! (sysbench's mysql driver ignores a lock wait timeout but not a duplicate
//! key; its pgsql driver the reverse).
//!
//! Each check uses tables of its own, so the checks run in parallel on one
//! server; every error is provoked for real (a duplicate key, a lock wait
//! timeout, a deadlock between two connections, a write conflicting with a
//! repeatable-read snapshot, a connection killed from another session), none
//! by waiting on a timer.

#[allow(dead_code)] // each test binary uses a subset of the helpers
mod common;

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use encbench_oltp::at_rest::AtRest;
use encbench_oltp::server::{Profile, server_config};

use encbench_oltp::driver::{
    ConnectOptions, Connection, DbDriver, DbError, ErrorKind, MysqlConnection, Param,
    PostgresConnection, PsMode, Row as _, TlsMode, TlsOptions,
};

/// A driver's server, and what the checks expect where servers differ.
struct Server {
    /// The driver the connection type must say it is.
    driver: DbDriver,
    /// Where the checks connect, their tables' database included.
    opts: ConnectOptions,
    /// The SQL type of a binary column.
    binary: &'static str,
    /// One row, one column: the session's id (for a kill).
    session_id: &'static str,
    /// Ends the session of the id given, from another session.
    kill: fn(&str) -> String,
    /// One row, one column: how many sessions have the id given (0 once killed).
    sessions_with_id: fn(&str) -> String,
    /// Makes the session's lock waits time out after 1 s.
    short_lock_wait: &'static str,
    /// Starts a repeatable-read transaction whose writes fail on a row
    /// changed since its snapshot.
    snapshot: &'static [&'static str],
    /// One row, one column: the session's TLS cipher (empty or NULL without TLS).
    cipher: &'static str,
    /// One row, one column: how many statements the session has prepared on
    /// the server so far.
    prepared: &'static str,
    /// The kind of a duplicate primary key.
    duplicate_key: ErrorKind,
    /// The kind of a lock wait that timed out.
    lock_wait_timeout: ErrorKind,
    /// The kind of a write on a row changed since the snapshot.
    write_conflict: ErrorKind,
    /// Whether the driver has `COPY ... FROM STDIN`.
    copy: bool,
}

/// The private MariaDB of this test binary, with `oltp`'s own settings (TLS
/// on, as `oltp server start` starts it).
fn mariadb_server() -> &'static common::SharedServer {
    static SERVER: OnceLock<common::SharedServer> = OnceLock::new();
    SERVER.get_or_init(|| {
        common::SharedServer::start(|dir| {
            server_config(dir, AtRest::Off, Profile::Default).expect("server config")
        })
    })
}

/// The private MariaDB, tables in database `drivers`.
fn mariadb() -> Server {
    let url = mariadb_server().url().to_string();
    common::runtime().block_on(async {
        let mut admin = MysqlConnection::connect(&ConnectOptions::new(url.as_str()))
            .await
            .expect("connect to the private MariaDB");
        admin
            .simple("CREATE DATABASE IF NOT EXISTS drivers")
            .await
            .expect("create database drivers");
        admin.close().await;
    });
    Server {
        driver: DbDriver::Mysql,
        opts: ConnectOptions::new(url).database("drivers"),
        binary: "VARBINARY(64)",
        session_id: "SELECT CONNECTION_ID()",
        kill: |id| format!("KILL CONNECTION {id}"),
        sessions_with_id: |id| {
            format!("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = {id}")
        },
        short_lock_wait: "SET SESSION innodb_lock_wait_timeout = 1",
        snapshot: &[
            "SET SESSION innodb_snapshot_isolation = ON",
            "START TRANSACTION",
        ],
        cipher: "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'SSL_CIPHER'",
        prepared: "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'COM_STMT_PREPARE'",
        duplicate_key: ErrorKind::Other,
        lock_wait_timeout: ErrorKind::LockWaitTimeout,
        write_conflict: ErrorKind::RecordChanged,
        copy: false,
    }
}

/// The shared private PostgreSQL, tables in its `postgres` database.
fn postgresql() -> Server {
    Server {
        driver: DbDriver::Pgsql,
        opts: ConnectOptions::new(common::shared_pg().url()),
        binary: "BYTEA",
        session_id: "SELECT pg_backend_pid()",
        // Waits (up to 60 s) until the backend has exited.
        kill: |id| format!("SELECT pg_terminate_backend({id}, 60000)"),
        sessions_with_id: |id| format!("SELECT count(*) FROM pg_stat_activity WHERE pid = {id}"),
        short_lock_wait: "SET lock_timeout = '1s'",
        snapshot: &["BEGIN ISOLATION LEVEL REPEATABLE READ"],
        cipher: "SELECT cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
        prepared: "SELECT count(*) FROM pg_prepared_statements",
        duplicate_key: ErrorKind::DuplicateKey,
        lock_wait_timeout: ErrorKind::Other,
        write_conflict: ErrorKind::SerializationFailure,
        copy: true,
    }
}

/// A connection of driver `C` to `s` in `ps_mode`, with TLS (the certificate
/// not verified: `required`) when `tls`.
async fn connect<C: Connection>(s: &Server, ps_mode: PsMode, tls: bool) -> C {
    let mut opts = s.opts.clone();
    opts.ps_mode = ps_mode;
    if tls {
        opts.tls = Some(TlsOptions {
            ca: None,
            mode: TlsMode::Required,
        });
    }
    C::connect(&opts)
        .await
        .unwrap_or_else(|e| panic!("connect ({ps_mode}, tls {tls}): {e}"))
}

/// The first column of the first row of `sql` as text (`None`: no row, or NULL).
async fn scalar<C: Connection>(conn: &mut C, sql: &str) -> Option<String> {
    conn.query_text(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .into_iter()
        .next()
        .and_then(|r| r.into_iter().next().flatten())
}

/// Runs each of `sql` on `conn`, panicking on an error.
async fn run<C: Connection>(conn: &mut C, sql: &[&str]) {
    for q in sql {
        conn.simple(q).await.unwrap_or_else(|e| panic!("{q}: {e}"));
    }
}

/// Table `name` created afresh (`id INT PRIMARY KEY, k INT` then `columns`),
/// holding rows `1..=rows` with `k = 0`.
async fn table<C: Connection>(s: &Server, name: &str, columns: &str, rows: u32) {
    let mut admin: C = connect(s, PsMode::Auto, false).await;
    run(
        &mut admin,
        &[
            &format!("DROP TABLE IF EXISTS {name}"),
            &format!("CREATE TABLE {name} (id INT PRIMARY KEY, k INT{columns})"),
        ],
    )
    .await;
    for id in 1..=rows {
        run(
            &mut admin,
            &[&format!("INSERT INTO {name} (id, k) VALUES ({id}, 0)")],
        )
        .await;
    }
    admin.close().await;
}

/// The error of `r`, which must have failed.
fn failed<T: std::fmt::Debug>(r: Result<T, DbError>, what: &str) -> DbError {
    match r {
        Ok(v) => panic!("{what} must fail, returned {v:?}"),
        Err(e) => e,
    }
}

/// The connection type says which driver it is, and its dialect.
fn names_its_driver<C: Connection>(s: &Server) {
    assert_eq!(C::DRIVER, s.driver);
    assert_eq!(C::DRIVER.dialect(), DbDriver::of_url(&s.opts.url).dialect());
}

/// Integers, text (a quote, a backslash, non-ASCII) and binary data (NUL,
/// 0xff, a quote) go in and come back byte for byte, prepared on the server
/// (`auto`) or inlined as literals (`disable`); NULL and a column past the
/// last are `None`, never a panic; a wrong parameter count is an error that
/// leaves the connection usable.
async fn values<C: Connection>(s: &Server, ps_mode: PsMode) {
    let t = format!("values_{ps_mode}");
    table::<C>(s, &t, &format!(", c VARCHAR(64), b {}", s.binary), 0).await;
    let mut conn: C = connect(s, ps_mode, false).await;
    let text: &[u8] = "it's a \\ test, ünïcode".as_bytes();
    let binary: &[u8] = &[0, 1, b'\'', b'\\', 0x7f, 0x80, 0xff];
    let before = scalar(&mut conn, s.prepared).await;
    let insert = conn
        .prepare(&format!(
            "INSERT INTO {t} (id, k, c, b) VALUES (?, NULL, ?, ?)"
        ))
        .await
        .expect("prepare INSERT");
    let after = scalar(&mut conn, s.prepared).await;
    let count = |v: Option<String>| v.expect("a count").parse::<u64>().expect("a number");
    let prepared_on_server = count(after) - count(before);
    assert_eq!(
        prepared_on_server,
        u64::from(ps_mode.prepares()),
        "statements prepared on the server by one prepare in {ps_mode}"
    );
    let row = [Param::Int(1), Param::Text(text), Param::Binary(binary)];
    assert_eq!(conn.execute(&insert, &row).await.expect("INSERT"), 1);
    let row = [Param::Int(-2), Param::Text(text), Param::Binary(binary)];
    let sql = format!("INSERT INTO {t} (id, k, c, b) VALUES (?, NULL, ?, ?)");
    assert_eq!(
        conn.execute_text(&sql, &row).await.expect("INSERT as text"),
        1
    );
    let select = conn
        .prepare(&format!(
            "SELECT id, c, b, k FROM {t} WHERE id BETWEEN ? AND ? ORDER BY id"
        ))
        .await
        .expect("prepare SELECT");
    let mut rows = Vec::new();
    conn.query(&select, &[Param::Int(-5), Param::Int(5)], |r| {
        assert_eq!(r.column(3), Some(None), "NULL k");
        assert_eq!(r.int(3), None, "NULL k as an integer");
        assert!(r.bytes(3).is_none(), "NULL k as bytes");
        assert_eq!(r.column(4), None, "a column past the last");
        assert_eq!(r.int(4), None);
        assert!(r.bytes(4).is_none());
        assert_eq!(r.take_bytes(4), None);
        assert_eq!(r.column(99), None);
        rows.push((
            r.int(0).expect("id"),
            r.bytes(0).expect("id as digits").to_vec(),
            r.bytes(1).expect("c").to_vec(),
            r.take_bytes(2).expect("b"),
        ));
    })
    .await
    .expect("SELECT");
    let want = |id: i64| {
        (
            id,
            id.to_string().into_bytes(),
            text.to_vec(),
            binary.to_vec(),
        )
    };
    assert_eq!(rows, vec![want(-2), want(1)]);
    // The same rows over the text protocol, unprepared.
    let mut again = Vec::new();
    conn.simple_query(&format!("SELECT id, c, b FROM {t} ORDER BY id"), |r| {
        again.push((
            r.int(0).expect("id"),
            r.bytes(1).expect("c").to_vec(),
            r.bytes(2).expect("b").to_vec(),
        ));
    })
    .await
    .expect("SELECT as text");
    assert_eq!(
        again,
        vec![
            (-2, text.to_vec(), binary.to_vec()),
            (1, text.to_vec(), binary.to_vec())
        ]
    );
    let as_text = conn
        .query_text(&format!("SELECT id, c, k FROM {t} ORDER BY id"))
        .await
        .expect("rows as text");
    let c = String::from_utf8(text.to_vec()).expect("utf-8");
    assert_eq!(
        as_text,
        vec![
            vec![Some("-2".to_string()), Some(c.clone()), None],
            vec![Some("1".to_string()), Some(c), None],
        ]
    );
    // One parameter for two placeholders: an error, and the connection goes on.
    let e = failed(
        conn.query(&select, &[Param::Int(1)], |_| {}).await,
        "a query short of a parameter",
    );
    assert_eq!(e.kind(), ErrorKind::Other, "{e}");
    let e = failed(
        conn.execute_text(&sql, &[Param::Int(3)]).await,
        "a text statement short of parameters",
    );
    assert_eq!(e.kind(), ErrorKind::Other, "{e}");
    assert_eq!(
        scalar(&mut conn, &format!("SELECT COUNT(*) FROM {t}")).await,
        Some("2".into())
    );
    conn.close().await;
}

/// An UPDATE returns the rows it changed, prepared, as text, and with its
/// values inlined.
async fn affected_rows<C: Connection>(s: &Server, ps_mode: PsMode) {
    let t = format!("affected_{ps_mode}");
    table::<C>(s, &t, "", 5).await;
    let mut conn: C = connect(s, ps_mode, false).await;
    let sql = format!("UPDATE {t} SET k = k + 1 WHERE id <= ?");
    let update = conn.prepare(&sql).await.expect("prepare UPDATE");
    assert_eq!(
        conn.execute(&update, &[Param::Int(3)])
            .await
            .expect("UPDATE"),
        3
    );
    assert_eq!(
        conn.execute(&update, &[Param::Int(0)])
            .await
            .expect("UPDATE"),
        0
    );
    assert_eq!(
        conn.execute_text(&sql, &[Param::Int(2)])
            .await
            .expect("UPDATE as text"),
        2
    );
    assert_eq!(
        conn.simple(&format!("UPDATE {t} SET k = k + 1"))
            .await
            .expect("UPDATE as text"),
        5
    );
    assert_eq!(
        conn.simple(&format!("DELETE FROM {t} WHERE id = 5"))
            .await
            .expect("DELETE"),
        1
    );
    assert_eq!(
        scalar(&mut conn, &format!("SELECT SUM(k) FROM {t}")).await,
        Some("9".into()),
        "3 + 2 + 5 increments, less the deleted row's one"
    );
    conn.close().await;
}

/// A duplicate primary key is the server's kind for it, and the connection
/// goes on.
async fn duplicate_key<C: Connection>(s: &Server) {
    table::<C>(s, "duplicate", "", 1).await;
    let mut conn: C = connect(s, PsMode::Auto, false).await;
    let insert = conn
        .prepare("INSERT INTO duplicate (id, k) VALUES (?, 0)")
        .await
        .expect("prepare");
    let e = failed(
        conn.execute(&insert, &[Param::Int(1)]).await,
        "a duplicate key",
    );
    assert_eq!(e.kind(), s.duplicate_key, "{e}");
    assert_eq!(e.kind().is_ignorable(), s.duplicate_key.is_ignorable());
    assert_eq!(
        conn.execute(&insert, &[Param::Int(2)]).await.expect("id 2"),
        1
    );
    conn.close().await;
}

/// A row another transaction holds: the wait times out (after 1 s) as the
/// server's kind for it.
async fn lock_wait_timeout<C: Connection>(s: &Server) {
    table::<C>(s, "lock_wait", "", 1).await;
    let mut holder: C = connect(s, PsMode::Auto, false).await;
    run(
        &mut holder,
        &["BEGIN", "UPDATE lock_wait SET k = k + 1 WHERE id = 1"],
    )
    .await;
    let mut waiter: C = connect(s, PsMode::Auto, false).await;
    run(&mut waiter, &[s.short_lock_wait]).await;
    let e = failed(
        waiter
            .simple("UPDATE lock_wait SET k = k + 1 WHERE id = 1")
            .await,
        "an update of a locked row",
    );
    assert_eq!(e.kind(), s.lock_wait_timeout, "{e}");
    run(&mut holder, &["ROLLBACK"]).await;
    holder.close().await;
    waiter.close().await;
}

/// Two transactions that each wait for the other's row: the server picks one
/// as the deadlock's victim ([`ErrorKind::Deadlock`], ignorable) and the
/// other goes on.
async fn deadlock<C: Connection>(s: &Server) {
    table::<C>(s, "deadlock", "", 2).await;
    let mut a: C = connect(s, PsMode::Auto, false).await;
    let mut b: C = connect(s, PsMode::Auto, false).await;
    run(&mut a, &["BEGIN", "UPDATE deadlock SET k = 1 WHERE id = 1"]).await;
    run(&mut b, &["BEGIN", "UPDATE deadlock SET k = 2 WHERE id = 2"]).await;
    let (ra, rb) = tokio::join!(
        a.simple("UPDATE deadlock SET k = 1 WHERE id = 2"),
        b.simple("UPDATE deadlock SET k = 2 WHERE id = 1"),
    );
    let (victim, survivor) = match (ra, rb) {
        (Err(e), Ok(n)) | (Ok(n), Err(e)) => (e, n),
        (ra, rb) => panic!("one deadlock victim expected: {ra:?}, {rb:?}"),
    };
    assert_eq!(victim.kind(), ErrorKind::Deadlock, "{victim}");
    assert!(victim.kind().is_ignorable());
    assert_eq!(survivor, 1);
    for c in [&mut a, &mut b] {
        run(c, &["ROLLBACK"]).await;
    }
    a.close().await;
    b.close().await;
}

/// A repeatable-read transaction that writes a row another session changed
/// since its snapshot fails as the server's kind for it (MariaDB with
/// `innodb_snapshot_isolation`: 1020; PostgreSQL: 40001), both ignorable.
async fn write_conflict<C: Connection>(s: &Server) {
    table::<C>(s, "conflict", "", 1).await;
    let mut reader: C = connect(s, PsMode::Auto, false).await;
    run(&mut reader, s.snapshot).await;
    assert_eq!(
        scalar(&mut reader, "SELECT k FROM conflict WHERE id = 1").await,
        Some("0".into())
    );
    let mut writer: C = connect(s, PsMode::Auto, false).await;
    run(&mut writer, &["UPDATE conflict SET k = 5 WHERE id = 1"]).await;
    let e = failed(
        reader
            .simple("UPDATE conflict SET k = k + 1 WHERE id = 1")
            .await,
        "a write on a row changed since the snapshot",
    );
    assert_eq!(e.kind(), s.write_conflict, "{e}");
    assert!(e.kind().is_ignorable());
    run(&mut reader, &["ROLLBACK"]).await;
    reader.close().await;
    writer.close().await;
}

/// A connection killed from another session: its next statements fail as
/// [`ErrorKind::ConnectionLost`] (reconnect), not as a plain error.
async fn lost_connection<C: Connection>(s: &Server) {
    let mut victim: C = connect(s, PsMode::Auto, false).await;
    let id = scalar(&mut victim, s.session_id).await.expect("session id");
    let mut admin: C = connect(s, PsMode::Auto, false).await;
    run(&mut admin, &[&(s.kill)(&id)]).await;
    // Until the server has ended the session (a condition, not a delay).
    let until = Instant::now() + Duration::from_secs(60);
    while scalar(&mut admin, &(s.sessions_with_id)(&id)).await != Some("0".into()) {
        assert!(
            Instant::now() < until,
            "session {id} still there 60 s after its kill"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    admin.close().await;
    for attempt in ["first", "second"] {
        let e = failed(victim.simple("SELECT 1").await, "a killed connection");
        assert_eq!(e.kind(), ErrorKind::ConnectionLost, "{attempt}: {e}");
    }
    victim.close().await;
}

/// With TLS the driver reports the session's cipher and the server agrees;
/// without, neither reports one.
async fn tls<C: Connection>(s: &Server) {
    let mut plain: C = connect(s, PsMode::Auto, false).await;
    assert!(plain.tls_session().is_none());
    let cipher = scalar(&mut plain, s.cipher).await.unwrap_or_default();
    assert!(cipher.is_empty(), "plain TCP has cipher {cipher}");
    plain.close().await;
    let mut tls: C = connect(s, PsMode::Auto, true).await;
    let session = tls.tls_session().cloned().expect("a TLS session");
    assert!(!session.cipher.is_empty() && session.version.starts_with("TLS"));
    let cipher = scalar(&mut tls, s.cipher).await.unwrap_or_default();
    assert_eq!(
        cipher, session.cipher,
        "the server's cipher for the session"
    );
    tls.close().await;
}

/// `COPY ... FROM STDIN` streams rows where the driver has it, and is
/// refused by name where it has not.
async fn copy_in<C: Connection>(s: &Server) {
    table::<C>(s, "copied", "", 0).await;
    let mut conn: C = connect(s, PsMode::Auto, false).await;
    let chunks = [b"1\t10\n2\t".to_vec(), b"20\n".to_vec()];
    let r = conn
        .copy_in("COPY copied (id, k) FROM STDIN", chunks.into_iter().map(Ok))
        .await;
    if s.copy {
        assert_eq!(r.expect("COPY"), 2);
        assert_eq!(
            scalar(&mut conn, "SELECT SUM(k) FROM copied").await,
            Some("30".into())
        );
    } else {
        let e = failed(r, "COPY without COPY");
        assert_eq!(e.kind(), ErrorKind::Other);
        assert!(
            e.to_string()
                .contains("COPY ... FROM STDIN is PostgreSQL's"),
            "{e}"
        );
    }
    conn.close().await;
}

/// Every check for the driver `$C` on the server `$server()`, in a module
/// `$driver`: one line per driver.
macro_rules! conformance {
    ($driver:ident, $C:ty, $server:ident) => {
        mod $driver {
            use super::*;

            fn check(f: impl std::future::Future<Output = ()>) {
                common::runtime().block_on(f);
            }

            #[test]
            fn names_its_driver() {
                super::names_its_driver::<$C>(&$server());
            }
            #[test]
            fn values_prepared() {
                check(values::<$C>(&$server(), PsMode::Auto));
            }
            #[test]
            fn values_unprepared() {
                check(values::<$C>(&$server(), PsMode::Disable));
            }
            #[test]
            fn affected_rows_prepared() {
                check(affected_rows::<$C>(&$server(), PsMode::Auto));
            }
            #[test]
            fn affected_rows_unprepared() {
                check(affected_rows::<$C>(&$server(), PsMode::Disable));
            }
            #[test]
            fn duplicate_key() {
                check(super::duplicate_key::<$C>(&$server()));
            }
            #[test]
            fn lock_wait_timeout() {
                check(super::lock_wait_timeout::<$C>(&$server()));
            }
            #[test]
            fn deadlock() {
                check(super::deadlock::<$C>(&$server()));
            }
            #[test]
            fn write_conflict() {
                check(super::write_conflict::<$C>(&$server()));
            }
            #[test]
            fn lost_connection() {
                check(super::lost_connection::<$C>(&$server()));
            }
            #[test]
            fn tls() {
                check(super::tls::<$C>(&$server()));
            }
            #[test]
            fn copy_in() {
                check(super::copy_in::<$C>(&$server()));
            }
        }
    };
}

conformance!(mysql, MysqlConnection, mariadb);
conformance!(pgsql, PostgresConnection, postgresql);
