//! The `oltp` binary's command line without a server: usage errors on one line
//! (exit 2), `--help`/`--version` as clap prints them (exit 0), an unreachable
//! server's error with each cause once, and output files (directory refused when
//! missing, file mode as for any new file).

use std::process::Output;

use encbench_common::cli_error::error_line;
use encbench_oltp::commands::write_atomically;

#[allow(dead_code)] // each test binary uses a subset of the helpers
mod common;
use common::oltp_bin as oltp;

/// The one line on stderr of a failed command (nothing on stdout).
fn one_error_line(args: &[&str], out: &Output) -> String {
    encbench_test_support::one_error_line(out, args)
}

#[test]
fn usage_errors_are_one_line_with_the_fix_and_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases: [(&[&str], &[&str]); 7] = [
        (
            &["run", "--workload", "oltp_bogus"],
            &[
                "'oltp_bogus'",
                "--workload",
                "possible values: oltp_read_only, oltp_point_select,",
                "see oltp run --help",
            ],
        ),
        (
            &["run", "--threads", "0"],
            &["'0'", "--threads", "1..=10000", "see oltp run --help"],
        ),
        (
            &["run", "--threads", "1,0"],
            &["'0'", "--threads", "see oltp run --help"],
        ),
        (
            &["prepare", "--no-such-option"],
            &["'--no-such-option'", "see oltp prepare --help"],
        ),
        (
            &["run", "--tls", "maybe"],
            &[
                "'maybe'",
                "use off, on (= verify-identity), verify-ca or required",
            ],
        ),
        (&["bogus"], &["'bogus'", "see oltp --help"]),
        (
            &["merge", "one.json"],
            &["<FILE> <FILE>...", "see oltp merge --help"],
        ),
    ];
    for (args, needles) in cases {
        let out = oltp(dir.path(), args);
        let line = one_error_line(args, &out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {line}");
        assert!(out.stdout.is_empty(), "{args:?}");
        for n in needles {
            assert!(line.contains(n), "{args:?}: {n:?} not in {line}");
        }
        // clap's near-match tip can name the wrong value: never shown.
        assert!(!line.contains("similar value"), "{args:?}: {line}");
    }
}

#[test]
fn help_and_version_are_clap_output_with_exit_0() {
    let dir = tempfile::tempdir().expect("tempdir");
    for args in [&["--help"][..], &["run", "--help"], &["--version"]] {
        let out = oltp(dir.path(), args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("oltp"), "{args:?}: {stdout}");
        assert!(out.stderr.is_empty(), "{args:?}");
    }
    let out = oltp(dir.path(), &["run", "--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.lines().count() > 10 && help.contains("--workload"),
        "{help}"
    );
}

/// `oltp reproduce` runs the `encbench-reproduce` binary next to oltp: without
/// it, one line naming the cargo command that builds it (exit 1), even for
/// `--help`.
#[test]
fn oltp_reproduce_without_encbench_reproduce_names_its_build() {
    let dir = tempfile::tempdir().expect("tempdir");
    let exe = dir.path().join("oltp");
    if std::fs::hard_link(env!("CARGO_BIN_EXE_oltp"), &exe).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_oltp"), &exe).expect("copy oltp");
    }
    for args in [
        &["reproduce", "--help"][..],
        &["reproduce", "003", "--quick"],
    ] {
        let out = std::process::Command::new(&exe)
            .args(args)
            .env("ENCBENCH_HOME", dir.path())
            .output()
            .expect("run oltp");
        assert_eq!(
            one_error_line(args, &out),
            format!(
                "Error: {}: not found: oltp reproduce runs it; build it with `cargo build --release -p encbench-reproduce`",
                dir.path().join("encbench-reproduce").display()
            )
        );
        assert_eq!(out.status.code(), Some(1));
    }
}

#[test]
fn an_unreachable_server_is_one_line_with_each_cause_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    for cmd in ["run", "prepare", "cleanup"] {
        let args = [cmd, "--mysql-url", "mysql://u:p@127.0.0.1:1/db"];
        let out = oltp(dir.path(), &args);
        let line = one_error_line(&args, &out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {line}");
        assert!(
            line.contains(
                "connection refused at 127.0.0.1:1: is MariaDB (or MySQL) running there?"
            ),
            "{line}"
        );
        assert!(
            line.matches("Input/output error").count() <= 1,
            "cause repeated: {line}"
        );
    }
}

#[test]
fn error_line_prints_each_cause_once() {
    let e = anyhow::anyhow!("Input/output error: Input/output error: refused")
        .context("cannot connect to 127.0.0.1:1");
    assert_eq!(
        error_line(e.as_ref()),
        "cannot connect to 127.0.0.1:1: Input/output error: refused"
    );
    let e = std::io::Error::other("refused");
    let e = anyhow::Error::from(e).context("step: refused");
    assert_eq!(error_line(e.as_ref()), "step: refused");
}

#[test]
fn a_missing_output_directory_is_refused_before_the_run_and_not_created() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("no/such");
    let json = missing.join("r.json");
    let json_s = json.to_str().expect("utf-8");
    for flag in ["--json-out", "--svg"] {
        // The URL is unreachable: the output check must come first.
        let args = [
            "run",
            "--mysql-url",
            "mysql://u:p@127.0.0.1:1/db",
            flag,
            json_s,
        ];
        let out = oltp(dir.path(), &args);
        let line = one_error_line(&args, &out);
        assert!(
            line.contains(flag)
                && line.contains(&format!("directory {} does not exist", missing.display()))
                && line.contains("create it first"),
            "{line}"
        );
        assert!(!line.contains("cannot connect"), "checked first: {line}");
    }
    assert!(!missing.exists(), "oltp must not create the directory");
    let e = write_atomically(&json, b"{}", "--json-out").expect_err("no directory");
    assert!(format!("{e:#}").contains("create it first"), "{e:#}");
}

#[test]
fn written_files_get_the_mode_of_any_new_file() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let reference = dir.path().join("reference");
    std::fs::write(&reference, b"").expect("write");
    let want = std::fs::metadata(&reference)
        .expect("stat")
        .permissions()
        .mode()
        & 0o777;
    let path = dir.path().join("r.json");
    write_atomically(&path, b"{}", "--json-out").expect("write");
    write_atomically(&path, b"{\"again\": 1}", "--json-out").expect("overwrite");
    let mode = std::fs::metadata(&path).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode, want, "0666 minus the umask, got {mode:o}");
    assert_eq!(
        std::fs::read(&path).expect("read"),
        b"{\"again\": 1}".to_vec()
    );
    // No temporary file left behind.
    assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 2);
}

#[test]
fn a_socket_url_is_refused_in_one_line() {
    // The socket is never used (TCP only, TLS checked), so asking for one is an
    // error, not a silent switch.
    let dir = tempfile::tempdir().expect("tempdir");
    let args = [
        "run",
        "--mysql-url",
        "mysql://u:p@127.0.0.1:1/db?socket=/tmp/no.sock",
    ];
    let out = oltp(dir.path(), &args);
    let line = one_error_line(&args, &out);
    assert!(
        line.contains("?socket=") && line.contains("TCP only") && line.contains("HOST:PORT"),
        "{line}"
    );
    assert!(
        !line.contains("cannot connect"),
        "refused before connecting: {line}"
    );
}

#[test]
fn a_bad_server_pid_or_start_at_is_refused_before_anything_runs() {
    // The URL is unreachable and --json-out is writable: the flag is refused
    // before connecting, and nothing is written.
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("r.json");
    let json_s = json.to_str().expect("utf-8");
    // Above the largest pid_max Linux allows (2^22): never a process.
    let no_such = "4194305".to_string();
    let me = std::process::id().to_string();
    let cases: [(&str, &str, &[&str]); 5] = [
        (
            "--server-pid",
            &no_such,
            &[
                "--server-pid 4194305",
                "cannot read /proc/4194305/stat",
                "pgrep -x mariadbd",
            ],
        ),
        (
            "--server-pid",
            &me,
            &[
                "not a database server",
                "accepted: mariadbd, mysqld, postgres, postmaster",
            ],
        ),
        (
            "--start-at",
            "tomorrow",
            &["--start-at", "not an RFC 3339 time", "2026-12-01T10:00:00Z"],
        ),
        (
            "--start-at",
            "2020-01-01T00:00:00Z",
            &["in the past", "a few seconds ahead"],
        ),
        (
            "--start-at",
            "2999-01-01T00:00:00Z",
            &["h ahead (at most 24 h)"],
        ),
    ];
    for (flag, value, needles) in cases {
        let args = [
            "run",
            "--mysql-url",
            "mysql://u:p@127.0.0.1:1/db",
            "--json-out",
            json_s,
            flag,
            value,
        ];
        let out = oltp(dir.path(), &args);
        let line = one_error_line(&args, &out);
        assert_eq!(out.status.code(), Some(1), "{line}");
        for n in needles {
            assert!(line.contains(n), "{args:?}: {n:?} not in {line}");
        }
        assert!(!line.contains("cannot connect"), "refused first: {line}");
        assert!(!json.exists(), "nothing written");
    }
}

#[test]
fn one_file_for_both_json_out_and_svg_is_refused_before_the_run() {
    // New-user finding: the chart silently overwrote the JSON (or the reverse).
    let dir = tempfile::tempdir().expect("tempdir");
    let same = dir.path().join("same.out");
    let same_s = same.to_str().expect("utf-8");
    let args = [
        "run",
        "--mysql-url",
        "mysql://u:p@127.0.0.1:1/db",
        "--json-out",
        same_s,
        "--svg",
        same_s,
    ];
    let out = oltp(dir.path(), &args);
    let line = one_error_line(&args, &out);
    assert!(
        line.contains("--json-out and --svg are the same file") && !line.contains("cannot connect"),
        "{line}"
    );
    assert!(!same.exists(), "nothing written");
}

/// `oltp ARGS` against an unreachable URL (`--mysql-url`, or `--pgsql-url`
/// when ARGS has `--db-driver pgsql`): refused in one line (exit 1) holding
/// every needle, before any connection.
fn refused_before_connecting(args: &[&str], needles: &[&str]) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut a = args.to_vec();
    if args.contains(&"pgsql") {
        a.extend(["--pgsql-url", "postgres://u:p@127.0.0.1:1/postgres"]);
    } else {
        a.extend(["--mysql-url", "mysql://u:p@127.0.0.1:1/db"]);
    }
    let out = oltp(dir.path(), &a);
    let line = one_error_line(&a, &out);
    assert_eq!(out.status.code(), Some(1), "{a:?}: {line}");
    for n in needles {
        assert!(line.contains(n), "{a:?}: {n:?} not in {line}");
    }
    assert!(
        !line.contains("cannot connect") && !line.contains("refused"),
        "{a:?}: refused first: {line}"
    );
}

#[test]
fn a_value_listed_twice_in_a_list_flag_is_refused() {
    // New-user finding: --threads 1,1 silently became one run.
    let fix = "give each value once";
    for (args, needle) in [
        (
            &["run", "--threads", "1,8,1"][..],
            "--threads lists 1 twice",
        ),
        (
            &["run", "--encrypt", "none,ring:aes-256-gcm,ring:aes-256-gcm"],
            "--encrypt lists ring:aes-256-gcm twice",
        ),
        (
            &["prepare", "--encrypt", "none,none"],
            "--encrypt lists none twice",
        ),
        (&["run", "--tls", "off,off"], "--tls lists off twice"),
        // on is verify-identity: the same level twice.
        (
            &["run", "--tls", "on,verify-identity"],
            "--tls lists verify-identity twice",
        ),
        (
            &["run", "--at-rest", "off,innodb,innodb"],
            "--at-rest lists innodb twice",
        ),
        (
            &["cleanup", "--at-rest", "off,off"],
            "--at-rest lists off twice",
        ),
    ] {
        refused_before_connecting(args, &[needle, fix]);
    }
}

#[test]
fn sysbench_only_flags_are_refused_with_a_pgbench_workload() {
    // New-user finding: they were accepted and recorded in pgbench runs.
    let pg = ["--db-driver", "pgsql", "--workload", "pgbench_select_only"];
    let scale = "pgbench's tables are sized by --scale N";
    let na = "it does not apply to pgbench's scripts";
    for (cmd, flag, value, fix) in [
        ("run", "--tables", "4", scale),
        ("run", "--table-size", "500", scale),
        ("prepare", "--tables", "2", scale),
        ("run", "--range-size", "5", na),
        ("run", "--point-selects", "3", na),
        ("run", "--rand-type", "uniform", na),
        ("prepare", "--secondary", "on", na),
    ] {
        let mut a = vec![cmd, flag, value];
        a.extend(pg);
        refused_before_connecting(
            &a,
            &[
                &format!("{flag} is a sysbench option, not read by pgbench_select_only"),
                fix,
                &format!("omit {flag}"),
            ],
        );
    }
}

#[test]
fn pgbench_only_flags_are_refused_with_a_sysbench_workload() {
    // New-user finding: prepare --fillfactor with sysbench's tables was ignored.
    for driver in ["mysql", "pgsql"] {
        refused_before_connecting(
            &["prepare", "--db-driver", driver, "--fillfactor", "90"],
            &[
                "--fillfactor is pgbench's -F, for pgbench's tables only",
                "omit --fillfactor for oltp_read_only",
            ],
        );
        refused_before_connecting(
            &["prepare", "--db-driver", driver, "--scale", "2"],
            &["--scale is for pgbench's tables"],
        );
    }
}

#[test]
fn a_missing_tls_ca_is_named_before_connecting_with_either_driver() {
    // New-user finding: MariaDB's error blamed the server.
    for driver in ["mysql", "pgsql"] {
        refused_before_connecting(
            &[
                "run",
                "--db-driver",
                driver,
                "--tls",
                "on",
                "--tls-ca",
                "/nonexistent/ca.pem",
            ],
            &[
                "--tls-ca /nonexistent/ca.pem: ",
                "No such file or directory",
                "give the PEM file of the CA that signed the server's certificate",
            ],
        );
    }
}

/// New-user finding: `--tls-ca /dev/zero` aborted (SIGABRT) after a 1 GiB
/// allocation failed, `oltp merge /dev/zero x.json` grew without bound, a FIFO
/// blocked forever. Every file oltp reads is a regular file read up to a cap:
/// anything else is one line naming the flag, the file and the fix, exit 1.
#[test]
fn a_named_file_that_is_no_regular_file_or_too_large_is_one_line() {
    use encbench_common::files::{MAX_PEM_FILE, MAX_RESULT_JSON};
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let fifo = d.join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success(), "mkfifo");
    // Sparse: over the cap without writing it.
    let sparse = |name: &str, len: u64| {
        let p = d.join(name);
        std::fs::File::create(&p)
            .and_then(|f| f.set_len(len))
            .expect("sparse file");
        p.to_str().expect("utf-8").to_string()
    };
    let (big_json, big_pem) = (
        sparse("big.json", MAX_RESULT_JSON + 1),
        sparse("big.pem", MAX_PEM_FILE + 1),
    );
    let (fifo, dir_s) = (fifo.to_str().expect("utf-8"), d.to_str().expect("utf-8"));
    let report = "give the --json-out report of an oltp run";
    let ca = "give the PEM file of the CA that signed the server's certificate";
    let mut cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["merge", "/dev/zero", "x.json"],
            format!(
                "Error: oltp merge /dev/zero is a character device, not a regular file: {report}"
            ),
        ),
        (
            vec!["merge", fifo, "x.json"],
            format!("Error: oltp merge {fifo} is a FIFO, not a regular file: {report}"),
        ),
        (
            vec!["merge", dir_s, "x.json"],
            format!("Error: oltp merge {dir_s} is a directory, not a regular file: {report}"),
        ),
        (
            vec!["merge", &big_json, "x.json"],
            format!(
                "Error: oltp merge {big_json} is larger than 1 GiB, too large for the --json-out report of an oltp run: {report}"
            ),
        ),
    ];
    for (driver, url) in [
        ("mysql", "--mysql-url=mysql://u:p@127.0.0.1:1/db"),
        ("pgsql", "--pgsql-url=postgres://u:p@127.0.0.1:1/postgres"),
    ] {
        for (file, is) in [
            ("/dev/zero", "is a character device, not a regular file"),
            (fifo, "is a FIFO, not a regular file"),
            (
                &big_pem,
                "is larger than 1 MiB, too large for the PEM file of the CA that signed the server's certificate",
            ),
        ] {
            cases.push((
                vec![
                    "run",
                    "--db-driver",
                    driver,
                    url,
                    "--tls",
                    "on",
                    "--tls-ca",
                    file,
                ],
                format!("Error: --tls-ca {file} {is}: {ca}"),
            ));
        }
    }
    for (args, want) in cases {
        let out = common::oltp_bin_within(d, &args, std::time::Duration::from_secs(60));
        assert_eq!(one_error_line(&args, &out), want, "{args:?}");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
    }
}

#[test]
fn a_pgbench_count_that_does_not_split_across_clients_is_refused() {
    // --time 0 --events N is pgbench's -t, which counts per client.
    refused_before_connecting(
        &[
            "run",
            "--db-driver",
            "pgsql",
            "--workload",
            "pgbench_select_only",
            "--threads",
            "1,2",
            "--time",
            "0",
            "--events",
            "301",
        ],
        &[
            "--events 301 with --time 0 is pgbench's -t",
            "--threads 2 does not divide it: use --events 300 or 302",
        ],
    );
}

#[test]
fn an_invalid_latency_limit_is_refused_as_pgbench_refuses_it() {
    // pgbench 15: `pgbench: error: invalid latency limit: "0"` (exit 1) for 0,
    // a negative value or no number; oltp's usage error names the fix.
    let dir = tempfile::tempdir().expect("tempdir");
    for value in ["0", "-1", "abc", "0.0", "nan", "inf"] {
        // `=`: clap would read a separate "-1" as a flag.
        let flag = format!("--latency-limit={value}");
        let args = ["run", "--workload", "pgbench_select_only", &flag];
        let out = oltp(dir.path(), &args);
        let line = one_error_line(&args, &out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {line}");
        assert!(
            line.contains(&format!("invalid latency limit: \"{value}\""))
                && line.contains("give milliseconds above 0"),
            "{line}"
        );
    }
    // Below pgbench's microsecond, where pgbench would silently have no limit.
    let args = ["run", "--latency-limit", "0.0004"];
    let line = one_error_line(&args, &oltp(dir.path(), &args));
    assert!(
        line.contains("below pgbench's resolution of 0.001 ms")
            && line.contains("give 0.001 or more"),
        "{line}"
    );
    // sysbench's workloads have no latency limit.
    refused_before_connecting(
        &[
            "run",
            "--workload",
            "oltp_read_only",
            "--latency-limit",
            "5",
        ],
        &[
            "--latency-limit is pgbench's -L",
            "use a pgbench_* --workload",
        ],
    );
}

#[test]
fn negative_numbers_are_value_errors_naming_the_range() {
    // New-user finding: `--threads -1` gave clap's "unexpected argument '-1'".
    let dir = tempfile::tempdir().expect("tempdir");
    for (args, want) in [
        (
            &["run", "--threads", "-1"][..],
            "Error: invalid value '-1' for '--threads <LIST>': -1 is not in 1..=10000; see oltp run --help",
        ),
        (
            &["run", "--time", "-5"],
            "Error: invalid value '-5' for '--time <SECONDS>': -5 is not in 0..=86400; see oltp run --help",
        ),
        (
            &["run", "--rand-seed", "-1"],
            "Error: invalid value '-1' for '--rand-seed <RAND_SEED>': the seed must be 0 or a positive integer (at most 9223372036854775807); see oltp run --help",
        ),
        (
            &["run", "--rand-seed=-1"],
            "Error: invalid value '-1' for '--rand-seed <RAND_SEED>': the seed must be 0 or a positive integer (at most 9223372036854775807); see oltp run --help",
        ),
        (
            &["prepare", "--seed", "-1"],
            "Error: invalid value '-1' for '--seed <SEED>': the seed must be 0 or a positive integer (at most 18446744073709551615); see oltp prepare --help",
        ),
        (
            &["run", "--rate", "-5"],
            "Error: invalid value '-5' for '--rate <PER_SECOND>': give events per second, 0 (closed loop) or from 0.001 to 1000000; see oltp run --help",
        ),
        (
            &["run", "--rate=-5"],
            "Error: invalid value '-5' for '--rate <PER_SECOND>': give events per second, 0 (closed loop) or from 0.001 to 1000000; see oltp run --help",
        ),
        (
            // Arrivals piled up without bound (16.8 GB, --time ignored).
            &["run", "--rate", "1e9"],
            "Error: invalid value '1e9' for '--rate <PER_SECOND>': give events per second, 0 (closed loop) or from 0.001 to 1000000; see oltp run --help",
        ),
        (
            // Its mean interval overflowed a Duration: a panic (exit 101).
            &["run", "--rate", "1e-300"],
            "Error: invalid value '1e-300' for '--rate <PER_SECOND>': give events per second, 0 (closed loop) or from 0.001 to 1000000; see oltp run --help",
        ),
        (
            &["prepare", "--table-size", "-1"],
            "Error: invalid value '-1' for '--table-size <TABLE_SIZE>': -1 is not in 1..=1000000000; see oltp prepare --help",
        ),
    ] {
        let out = oltp(dir.path(), args);
        assert_eq!(one_error_line(args, &out), want, "{args:?}");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn a_tls_ca_without_a_tls_mode_is_refused() {
    // New-user finding: --tls-ca with --tls off was silently ignored.
    for driver in ["mysql", "pgsql"] {
        refused_before_connecting(
            &["run", "--db-driver", driver, "--tls-ca", "/etc/hostname"],
            &[
                "Error: --tls-ca /etc/hostname applies only with a TLS mode, and --tls is off: drop --tls-ca, or pick --tls on, verify-ca or required",
            ],
        );
    }
}

#[test]
fn an_uncreatable_base_dir_or_out_dir_names_the_fix() {
    // New-user finding: the messages named the failure only.
    let dir = tempfile::tempdir().expect("tempdir");
    let args = ["run", "--base-dir", "/proc/nope", "--time", "1"];
    let out = oltp(dir.path(), &args);
    assert_eq!(
        one_error_line(&args, &out),
        "Error: --base-dir /proc/nope: cannot create it: No such file or directory (os error 2): give a directory you can write as --base-dir DIR (or set ENCBENCH_HOME)"
    );
    assert_eq!(out.status.code(), Some(1));
}

/// As root the servers run as `mysql` / `postgres`: a base directory (here
/// `ENCBENCH_HOME`) they cannot enter is refused in one line naming the fix,
/// before anything is created in it, for either engine.
#[test]
fn a_base_dir_the_server_user_cannot_enter_is_refused_and_not_created() {
    use std::os::unix::fs::PermissionsExt as _;
    if !nix::unistd::geteuid().is_root() {
        // Not root: the servers run as ourselves and reach any directory we can.
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let home = dir.path().join("encbench");
    for driver in ["mysql", "pgsql"] {
        let args = [
            "prepare",
            "--db-driver",
            driver,
            "--encrypt",
            "none",
            "--tables",
            "1",
            "--table-size",
            "10",
        ];
        let out = oltp(&home, &args);
        let line = one_error_line(&args, &out);
        assert!(
            line.contains("cannot enter") && line.contains("--base-dir"),
            "{driver}: {line}"
        );
        assert!(!home.exists(), "{driver}: {} was created", home.display());
    }
}

#[test]
fn quickstart_checks_its_settings_before_it_installs_builds_or_drops() {
    // New-user finding: scripts/quickstart dropped the earlier tables before
    // a bad ENCRYPT or TIME was refused. A real run builds the release binary
    // (minutes), so: the numbers are refused by the script itself, first, and
    // ENCRYPT reaches oltp's check in the drop itself (`cleanup --encrypt`,
    // which refuses a bad list before it drops anything: defects.rs).
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/quickstart");
    for (var, value, want) in [
        (
            "TIME",
            "abc",
            "error: TIME=abc: give a whole number, 1 or more",
        ),
        ("TIME", "0", "error: TIME=0: give a whole number, 1 or more"),
        (
            "REPEAT",
            "-1",
            "error: REPEAT=-1: give a whole number, 1 or more",
        ),
        (
            "TABLES",
            "two",
            "error: TABLES=two: give a whole number, 1 or more",
        ),
        (
            "TABLE_SIZE",
            "1e4",
            "error: TABLE_SIZE=1e4: give a whole number, 1 or more",
        ),
        (
            "THREADS",
            "1,,8",
            "error: THREADS=1,,8: give thread counts, 1 or more, separated by commas (e.g. 1,8)",
        ),
    ] {
        let out = std::process::Command::new("bash")
            .arg(&script)
            .env(var, value)
            .output()
            .expect("run scripts/quickstart");
        assert_eq!(out.status.code(), Some(2), "{var}={value}");
        assert_eq!(String::from_utf8_lossy(&out.stderr).trim_end(), want);
        assert!(out.stdout.is_empty(), "nothing installed, built or dropped");
    }
    let text = std::fs::read_to_string(&script).expect("read the script");
    let drops: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("\"$OLTP\" cleanup"))
        .collect();
    assert_eq!(drops.len(), 1, "{drops:?}");
    assert!(drops[0].contains("--encrypt \"$ENCRYPT\""), "{}", drops[0]);
}

/// `--db-driver` defaults from the URL given: a `--pgsql-url` alone selects
/// pgsql (the error is then PostgreSQL's unreachable server, exit 1); a
/// `--db-driver` that contradicts the URL flag is a usage error (exit 2)
/// naming both, before anything connects.
#[test]
fn db_driver_follows_the_url_given_and_a_contradiction_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    for cmd in ["prepare", "run", "cleanup"] {
        let args = [cmd, "--pgsql-url", "postgres://u@127.0.0.1:1/postgres"];
        let out = oltp(dir.path(), &args);
        let line = one_error_line(&args, &out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {line}");
        assert!(
            line.contains("connection refused at 127.0.0.1:1: is PostgreSQL running there?"),
            "{args:?}: {line}"
        );
    }
    let cases: [(&[&str], &[&str]); 3] = [
        (
            &[
                "run",
                "--db-driver",
                "mysql",
                "--pgsql-url",
                "postgres://u:secret@127.0.0.1:1/postgres",
            ],
            &["--pgsql-url is for --db-driver pgsql, not --db-driver mysql"],
        ),
        (
            &[
                "prepare",
                "--db-driver",
                "pgsql",
                "--mysql-url",
                "mysql://u:secret@127.0.0.1:1",
            ],
            &["--mysql-url is for --db-driver mysql: with --db-driver pgsql give --pgsql-url"],
        ),
        (
            &[
                "cleanup",
                "--mysql-url",
                "mysql://u:secret@127.0.0.1:1",
                "--pgsql-url",
                "postgres://u:secret@127.0.0.1:1/postgres",
            ],
            &["--mysql-url", "cannot be used with", "--pgsql-url"],
        ),
    ];
    for (args, needles) in cases {
        let out = oltp(dir.path(), args);
        let line = one_error_line(args, &out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {line}");
        assert!(!line.contains("secret"), "{args:?}: {line}");
        for n in needles {
            assert!(line.contains(n), "{args:?}: {n:?} not in {line}");
        }
    }
}
