//! `--at-rest MODE` end to end: for MariaDB and the private PostgreSQL,
//! each filesystem mode and its control (gocryptfs / fuse-passthrough, fscrypt /
//! ext4-loop) prepares 1 table x 1,000 rows on its own mounted server, runs 1 s, and
//! records `at_rest` in the JSON; the test itself searches the host's disk (the backing
//! store) for a `c` value known from the seed: absent for the encrypting modes, found for
//! the controls (which proves the search can find it). The mount is gone once the last
//! command stops the server, is made again by `oltp server start` and `cleanup`, and
//! `server stop` removes it; a run before prepare names the prepare command
//! of this mode's server, which the test then runs. `innodb` is verified on MariaDB's data directory after a
//! flush, with `off` (named in the list) as its control. Refusals before anything starts: luks without device-mapper,
//! innodb with PostgreSQL, a filesystem mode with a URL, not root, and (on a machine
//! without /dev/fuse) the FUSE modes; never a silent skip.

#[allow(dead_code)]
mod common;

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{cli, pg_shown, pg_tempdir, read_json, runtime, strings, utf8};
use encbench_oltp::at_rest::{AtRest, Store, find_in_tree};
use encbench_oltp::schema::DEFAULT_SEED;
use encbench_oltp::schema::plaintext_canary;

/// Rows of the one table.
const ROWS: u32 = 1000;

/// The engine directory of `mode`'s private server for `driver` under `base`.
fn engine_dir(base: &Path, mode: AtRest, driver: &str) -> PathBuf {
    mode.server_base(base).join(if driver == "pgsql" {
        "postgresql"
    } else {
        "mariadb"
    })
}

/// `--db-driver DRIVER --base-dir BASE --at-rest MODE`: the server of `mode`.
fn engine_flags<'a>(driver: &'a str, base: &'a Path, mode: AtRest) -> [&'a str; 6] {
    [
        "--db-driver",
        driver,
        "--base-dir",
        utf8(base),
        "--at-rest",
        mode.name(),
    ]
}

/// `command` on the server of `mode` ([`engine_flags`]) with `--tables 1
/// --table-size 1000`, then `extra`.
fn args(command: &str, driver: &str, base: &Path, mode: AtRest, extra: &[&str]) -> Vec<String> {
    let rows = ROWS.to_string();
    let (flags, tables) = (
        engine_flags(driver, base, mode),
        ["--tables", "1", "--table-size", &rows],
    );
    let parts: [&[&str]; 4] = [&[command], &flags, &tables, extra];
    strings(&parts.concat())
}

/// `oltp server start|stop` for `mode` (the in-process CLI).
fn server(action: &str, driver: &str, base: &Path, mode: AtRest) -> Result<bool, String> {
    let flags = engine_flags(driver, base, mode);
    let parts: [&[&str]; 2] = [&["server", action], &flags];
    runtime().block_on(cli(&strings(&parts.concat())))
}

/// Unmounts a store a failed test left mounted, before its directory is removed.
struct Unmount(Store);

impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = self.0.unmount();
    }
}

/// The whole cycle of one mode on one engine; see the module docs.
fn cycle(driver: &str, mode: AtRest) {
    let dir = pg_tempdir();
    let base = dir.path().join("home");
    std::fs::create_dir(&base).expect("base dir");
    let store = Store::new(&engine_dir(&base, mode, driver), mode);
    let _guard = Unmount(store.clone());
    let json = dir.path().join("r.json");
    let fuse = matches!(mode, AtRest::Gocryptfs | AtRest::FusePassthrough);
    if fuse && !Path::new("/dev/fuse").exists() {
        let e = runtime()
            .block_on(cli(&args("prepare", driver, &base, mode, &[])))
            .expect_err("no /dev/fuse");
        assert!(e.contains("no /dev/fuse here"), "{e}");
        return;
    }
    runtime().block_on(async {
        // Before any prepare, run names the prepare of this mode's server; the
        // test prepares with the very command it names (new-user finding: it
        // left --at-rest out, which prepares another server).
        let e = cli(&args("run", driver, &base, mode, &["--time", "1"]))
            .await
            .expect_err("run before prepare");
        let named = e
            .split_once("run `")
            .and_then(|(_, rest)| rest.split_once("` first"))
            .map(|(cmd, _)| cmd.to_string())
            .unwrap_or_else(|| panic!("no prepare command in: {e}"));
        assert!(
            named.ends_with(&format!(" --at-rest {}", mode.name())),
            "{named}"
        );
        let prepare: Vec<String> = named
            .split_whitespace()
            .skip(1) // "oltp"
            .map(str::to_string)
            .collect();
        // The command named carries --base-dir itself: run as printed.
        assert!(named.contains(&format!(" --base-dir {} ", utf8(&base))), "{named}");
        if driver == "pgsql" {
            // pgbench's tables likewise (no --tables: a pgbench run refuses it).
            let pgbench = strings(&[
                "run",
                "--db-driver",
                driver,
                "--base-dir",
                utf8(&base),
                "--at-rest",
                mode.name(),
                "--workload",
                "pgbench_select_only",
                "--time",
                "1",
            ]);
            let e = cli(&pgbench).await.expect_err("pgbench run before prepare");
            let want = format!(
                "run `oltp prepare --workload pgbench_select_only --scale 1 --encrypt none --db-driver pgsql{} --at-rest {}` first",
                pg_shown(None, &base),
                mode.name()
            );
            assert!(e.contains(&want), "{e}");
        }
        let r = cli(&prepare).await;
        assert_eq!(r, Ok(true), "{named} --base-dir ...");
        let run = [
            "--time",
            "1",
            "--workload",
            "oltp_read_write",
            "--json-out",
            utf8(&json),
        ];
        let r = cli(&args("run", driver, &base, mode, &run)).await;
        assert_eq!(r, Ok(true), "run --at-rest {}", mode.name());
    });
    // The last command stopped the server, and with it the mount.
    assert!(!store.is_mounted(), "unmounted once the server stopped");

    // The host's disk: the known value is absent for the crypto, found for the control.
    let canary = plaintext_canary(DEFAULT_SEED, ROWS);
    let found = find_in_tree(&store.backing(), &canary).expect("search the backing store");
    if mode.encrypts() {
        assert_eq!(found, None, "no plaintext on the host's disk");
    } else {
        let path = found.expect("the control stores plaintext: the search finds it");
        assert!(path.starts_with(store.backing()), "{}", path.display());
    }
    let report = read_json(&json);
    let run = &report["runs"][0];
    let engine = if driver == "pgsql" {
        "postgresql"
    } else {
        "mariadb"
    };
    assert_eq!(run["engine"], engine);
    let at_rest = &run["at_rest"];
    assert_eq!(at_rest["mechanism"], mode.name(), "{at_rest}");
    assert_eq!(
        at_rest["verified_no_plaintext"],
        mode.encrypts(),
        "{at_rest}"
    );
    let driver_name = at_rest["crypto_driver"].as_str().expect("crypto_driver");
    match mode {
        AtRest::Gocryptfs => assert!(driver_name.starts_with("AES-GCM-256-Go"), "{driver_name}"),
        // The kernel's xts(aes) driver, as /proc/crypto names it.
        AtRest::Fscrypt => assert!(driver_name.starts_with("xts"), "{driver_name}"),
        _ => assert_eq!(driver_name, "none"),
    }
    match mode.control_of() {
        Some(of) => assert_eq!(at_rest["control_of"], of.name()),
        None => assert!(at_rest["control_of"].is_null()),
    }
    assert!(run["tps"].as_f64().unwrap_or(0.0) > 0.0, "the run did work");

    // `server start` mounts again and the data is there; `server stop` unmounts.
    assert_eq!(server("start", driver, &base, mode), Ok(true));
    assert!(store.is_mounted(), "mounted while the server runs");
    assert!(
        find_in_tree(&store.data_root(), &canary)
            .expect("search the view")
            .is_some(),
        "the plaintext view holds the value"
    );
    assert_eq!(server("stop", driver, &base, mode), Ok(true));
    assert!(!store.is_mounted(), "server stop unmounts");

    // cleanup mounts, drops, and its server stops and unmounts.
    let r = runtime().block_on(cli(&args("cleanup", driver, &base, mode, &[])));
    assert_eq!(r, Ok(true), "cleanup --at-rest {}", mode.name());
    assert!(!store.is_mounted(), "unmounted after cleanup");
}

/// One test per engine and filesystem mode: `name: driver, mode;` runs [`cycle`].
macro_rules! cycles {
    ($($name:ident: $driver:literal, $mode:ident;)*) => {$(
        #[test]
        fn $name() {
            cycle($driver, AtRest::$mode);
        }
    )*};
}

cycles! {
    mariadb_gocryptfs: "mysql", Gocryptfs;
    mariadb_fuse_passthrough: "mysql", FusePassthrough;
    mariadb_fscrypt: "mysql", Fscrypt;
    mariadb_ext4_loop: "mysql", Ext4Loop;
    postgresql_gocryptfs: "pgsql", Gocryptfs;
    postgresql_fuse_passthrough: "pgsql", FusePassthrough;
    postgresql_fscrypt: "pgsql", Fscrypt;
    postgresql_ext4_loop: "pgsql", Ext4Loop;
}

/// Every refusal is one line, before anything is created in the base directory.
#[test]
fn modes_the_machine_or_the_command_cannot_provide_are_refused_first() {
    let dir = pg_tempdir();
    let base = dir.path();
    let luks = if Path::new("/dev/mapper/control").exists() {
        "device-mapper modes are not built yet"
    } else {
        "no device-mapper here (/dev/mapper/control is missing)"
    };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (args("prepare", "mysql", base, AtRest::Luks, &[]), luks),
        (args("run", "pgsql", base, AtRest::Loop, &[]), luks),
        (
            args("prepare", "pgsql", base, AtRest::Innodb, &[]),
            "--at-rest innodb: innodb is MariaDB's InnoDB encryption and PostgreSQL has no built-in TDE",
        ),
        (
            args(
                "run",
                "mysql",
                base,
                AtRest::Gocryptfs,
                &["--mysql-url", "mysql://u:secret@127.0.0.1:1"],
            ),
            "--at-rest gocryptfs: the filesystem modes mount the private server's data directory: omit --mysql-url",
        ),
    ];
    for (a, want) in cases {
        let e = runtime().block_on(cli(&a)).expect_err("refused");
        assert!(e.contains(want), "{a:?}: {e}");
        assert!(!e.contains('\n'), "one line: {e}");
        assert!(!e.contains("secret"), "no password: {e}");
    }
    let e = server("start", "pgsql", base, AtRest::Luks).expect_err("server start refused");
    assert!(e.contains(luks), "{e}");
    assert_eq!(
        std::fs::read_dir(base).expect("read base").count(),
        0,
        "nothing created in the base directory"
    );
}

/// Not root: the `oltp` binary run as `nobody` refuses every filesystem mode, naming root.
#[test]
fn a_filesystem_mode_needs_root() {
    let dir = pg_tempdir();
    let nobody = nix::unistd::User::from_name("nobody")
        .expect("users")
        .expect("a nobody user");
    for mode in [AtRest::Gocryptfs, AtRest::Ext4Loop] {
        let out = Command::new(env!("CARGO_BIN_EXE_oltp"))
            .args(args("prepare", "mysql", dir.path(), mode, &[]))
            .uid(nobody.uid.as_raw())
            .gid(nobody.gid.as_raw())
            .output()
            .expect("run oltp as nobody");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&format!(
                "--at-rest {}: mounting the data directory's filesystem needs root",
                mode.name()
            )),
            "{err}"
        );
    }
}

/// `--at-rest off,fuse-passthrough,gocryptfs`: prepare makes each mode's tables on its own
/// server; run interleaves the modes round by round (each round has all three, rotated)
/// and compares the control with off (the path's cost) and gocryptfs with its control
/// (the crypto's cost) and with off.
#[test]
fn a_list_of_modes_runs_in_interleaved_rounds_compared_with_their_controls() {
    let dir = pg_tempdir();
    let base = dir.path().join("home");
    std::fs::create_dir(&base).expect("base dir");
    let list = "off,fuse-passthrough,gocryptfs";
    let _guards: Vec<Unmount> = [AtRest::FusePassthrough, AtRest::Gocryptfs]
        .into_iter()
        .map(|m| Unmount(Store::new(&engine_dir(&base, m, "mysql"), m)))
        .collect();
    let json = dir.path().join("r.json");
    let with_list = |command: &str, extra: &[&str]| {
        let mut a = args(command, "mysql", &base, AtRest::Off, extra);
        let i = a.iter().position(|x| x == "off").expect("the mode");
        a[i] = list.to_string();
        a
    };
    runtime().block_on(async {
        assert_eq!(cli(&with_list("prepare", &[])).await, Ok(true), "prepare");
        let run = [
            "--time",
            "1",
            "--repeat",
            "2",
            "--workload",
            "oltp_point_select",
            "--json-out",
            utf8(&json),
        ];
        assert_eq!(cli(&with_list("run", &run)).await, Ok(true), "run");
        assert_eq!(cli(&with_list("cleanup", &[])).await, Ok(true), "cleanup");
    });
    let report = read_json(&json);
    let runs = report["runs"].as_array().expect("runs");
    let of = |r: &serde_json::Value| {
        r["at_rest"]["mechanism"]
            .as_str()
            .unwrap_or("off")
            .to_string()
    };
    let round =
        |n: u64| -> Vec<String> { runs.iter().filter(|r| r["round"] == n).map(&of).collect() };
    assert_eq!(round(1), ["off", "fuse-passthrough", "gocryptfs"]);
    assert_eq!(round(2), ["fuse-passthrough", "gocryptfs", "off"]);
    let pairs: Vec<(String, String)> = report["comparisons"]
        .as_array()
        .expect("comparisons")
        .iter()
        .filter(|c| c["metric"] == "tps")
        .map(|c| {
            (
                c["baseline"].as_str().unwrap_or_default().to_string(),
                c["variant"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let want = [
        ("none", "at rest fuse-passthrough"),
        ("at rest fuse-passthrough", "at rest gocryptfs"),
        ("none", "at rest gocryptfs"),
    ];
    assert_eq!(
        pairs,
        want.map(|(a, b)| (a.to_string(), b.to_string())),
        "path cost, crypto cost, both"
    );
    for m in [AtRest::FusePassthrough, AtRest::Gocryptfs] {
        assert!(
            !Store::new(&engine_dir(&base, m, "mysql"), m).is_mounted(),
            "{} unmounted",
            m.name()
        );
    }
}

#[test]
fn innodb_is_verified_on_the_data_directory_with_off_as_its_control() {
    let dir = pg_tempdir();
    let base = dir.path().join("home");
    std::fs::create_dir(&base).expect("base dir");
    let json = dir.path().join("r.json");
    let mut prepare = args("prepare", "mysql", &base, AtRest::Off, &[]);
    let i = prepare.iter().position(|x| x == "off").expect("the mode");
    prepare[i] = "off,innodb".to_string();
    let run = ["--time", "1", "--json-out", utf8(&json)];
    runtime().block_on(async {
        assert_eq!(cli(&prepare).await, Ok(true), "prepare off,innodb");
        let r = cli(&args("run", "mysql", &base, AtRest::Innodb, &run)).await;
        assert_eq!(r, Ok(true), "run --at-rest innodb");
    });
    let at_rest = &read_json(&json)["runs"][0]["at_rest"];
    assert_eq!(at_rest["mechanism"], "innodb", "{at_rest}");
    assert_eq!(at_rest["verified_no_plaintext"], true, "{at_rest}");
    // What prepare recorded, and the data directories themselves (the servers have
    // stopped: everything is on disk): absent under innodb, found under off.
    let canary = plaintext_canary(DEFAULT_SEED, ROWS);
    for mode in [AtRest::Innodb, AtRest::Off] {
        let engine = engine_dir(&base, mode, "mysql");
        let v = encbench_oltp::at_rest::Verification::read(&Store::new(&engine, mode))
            .expect("prepare recorded its search");
        let found = find_in_tree(&engine.join("data"), &canary).expect("search");
        assert_eq!(v.searched, engine.join("data"), "{v:?}");
        if mode == AtRest::Innodb {
            assert_eq!(v.found_in, None, "innodb: no plaintext");
            assert_eq!(found, None, "innodb: no plaintext after shutdown either");
        } else {
            assert!(v.found_in.is_some(), "off: the search finds the value");
            assert!(found.is_some(), "off: plaintext in the data directory");
        }
    }
    let mut cleanup = args("cleanup", "mysql", &base, AtRest::Off, &[]);
    cleanup[i] = "off,innodb".to_string();
    assert_eq!(runtime().block_on(cli(&cleanup)), Ok(true), "cleanup");
}
