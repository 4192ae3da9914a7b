//! Defects found by review and by new users, each reproduced on a real private MariaDB server
//! (the one shared by this test binary): half-loaded tables used as complete,
//! a prepare that lost its server, a key file written before a refusal, and a
//! value that fails authentication mid-run.

#[allow(dead_code)]
mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::*;
use encbench_oltp::columns::Encrypt;
use encbench_oltp::columns::keys::default_key_file;
use mysql_async::prelude::*;

/// `oltp run` of plaintext `db` (TABLES x ROWS unless `size` says otherwise), 1 s.
async fn run_plain(
    url: &str,
    base: &str,
    db: &str,
    tables: &str,
    size: &str,
) -> Result<bool, String> {
    let extra = ["--time", "1", "--workload", "oltp_point_select"];
    cli(&sized_args("run", url, base, db, (tables, size), &extra)).await
}

/// `oltp prepare --encrypt none` of `db`, TABLES x ROWS.
async fn prepare_plain(url: &str, base: &str, db: &str) -> Result<bool, String> {
    cli(&args("prepare", url, base, db, &[])).await
}

async fn cleanup_plain(url: &str, base: &str, db: &str) -> Result<bool, String> {
    cli(&[
        "cleanup",
        "--mysql-url",
        url,
        "--base-dir",
        base,
        "--mysql-db",
        db,
        "--encrypt",
        "none",
    ])
    .await
}

#[test]
fn a_loading_mark_is_refused_by_run_and_prepare_until_cleanup() {
    let t = shared_server();
    let (url, base) = (t.url.clone(), t.base());
    let b = utf8(&base).to_string();
    let s = shown(&url, &base);
    let (tables, rows) = (TABLES.to_string(), ROWS.to_string());
    runtime().block_on(async {
        let db = "dfmark";
        assert_eq!(prepare_plain(&url, &b, db).await, Ok(true));
        let mut c = conn(&url, Some(db)).await;
        c.query_drop("REPLACE INTO encbench_meta (name, value) VALUES ('state', 'loading')")
            .await
            .expect("mark");
        c.disconnect().await.expect("disconnect");
        let e = run_plain(&url, &b, db, &tables, &rows).await.expect_err("half loaded");
        assert_eq!(
            e,
            format!("dfmark is half loaded (a prepare did not finish): run `oltp cleanup --encrypt none --mysql-db dfmark{s}`, then `oltp prepare --tables 2 --table-size 1000 --encrypt none --mysql-db dfmark{s}`")
        );
        let e = prepare_plain(&url, &b, db).await.expect_err("half loaded");
        assert_eq!(
            e,
            format!("dfmark is half loaded (a prepare did not finish): run `oltp cleanup --encrypt none --mysql-db dfmark{s}` first, then prepare again")
        );
        // The steps named work.
        assert_eq!(cleanup_plain(&url, &b, db).await, Ok(true));
        assert_eq!(prepare_plain(&url, &b, db).await, Ok(true));
        assert_eq!(run_plain(&url, &b, db, &tables, &rows).await, Ok(true));
    });
}

#[test]
fn tables_without_meta_must_be_complete_as_sysbench_leaves_them() {
    let t = shared_server();
    let (url, base) = (t.url.clone(), t.base());
    let b = utf8(&base).to_string();
    let s = shown(&url, &base);
    let (tables, rows) = (TABLES.to_string(), ROWS.to_string());
    runtime().block_on(async {
        let db = "dfsb";
        assert_eq!(prepare_plain(&url, &b, db).await, Ok(true));
        let mut c = conn(&url, Some(db)).await;
        // As sysbench prepares them: no encbench_meta. Complete: they run.
        c.query_drop("DROP TABLE encbench_meta").await.expect("drop meta");
        assert_eq!(run_plain(&url, &b, db, &tables, &rows).await, Ok(true));
        // The index of one table missing, as after a load that stopped.
        c.query_drop("DROP INDEX k_1 ON sbtest1").await.expect("drop index");
        let e = run_plain(&url, &b, db, &tables, &rows).await.expect_err("no k_1");
        assert_eq!(
            e,
            format!("dfsb.sbtest1 has no index k_1 and no encbench_meta: a prepare did not finish; run `oltp cleanup --encrypt none --mysql-db dfsb{s}`, then `oltp prepare --tables 2 --table-size 1000 --encrypt none --mysql-db dfsb{s}`")
        );
        c.query_drop("CREATE INDEX k_1 ON sbtest1(k)").await.expect("index");
        // Rows missing at the end of a table, as after a load that stopped.
        c.query_drop("DELETE FROM sbtest2 WHERE id > 600").await.expect("delete");
        let e = run_plain(&url, &b, db, &tables, &rows).await.expect_err("rows missing");
        assert_eq!(
            e,
            format!("dfsb.sbtest2 holds ids up to 600 of --table-size 1000 and no encbench_meta: a prepare did not finish; run `oltp cleanup --encrypt none --mysql-db dfsb{s}`, then `oltp prepare --tables 2 --table-size 1000 --encrypt none --mysql-db dfsb{s}`")
        );
        let e = prepare_plain(&url, &b, db).await.expect_err("half loaded");
        assert_eq!(
            e,
            format!("dfsb is half loaded (dfsb.sbtest2 holds ids up to 600 of --table-size 1000, no encbench_meta): run `oltp cleanup --encrypt none --mysql-db dfsb{s}` first, then prepare again")
        );
        // A table whose load had not begun: empty.
        c.query_drop("DELETE FROM sbtest2").await.expect("delete");
        let e = run_plain(&url, &b, db, &tables, &rows).await.expect_err("empty");
        assert!(e.starts_with("dfsb.sbtest2 holds ids up to 0 of --table-size 1000"), "{e}");
        c.disconnect().await.expect("disconnect");
        assert_eq!(cleanup_plain(&url, &b, db).await, Ok(true));
    });
}

#[test]
fn a_killed_prepare_leaves_tables_that_run_refuses() {
    let t = shared_server();
    let (url, base) = (t.url.clone(), t.base());
    let b = utf8(&base).to_string();
    let s = shown(&url, &base);
    let db = "dfkill";
    let size = "3000000";
    let prepare_args = sized_args("prepare", &url, &b, db, ("1", size), &[]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_oltp"))
        .args(&prepare_args)
        .env("ENCBENCH_HOME", &base)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start oltp prepare");
    runtime().block_on(async {
        wait_until_loading(&url, db).await;
        child.kill().expect("SIGKILL the prepare");
        child.wait().expect("wait");
        let e = run_plain(&url, &b, db, "1", size).await.expect_err("half loaded");
        assert!(e.starts_with(&format!("dfkill is half loaded (a prepare did not finish): run `oltp cleanup --encrypt none --mysql-db dfkill{s}`, then `oltp prepare")), "{e}");
        let e = cli(&prepare_args).await.expect_err("half loaded");
        assert!(e.contains("half loaded") && e.contains("oltp cleanup --encrypt none --mysql-db dfkill"), "{e}");
        assert!(!e.contains("use them as they are"), "{e}");
        assert_eq!(cleanup_plain(&url, &b, db).await, Ok(true));
    });
}

#[test]
fn cleanup_refuses_a_bad_encrypt_list_before_it_drops_anything() {
    // scripts/quickstart drops only ENCRYPT's databases, through this check.
    let t = shared_server();
    let (url, base) = (t.url.clone(), t.base());
    let b = utf8(&base).to_string();
    let db = "dfbadlist";
    runtime().block_on(async {
        assert_eq!(prepare_plain(&url, &b, db).await, Ok(true));
        let e = cli(&args("cleanup", &url, &b, db, &["--encrypt", "none,bogus"]))
            .await
            .expect_err("a bad choice");
        assert!(e.contains("bogus"), "{e}");
        assert_eq!(
            run_plain(&url, &b, db, &TABLES.to_string(), &ROWS.to_string()).await,
            Ok(true),
            "still there"
        );
        assert_eq!(cleanup_plain(&url, &b, db).await, Ok(true));
    });
}

/// A file system of `mib` MiB (ext4 in a loop-mounted image) at `dir/mnt`,
/// unmounted when dropped.
struct TinyFs {
    mnt: std::path::PathBuf,
}

impl TinyFs {
    fn new(dir: &std::path::Path, mib: u32) -> TinyFs {
        let (image, mnt) = (dir.join("fs.img"), dir.join("mnt"));
        let file = std::fs::File::create(&image).expect("create the image");
        file.set_len(u64::from(mib) << 20).expect("size the image");
        std::fs::create_dir(&mnt).expect("mount point");
        let run = |cmd: &mut Command| {
            let out = cmd.output().expect("run");
            assert!(
                out.status.success(),
                "{cmd:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        run(Command::new("mkfs.ext4").args(["-q", "-F"]).arg(&image));
        // As root (mount needs it): the servers run as mysql, which must enter it.
        run(Command::new("mount")
            .args(["-o", "loop"])
            .arg(&image)
            .arg(&mnt));
        let fs = TinyFs { mnt };
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&fs.mnt, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        fs
    }
}

impl Drop for TinyFs {
    fn drop(&mut self) {
        if !Command::new("umount")
            .arg(&self.mnt)
            .status()
            .is_ok_and(|s| s.success())
        {
            let _ = Command::new("umount").arg("-l").arg(&self.mnt).status();
        }
    }
}

#[test]
fn prepare_refuses_a_load_its_disk_cannot_hold_before_loading() {
    // New-user finding: on a 250 MB file system prepare failed mid-load with
    // "The table 'sbtest3' is full", never naming the disk.
    let dir = server_tempdir();
    if !nix::unistd::geteuid().is_root() {
        // No loop mount without root: a load larger than any disk instead.
        let base = dir.path().join("encbench");
        let b = utf8(&base).to_string();
        let args = [
            "prepare",
            "--base-dir",
            &b,
            "--tables",
            "100000",
            "--table-size",
            "1000000000",
        ];
        let out = oltp_bin(&base, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains(
                "Error: prepare of sbtest (100000 tables x 1000000000 rows each) needs about "
            ) && stderr.contains(" on the file system at "),
            "{stderr}"
        );
        assert!(
            !base.join("mariadb/data/sbtest").exists(),
            "refused before loading"
        );
        return;
    }
    let fs = TinyFs::new(dir.path(), 300);
    let base = fs.mnt.join("encbench");
    let b = utf8(&base).to_string();
    let prepare = |tables: &str, size: &str| {
        oltp_bin(
            &base,
            &[
                "prepare",
                "--base-dir",
                &b,
                "--mysql-db",
                "dfdisk",
                "--tables",
                tables,
                "--table-size",
                size,
            ],
        )
    };
    // 2 x 500,000 plaintext rows: about 530 MiB, on a file system of 300 MiB.
    let out = prepare("2", "500000");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let line = stderr.lines().last().unwrap_or_default();
    let data = base.join("mariadb").join("data");
    let mnt = utf8(&fs.mnt);
    assert!(
        line.starts_with(&format!(
            "Error: prepare of dfdisk (2 tables x 500000 rows each) needs about 588 MiB on the file system at {mnt} (the server's data directory {}) (535 MiB of data and 10% reserve), only ",
            data.display()
        )),
        "{line}"
    );
    assert!(
        line.ends_with(" MiB is free: give fewer --tables or a smaller --table-size, free space there, or use --base-dir on a larger disk"),
        "{line}"
    );
    assert!(
        !data.join("dfdisk").exists(),
        "refused before creating the database"
    );
    // One that fits loads on the same file system.
    let out = prepare("1", "1000");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(data.join("dfdisk").exists());
}

/// Sends `signal` to process `pid` (a child of the test).
fn signal(pid: u32, signal: nix::sys::signal::Signal) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), signal)
        .unwrap_or_else(|e| panic!("{signal} to {pid}: {e}"));
}

#[test]
fn a_second_prepare_while_one_loads_says_so_and_never_advises_cleanup() {
    // New-user finding: the second prepare called the first's database half
    // loaded and advised the cleanup that would destroy it under the first.
    use nix::sys::signal::Signal::{SIGCONT, SIGSTOP};
    let t = shared_server();
    let (url, base) = (t.url.clone(), t.base());
    let b = utf8(&base).to_string();
    let db = "dfconcurrent";
    let size = "500000";
    let prepare_args = sized_args("prepare", &url, &b, db, ("1", size), &[]);
    let first = Command::new(env!("CARGO_BIN_EXE_oltp"))
        .args(&prepare_args)
        .env("ENCBENCH_HOME", &base)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start oltp prepare");
    runtime().block_on(async {
        wait_until_loading(&url, db).await;
        // Paused mid-load (its lock and connections held), so the checks
        // below run while it loads, however fast or slow the machine.
        signal(first.id(), SIGSTOP);
        let e = cli(&prepare_args).await.expect_err("another prepare");
        assert_eq!(
            e,
            "dfconcurrent is being loaded by another prepare running now: wait for it to finish, then use its tables (they are ready when it ends)"
        );
        let e = run_plain(&url, &b, db, "1", size).await.expect_err("loading");
        assert_eq!(
            e,
            "dfconcurrent is being loaded by a prepare running now: wait for it to finish, then run again"
        );
        // Nor does cleanup drop the tables under it.
        let e = cleanup_plain(&url, &b, db).await.expect_err("loading");
        assert_eq!(
            e,
            "dfconcurrent is being loaded by a prepare running now: wait for it to finish (or stop it with Ctrl-C), then clean up"
        );
        signal(first.id(), SIGCONT);
    });
    let out = first.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the first prepare: {stderr}");
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("prepared dfconcurrent: 1 table x 500000 rows"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    runtime().block_on(async {
        assert_eq!(run_plain(&url, &b, db, "1", size).await, Ok(true), "intact");
        assert_eq!(cleanup_plain(&url, &b, db).await, Ok(true));
    });
}

#[test]
fn a_lost_connection_during_prepare_names_the_database_and_cleanup() {
    let t = shared_server();
    let (url, base) = (t.url.clone(), t.base());
    let b = utf8(&base).to_string();
    let s = shown(&url, &base);
    let db = "dflost";
    let rt = runtime();
    rt.block_on(async {
        let prepare_args = sized_args("prepare", &url, &b, db, ("1", "3000000"), &[]);
        let load = tokio::spawn({
            let args = prepare_args.clone();
            async move { cli(&args).await }
        });
        wait_until_loading(&url, db).await;
        // The loader's connection is the one with the database selected.
        let mut c = conn(&url, None).await;
        let ids: Vec<u64> = c
            .query(format!("SELECT ID FROM information_schema.PROCESSLIST WHERE DB = '{db}'"))
            .await
            .expect("processlist");
        assert!(!ids.is_empty(), "no loader connection");
        for id in ids {
            let _ = c.query_drop(format!("KILL CONNECTION {id}")).await;
        }
        let e = load.await.expect("prepare task").expect_err("connection lost");
        assert!(
            e.starts_with("prepare lost the connection to the server ("),
            "{e}"
        );
        assert!(
            e.ends_with(&format!("): the server went away, dflost is half loaded; once the server is up, run `oltp cleanup --encrypt none --mysql-db dflost{s}` before preparing again")),
            "{e}"
        );
        let e = cli(&prepare_args).await.expect_err("half loaded");
        assert_eq!(
            e,
            format!("dflost is half loaded (a prepare did not finish): run `oltp cleanup --encrypt none --mysql-db dflost{s}` first, then prepare again")
        );
        c.disconnect().await.expect("disconnect");
        assert_eq!(cleanup_plain(&url, &b, db).await, Ok(true));
    });
}

#[test]
fn prepare_refuses_prepared_tables_before_creating_a_key_file() {
    let t = shared_server();
    let (url, base) = (t.url.clone(), t.base());
    let b = utf8(&base).to_string();
    let s = shown(&url, &base);
    let db = "dfkey";
    runtime().block_on(async {
        prepare(&url, &base, db, AEAD, &[]).await;
        let alg = Encrypt::parse(AEAD).expect("aead").algorithm().expect("algorithm");
        let key = default_key_file(&base, alg);
        let moved = t.file("moved.key");
        std::fs::rename(&key, &moved).expect("move the key file away");
        let e = cli(&args("prepare", &url, &b, db, &["--encrypt", AEAD]))
            .await
            .expect_err("already prepared");
        assert!(!key.exists(), "prepare created {} before refusing", key.display());
        assert_eq!(
            e,
            format!("dfkey_aes_256_gcm already holds sbtest tables: run `oltp cleanup --encrypt rustcrypto:aes-256-gcm --mysql-db dfkey{s}` first, or use them as they are")
        );
        // A --key-file that does not exist is refused, and not created either.
        let missing = t.file("missing.key");
        let e = cli(&[
            "prepare", "--mysql-url", &url, "--base-dir", &b, "--mysql-db", "dfkey2", "--encrypt", AEAD,
            "--key-file", utf8(&missing),
        ])
        .await
        .expect_err("missing key file");
        assert!(e.contains("does not exist"), "{e}");
        assert!(!missing.exists());
        std::fs::rename(&moved, &key).expect("put the key file back");
        assert_eq!(
            cli(&["cleanup", "--mysql-url", &url, "--base-dir", &b, "--mysql-db", db]).await,
            Ok(true)
        );
    });
}

/// New-user finding: `--key-file /dev/zero` read 3.7 GB before running out of
/// memory, a FIFO as key file blocked forever. A key file is a regular file of
/// at most 64 KiB: a device, a FIFO, a directory or a larger file is one line
/// naming it and the fix, exit 1, before anything is created.
#[test]
fn a_key_file_that_is_no_regular_file_or_too_large_is_one_line() {
    let t = shared_server();
    let (url, base) = (t.url.clone(), t.base());
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success(), "mkfifo");
    // 64 KiB + 1 of comment lines, mode 0600: a key file in every way but its size.
    let big = dir.path().join("big.keys");
    write_key_file(
        &big,
        &"#".repeat(usize::try_from(encbench_common::files::MAX_KEY_FILE).expect("small") + 1),
    );
    let fix = "give a key file of ID;HEX lines (--key-file)";
    for (file, is) in [
        (
            Path::new("/dev/zero"),
            "is a character device, not a regular file".to_string(),
        ),
        (fifo.as_path(), "is a FIFO, not a regular file".to_string()),
        (dir.path(), "is a directory, not a regular file".to_string()),
        (
            big.as_path(),
            "is larger than 64 KiB, too large for a key file of ID;HEX lines (--key-file)"
                .to_string(),
        ),
    ] {
        let args = [
            "prepare",
            "--mysql-url",
            &url,
            "--base-dir",
            utf8(&base),
            "--mysql-db",
            "dfcap",
            "--encrypt",
            AEAD,
            "--key-file",
            utf8(file),
        ];
        let out = oltp_bin_within(&base, &args, std::time::Duration::from_secs(60));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        let want = format!("key file {} {is}: {fix}", file.display());
        assert!(
            stderr.starts_with("Error: ") && stderr.trim_end().ends_with(&want),
            "{stderr}"
        );
    }
}

#[test]
fn an_ipv6_literal_in_the_url_connects() {
    // `mysql://u:p@[::1]:PORT` failed with "failed to lookup address
    // information": the brackets reached the resolver.
    let t = shared_server();
    let (url, base) = (t.url.clone(), t.base());
    let b = utf8(&base).to_string();
    let port = t.shared.server().port();
    let target = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let relay = common::relay::Relay::start_on(
        "[::1]:0",
        target,
        common::relay::Fault::Delay(std::time::Duration::ZERO),
    )
    .port;
    let v6 = url.replace(&format!("127.0.0.1:{port}"), &format!("[::1]:{relay}"));
    assert_ne!(v6, url, "the shared URL names 127.0.0.1:{port}");
    let (tables, rows) = (TABLES.to_string(), ROWS.to_string());
    runtime().block_on(async {
        let db = "dfipv6";
        assert_eq!(prepare_plain(&v6, &b, db).await, Ok(true));
        assert_eq!(run_plain(&v6, &b, db, &tables, &rows).await, Ok(true));
        assert_eq!(cleanup_plain(&v6, &b, db).await, Ok(true));
    });
    // Messages name the address as the URL does.
    assert_eq!(
        encbench_oltp::driver::mysql::target(&format!("mysql://u:p@[::1]:{relay}/")),
        format!("u@[::1]:{relay}")
    );
}
