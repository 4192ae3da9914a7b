//! The private PostgreSQL and the tokio-postgres driver: the
//! launcher starts, reuses and stops the server (password logins only, loopback,
//! its own socket directory, the port kept); the workloads' statements run on
//! PostgreSQL through the driver seam unchanged, with results identical between
//! plaintext and column-encrypted tables and between prepared and text protocol;
//! serialization failures and duplicate keys are ignorable (as sysbench's pgsql driver); tables prepared by stock sysbench's pgsql
//! driver run under oltp. One private PostgreSQL per test binary (a test that
//! cannot start it fails, never skips); runs as root too (the server then runs as
//! `postgres`).

#[allow(dead_code)]
mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::*;
use encbench_oltp::columns::keys::{create_key_file, default_key_file, load_codec};
use encbench_oltp::columns::{Codec, Columns, Encrypt};
use encbench_oltp::driver::{
    ConnectOptions, Connection, ErrorKind, Param, PostgresConnection, PsMode, Row,
};
use encbench_oltp::schema::{Dialect, PrepareOptions, load_table};
use encbench_oltp::server::postgres::PgServer;
use encbench_oltp::workload::{Params, RangeKind, Session, Workload};

/// Rows per table of the data sets here.
const SIZE: u32 = 200;
/// Tables per data set.
const TABLES_PG: u32 = 2;

/// The plaintext codec, or [`AEAD`]'s with a key file created in `base`.
fn codec_of(base: &Path, encrypt: &str) -> Codec {
    let e = Encrypt::parse(encrypt).expect("encrypt");
    if let Some(a) = e.algorithm() {
        let path = default_key_file(base, a);
        if !path.exists() {
            create_key_file(&path, a).expect("key file");
        }
    }
    load_codec(e, Columns::default(), None, base).expect("codec")
}

/// Loads `<prefix>_plain` in plaintext and `<prefix>_aead` sealed with
/// [`AEAD`] (default key file under `base`): each database with its codec.
async fn load_plain_and_sealed(url: &str, base: &Path, prefix: &str) -> Vec<(String, Codec)> {
    let mut loaded = Vec::new();
    for (suffix, encrypt) in [("plain", "none"), ("aead", AEAD)] {
        let (db, codec) = (format!("{prefix}_{suffix}"), codec_of(base, encrypt));
        load(url, &db, encrypt, &codec).await;
        loaded.push((db, codec));
    }
    loaded
}

/// Creates database `db` with [`TABLES_PG`] x [`SIZE`] rows sealed with `codec`.
async fn load(url: &str, db: &str, encrypt: &str, codec: &Codec) {
    let mut admin = pg(url, None).await;
    admin
        .simple(&format!("CREATE DATABASE {db}"))
        .await
        .expect("create database");
    admin.close().await;
    let mut conn = pg(url, Some(db)).await;
    let opts = PrepareOptions {
        threads: 1,
        seed: encbench_oltp::schema::DEFAULT_SEED,
        create_secondary: true,
        auto_inc: true,
        secondary: false,
    };
    let alg = Encrypt::parse(encrypt).expect("encrypt").algorithm();
    for n in 1..=TABLES_PG {
        load_table(
            &mut conn,
            Dialect::Postgres,
            n,
            SIZE,
            alg,
            Columns::default(),
            codec,
            opts.seed,
            &opts,
            &|_| {},
        )
        .await
        .expect("load table");
    }
    conn.close().await;
}

async fn session(
    url: &str,
    db: &str,
    codec: &Codec,
    workload: Workload,
    mode: PsMode,
) -> Session<PostgresConnection> {
    let mut params = Params::new(TABLES_PG, SIZE);
    params.opts.db_ps_mode = mode;
    Session::<PostgresConnection>::connect(
        ConnectOptions::new(url).database(db),
        workload,
        codec.clone(),
        params,
    )
    .await
    .unwrap_or_else(|e| panic!("session on {db} ({mode}): {e}"))
}

/// Everything oltp_read_only reads over a fixed set of ids, in plaintext.
async fn reads(s: &mut Session<PostgresConnection>) -> Vec<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for table in 1..=TABLES_PG {
        for id in [1, 2, 57, 100, SIZE] {
            out.push(s.point_select(table, id).await.expect("point").to_vec());
        }
        for (lo, hi) in [(1, 10), (90, 120), (SIZE - 5, SIZE)] {
            for kind in [RangeKind::Simple, RangeKind::Order, RangeKind::Distinct] {
                out.push(s.range(kind, table, lo, hi).await.expect("range").to_vec());
            }
            let sum = s.sum_range(table, lo, hi).await.expect("sum");
            out.push(vec![
                sum.expect("sum of a non-empty range")
                    .to_string()
                    .into_bytes(),
            ]);
        }
    }
    out
}

#[test]
fn server_starts_is_reused_and_stops() {
    let dir = pg_tempdir();
    let first = start_pg(dir.path());
    assert!(first.started_here());
    let password = std::fs::read_to_string(first.layout().password_file()).expect("password");
    assert!(
        !format!("{first:?}").contains(password.trim()),
        "Debug leaves the password out"
    );
    let layout = first.layout().clone();
    let hba = std::fs::read_to_string(layout.data().join("pg_hba.conf")).expect("pg_hba");
    assert!(!hba.contains("trust"), "no trust line: {hba}");
    let mode = std::fs::metadata(layout.password_file())
        .expect("password")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let second = start_pg(dir.path());
    assert!(!second.started_here(), "a running server is reused");
    assert_eq!((second.port(), second.pid()), (first.port(), first.pid()));
    assert_eq!(second.url(), first.url());
    let port = first.port();
    runtime().block_on(async {
        let mut c = pg(&first.url(), None).await;
        let who = c
            .query_text("SELECT current_user, inet_server_addr()::text, current_setting('listen_addresses')")
            .await
            .expect("query");
        assert_eq!(
            who[0],
            vec![
                Some("encbench".to_string()),
                Some("127.0.0.1/32".to_string()),
                Some("127.0.0.1".to_string())
            ]
        );
        c.close().await;
    });
    drop(second);
    assert!(
        PgServer::running(dir.path()).expect("running").is_some(),
        "a reused handle leaves it running"
    );
    first.stop().expect("stop");
    assert!(PgServer::running(dir.path()).expect("running").is_none());
    let again = start_pg(dir.path());
    assert!(again.started_here());
    assert_eq!(again.port(), port, "the port is kept across restarts");
    again.stop().expect("stop");

    // The command line: the URL alone on stdout, then stop.
    let home = dir.path().join("home");
    // `oltp server ACTION` of this server: it succeeds.
    let server = |action: &str| {
        let flags = ["--db-driver", "pgsql", "--base-dir", utf8(dir.path())];
        let argv: [&[&str]; 2] = [&["server", action], &flags];
        let out = oltp_bin(&home, &argv.concat());
        assert!(
            out.status.success(),
            "{action}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    let out = server("start");
    // The URL without its password (not for a command line), the
    // password's file on stderr.
    let stdout = String::from_utf8_lossy(&out.stdout);
    let url = again_url(dir.path());
    assert_eq!(
        stdout.trim(),
        encbench_common::password::without_password(&url),
        "stdout is the URL without its password"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let file = PgServer::running(dir.path())
        .expect("running")
        .expect("a server runs")
        .layout()
        .password_file();
    assert!(
        stderr.contains(&format!("--password-file {}", file.display())),
        "{stderr}"
    );
    let password = url
        .split_once("encbench:")
        .and_then(|(_, r)| r.split_once('@'))
        .map(|(p, _)| p)
        .expect("the URL's password");
    assert!(!stdout.contains(password) && !stderr.contains(password));
    server("stop");
    assert!(PgServer::running(dir.path()).expect("running").is_none());
}

/// The URL of the server running in `dir`.
fn again_url(dir: &Path) -> String {
    PgServer::running(dir)
        .expect("running")
        .expect("a server runs")
        .url()
}

#[test]
fn bad_logins_and_urls_are_one_line_errors() {
    let s = shared_pg();
    // postgres://encbench:xPASSWORD@...: the password with an x in front.
    let wrong = s.url().replacen("encbench:", "encbench:x", 1);
    assert_ne!(wrong, s.url());
    runtime().block_on(async {
        let e = PostgresConnection::connect(&ConnectOptions::new(wrong.clone()))
            .await
            .err()
            .expect("a wrong password must fail");
        let msg = e.to_string();
        assert!(msg.contains("password authentication failed"), "{msg}");
        assert!(!msg.contains('\n'), "one line: {msg}");
        let e = PostgresConnection::connect(&ConnectOptions::new("mysql://u:p@127.0.0.1:1/"))
            .await
            .err()
            .expect("a mysql:// URL must be refused");
        assert!(
            e.to_string().contains(
                "postgres://USER@HOST:PORT/DB, the password in --password-file F or $PGPASSWORD"
            ),
            "{e}"
        );
        assert!(
            !e.to_string().contains(":p@"),
            "no password in the message: {e}"
        );
    });
}

#[test]
fn params_keep_text_and_bytea_apart() {
    let s = shared_pg();
    runtime().block_on(async {
        let mut c = pg(s.url(), None).await;
        c.simple("CREATE TABLE params_t (i INTEGER, b BIGINT, t TEXT, ch CHAR(8), y BYTEA)")
            .await
            .expect("create");
        let ins = c
            .prepare("INSERT INTO params_t VALUES (?, ?, ?, ?, ?)")
            .await
            .expect("prepare");
        let bin = [0u8, 0xff, b'\'', 0x5c];
        let n = c
            .execute(
                &ins,
                &[
                    Param::Int(-7),
                    Param::Int(1 << 40),
                    Param::Text(b"it's"),
                    Param::Text(b"ab"),
                    Param::Binary(&bin),
                ],
            )
            .await
            .expect("insert");
        assert_eq!(n, 1);
        for mode in [PsMode::Auto, PsMode::Disable] {
            let mut opts = ConnectOptions::new(s.url());
            opts.ps_mode = mode;
            let mut c = PostgresConnection::connect(&opts).await.expect("connect");
            let sel = c
                .prepare("SELECT i, b, t, ch, y FROM params_t WHERE i = ? AND t = ?")
                .await
                .expect("prepare");
            let mut got = Vec::new();
            c.query(&sel, &[Param::Int(-7), Param::Text(b"it's")], |r| {
                got.push((
                    r.int(0),
                    r.int(1),
                    r.take_bytes(2),
                    r.take_bytes(3),
                    r.take_bytes(4),
                ));
            })
            .await
            .expect("select");
            assert_eq!(
                got,
                vec![(
                    Some(-7),
                    Some(1 << 40),
                    Some(b"it's".to_vec()),
                    Some(b"ab".to_vec()),
                    Some(bin.to_vec())
                )],
                "{mode}"
            );
            // A binary value for a text column is refused, never stored as text.
            let upd = c
                .prepare("UPDATE params_t SET t = ? WHERE i = ?")
                .await
                .expect("prepare");
            if mode == PsMode::Auto {
                assert!(
                    c.execute(&upd, &[Param::Binary(&bin), Param::Int(-7)])
                        .await
                        .is_err()
                );
            }
            c.close().await;
        }
        c.simple("DROP TABLE params_t").await.expect("drop");
        c.close().await;
    });
}

#[test]
fn read_only_results_are_identical_plain_and_encrypted() {
    let s = shared_pg();
    let base = s.dir().join("ro-home");
    runtime().block_on(async {
        let mut all = Vec::new();
        let loaded = load_plain_and_sealed(s.url(), &base, "ro").await;
        for (db, codec) in &loaded {
            for mode in [PsMode::Auto, PsMode::Disable] {
                let mut sess = session(s.url(), db, codec, Workload::OltpReadOnly, mode).await;
                all.push((db, mode, reads(&mut sess).await));
                sess.close().await;
            }
        }
        let (_, _, reference) = &all[0];
        // Point selects return sysbench's 119-character c (CHAR pad spaces dropped).
        assert_eq!(reference[0].len(), 1);
        assert_eq!(reference[0][0].len(), 119);
        for (db, mode, r) in &all[1..] {
            assert!(
                r == reference,
                "{db} over {mode} reads differ from ro_plain over auto"
            );
        }
    });
}

#[test]
fn read_write_runs_on_plain_and_encrypted_tables() {
    let s = shared_pg();
    let base = s.dir().join("rw-home");
    runtime().block_on(async {
        let mut after = Vec::new();
        let loaded = load_plain_and_sealed(s.url(), &base, "rw").await;
        for (db, codec) in &loaded {
            let mut sess = session(s.url(), db, codec, Workload::OltpReadWrite, PsMode::Auto).await;
            sess.text("BEGIN").await.expect("begin");
            assert!(sess.index_update(1, 5).await.expect("index update"));
            let c = b"11111111111-22222222222-33333333333-44444444444-55555555555-66666666666-77777777777-88888888888-99999999999-00000000000";
            assert!(sess.non_index_update(1, 6, c).await.expect("non-index update"));
            assert!(sess.delete(1, 7).await.expect("delete"));
            assert!(sess.insert(1, 7, 42, c, b"pad-pad").await.expect("insert"));
            sess.text("COMMIT").await.expect("commit");
            let mut r = Vec::new();
            for id in [5, 6, 7] {
                r.push(sess.point_select(1, id).await.expect("point").to_vec());
            }
            r.push(vec![sess.sum_range(1, 5, 7).await.expect("sum").expect("sum").to_string().into_bytes()]);
            after.push(r);
            sess.close().await;
        }
        assert_eq!(after[0], after[1], "plaintext and encrypted tables agree after the writes");
        assert_eq!(after[0][1][0].len(), 119);
    });
}

#[test]
fn serialization_failure_and_duplicate_key_are_ignorable() {
    let s = shared_pg();
    runtime().block_on(async {
        let mut a = pg(s.url(), None).await;
        let mut b = pg(s.url(), None).await;
        a.simple("CREATE TABLE ser_t (id INTEGER PRIMARY KEY, v INTEGER)")
            .await
            .expect("create");
        a.simple("INSERT INTO ser_t VALUES (1, 0)")
            .await
            .expect("insert");
        a.simple("BEGIN ISOLATION LEVEL REPEATABLE READ")
            .await
            .expect("begin");
        a.query_text("SELECT v FROM ser_t WHERE id = 1")
            .await
            .expect("snapshot");
        b.simple("UPDATE ser_t SET v = 1 WHERE id = 1")
            .await
            .expect("concurrent update");
        let e = a
            .simple("UPDATE ser_t SET v = 2 WHERE id = 1")
            .await
            .expect_err("the update of a row changed since the snapshot must fail");
        assert_eq!(e.kind(), ErrorKind::SerializationFailure, "{e}");
        assert!(e.kind().is_ignorable());
        assert!(e.to_string().contains("40001"), "{e}");
        a.simple("ROLLBACK").await.expect("rollback");
        // sysbench's pgsql driver also ignores unique_violation (23505).
        let e = a
            .simple("INSERT INTO ser_t VALUES (1, 0)")
            .await
            .expect_err("a taken id must fail");
        assert_eq!(e.kind(), ErrorKind::DuplicateKey, "{e}");
        assert!(e.kind().is_ignorable());
        a.simple("DROP TABLE ser_t").await.expect("drop");
        a.close().await;
        b.close().await;
    });
}

#[test]
fn sysbench_pgsql_tables_run_under_oltp() {
    let s = shared_pg();
    runtime().block_on(async {
        let mut admin = pg(s.url(), None).await;
        admin
            .simple("CREATE DATABASE sb_interop")
            .await
            .expect("create database");
        admin.close().await;
    });
    let out = stock_sysbench_pgsql(
        s,
        "sb_interop",
        &[
            "--tables=2",
            &format!("--table-size={SIZE}"),
            "oltp_read_only",
            "prepare",
        ],
    );
    assert!(
        out.status.success(),
        "sysbench prepare: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    runtime().block_on(async {
        let codec = Codec::plaintext();
        let mut sess = session(
            s.url(),
            "sb_interop",
            &codec,
            Workload::OltpReadWrite,
            PsMode::Auto,
        )
        .await;
        for id in [1, SIZE / 2, SIZE] {
            let c = sess.point_select(2, id).await.expect("point").to_vec();
            assert_eq!(c.len(), 1, "id {id}");
            assert_eq!(c[0].len(), 119, "sysbench's c, id {id}");
        }
        let ids = sess
            .range(RangeKind::Order, 1, 1, 10)
            .await
            .expect("range")
            .len();
        assert_eq!(ids, 10);
        assert!(sess.sum_range(1, 1, 10).await.expect("sum").is_some());
        assert!(sess.index_update(1, 3).await.expect("index update"));
        sess.close().await;
    });
}

#[test]
fn a_base_dir_postgres_cannot_reach_is_refused_as_root() {
    if !nix::unistd::geteuid().is_root() {
        // Not root: the server runs as ourselves and reaches any directory we can.
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let e = PgServer::start(&dir.path().join("base"))
        .expect_err("postgres cannot enter a 0700 root dir");
    let msg = e.to_string();
    assert!(
        msg.contains("cannot enter") && msg.contains("--base-dir"),
        "{msg}"
    );
    assert!(!dir.path().join("base").exists(), "nothing is created");
}
