//! Passwords out of argv: a `--mysql-url` / `--pgsql-url` without its
//! password connects with `--password-file` or `MYSQL_PWD` / `PGPASSWORD` against
//! real private servers; a running `oltp`'s `/proc/PID/cmdline` holds no password;
//! the refusals (a URL with a password and a file both, a file without a URL, a
//! file open to others or not one line, an unescaped `@`) are one line naming the
//! fix, and neither they nor `Debug` show the password (a canary).

#[allow(dead_code)]
mod common;

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use clap::Parser as _;
use common::*;
use encbench_common::password::without_password;

/// A password no message may show.
const CANARY: &str = "canary-Pw-5e1f0a7b";

/// Writes `text` to `dir/name` with `mode`.
fn secret_file(dir: &Path, name: &str, text: &str, mode: u32) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write the password file");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).expect("chmod");
    p
}

/// Fails unless `out` succeeded; shows neither stream holding `password`.
fn assert_ok_and_clean(what: &str, out: &Output, password: &str) {
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        !stdout.contains(password) && !stderr.contains(password),
        "{what}: the password is in the output"
    );
    assert!(out.status.success(), "{what} failed: {stderr}");
}

/// Where a command takes the password from.
#[derive(Clone, Copy)]
enum Source {
    /// `--password-file`, the variable unset.
    File,
    /// The driver's variable (`MYSQL_PWD` / `PGPASSWORD`) alone.
    Env,
    /// Neither: the server must refuse the login.
    Neither,
}

/// One driver's login to a server whose password is `password`, in `file` or
/// in the variable `var`.
struct Login<'a> {
    home: &'a Path,
    file: &'a str,
    var: &'static str,
    password: &'a str,
}

impl Login<'_> {
    /// `oltp args` with the password from `source`.
    fn command(&self, mut args: Vec<String>, source: Source) -> std::process::Command {
        if let Source::File = source {
            args.extend(strings(&["--password-file", self.file]));
        }
        let mut c = oltp_command(self.home, &args);
        if let Source::Env = source {
            c.env(self.var, self.password);
        } else {
            c.env_remove(self.var);
        }
        c
    }

    /// Runs `args` with the password from `source`; fails unless it succeeded
    /// and its output holds no password.
    fn ok(&self, what: &str, args: Vec<String>, source: Source) {
        let out = self.command(args, source).output().expect("run oltp");
        assert_ok_and_clean(what, &out, self.password);
    }

    /// What both drivers pass, given `args(command, extra flags)`: prepare
    /// with the file, `during` (with the tables there), a run with the
    /// variable alone, a run with neither refused (its stderr returned, so
    /// the password above did connect), cleanup with the file.
    fn file_env_neither(
        &self,
        args: impl Fn(&str, &[&str]) -> Vec<String>,
        during: impl FnOnce(),
    ) -> String {
        self.ok(
            "prepare with --password-file",
            args("prepare", &[]),
            Source::File,
        );
        during();
        let run = args("run", &["--time", "1"]);
        self.ok(&format!("run with {}", self.var), run.clone(), Source::Env);
        let out = self
            .command(run, Source::Neither)
            .output()
            .expect("run oltp");
        assert!(
            !out.status.success(),
            "a run without any password connected"
        );
        self.ok(
            "cleanup with --password-file",
            args("cleanup", &[]),
            Source::File,
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    }
}

#[test]
fn a_password_only_in_a_file_or_only_in_the_environment_connects_and_stays_out_of_argv() {
    let u = shared_server();
    let password = u.shared.server().password().to_string();
    let url = without_password(&u.url);
    assert!(!url.contains(&password), "{url}");
    std::fs::create_dir_all(u.scratch.path()).expect("scratch");
    let file = secret_file(u.scratch.path(), "pw", &format!("{password}\n"), 0o600);
    let home = u.file("home-env");
    let login = Login {
        home: &home,
        file: utf8(&file),
        var: "MYSQL_PWD",
        password: &password,
    };
    let base = u.base();
    let args =
        |cmd: &str, extra: &[&str]| sized_args(cmd, &url, &base, "secrets_my", ("1", "100"), extra);
    // A running oltp: its command line names the file, never the password.
    let running = || {
        let child = login
            .command(args("run", &["--time", "2"]), Source::File)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn oltp run");
        // spawn returns once the exec has begun; the kernel fills /proc/PID/cmdline a
        // moment later (it reads empty until then): wait for it, up to 60 s.
        let path = format!("/proc/{}/cmdline", child.id());
        let t0 = std::time::Instant::now();
        let cmdline = loop {
            let bytes = std::fs::read(&path).expect("cmdline");
            if !bytes.is_empty() || t0.elapsed() > std::time::Duration::from_secs(60) {
                break String::from_utf8_lossy(&bytes).replace('\0', " ");
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        assert!(cmdline.contains("--password-file"), "{cmdline}");
        assert!(
            !cmdline.contains(&password),
            "the password is in /proc/PID/cmdline"
        );
        let out = child.wait_with_output().expect("wait for oltp run");
        assert_ok_and_clean("run with --password-file", &out, &password);
    };
    let stderr = login.file_env_neither(args, running);
    assert!(stderr.contains("Access denied"), "{stderr}");
}

#[test]
fn pgsql_connects_with_the_private_servers_password_file_or_pgpassword() {
    let s = shared_pg();
    let password = std::fs::read_to_string(s.server().layout().password_file())
        .expect("the private server's password file")
        .trim()
        .to_string();
    let url = without_password(s.url());
    assert!(!url.contains(&password), "{url}");
    // The file `oltp server start` names: 0600, the server's user's when run as root.
    let file = s.server().layout().password_file();
    let dir = pg_tempdir();
    let home = dir.path().join("home");
    let login = Login {
        home: &home,
        file: utf8(&file),
        var: "PGPASSWORD",
        password: &password,
    };
    let neither = login.file_env_neither(
        |cmd: &str, extra: &[&str]| {
            let mut v = pg_args(cmd, Some(&url), &home, "secrets_pg", (1, 100));
            v.extend(strings(extra));
            v
        },
        || {},
    );
    // New-user finding: tokio-postgres' "invalid configuration: password missing".
    assert!(
        neither
            .contains("the server asks for a password and none was given: give --password-file F")
            && neither.contains("$PGPASSWORD")
            && !neither.contains("invalid configuration"),
        "{neither}"
    );
}

#[test]
fn refusals_name_the_fix_in_one_line_and_never_the_password() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().join("home");
    let good = secret_file(dir.path(), "pw", &format!("{CANARY}\n"), 0o600);
    let open = secret_file(dir.path(), "open", &format!("{CANARY}\n"), 0o644);
    let lines = secret_file(dir.path(), "lines", &format!("{CANARY}\nmore\n"), 0o600);
    let with_pw = format!("mysql://u:{CANARY}@127.0.0.1:1/");
    let at = format!("mysql://u:p@{CANARY}@127.0.0.1:1/");
    let pg_at = format!("postgres://u:p@{CANARY}@127.0.0.1:1/postgres");
    // `oltp run` of one table of ten rows in database `s` on MySQL `url`.
    let run = |url: &str, extra: &[&str]| sized_args("run", url, &base, "s", ("1", "10"), extra);
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            run(&with_pw, &["--password-file", utf8(&good)]),
            "holds a password and --password-file".into(),
        ),
        (
            strings(&[
                "run",
                "--base-dir",
                utf8(&base),
                "--password-file",
                utf8(&good),
            ]),
            "give --mysql-url too".into(),
        ),
        (
            run("mysql://u@127.0.0.1:1/", &["--password-file", utf8(&open)]),
            format!(
                "--password-file {0} has mode 0644, not 0600 or 0400 (a password file is the owner's alone): run `chmod 600 {0}`",
                utf8(&open)
            ),
        ),
        (
            run("mysql://u@127.0.0.1:1/", &["--password-file", utf8(&lines)]),
            "does not hold a password".into(),
        ),
        (
            run(&at, &[]),
            "percent-encode @ as %40 in the password".into(),
        ),
        (
            {
                let mut v = pg_args("run", Some(&pg_at), &base, "s", (1, 10));
                v.extend(strings(&["--time", "1"]));
                v
            },
            "percent-encode @ as %40 in the password".into(),
        ),
    ];
    for (args, want) in cases {
        let e = runtime().block_on(cli(&args)).expect_err("refused");
        assert!(e.contains(&want), "{args:?}: {e}");
        assert!(
            !e.contains(CANARY) && !e.contains("5e1f0a7b"),
            "the password in: {e}"
        );
        assert!(!e.contains('\n'), "one line: {e}");
        // The binary: exit 1, the same line, nothing created in the base directory.
        let out = oltp_bin(&base, &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&want) && !stderr.contains(CANARY),
            "{stderr}"
        );
    }
    assert!(
        !base.join("keys").exists(),
        "nothing created before the checks passed"
    );

    // Debug of the parsed command line and of the connect options.
    let cli = encbench_oltp::cli::Cli::try_parse_from(
        ["oltp"]
            .into_iter()
            .chain(run(&with_pw, &[]).iter().map(String::as_str)),
    )
    .expect("parses");
    let debug = format!("{cli:?}");
    assert!(
        debug.contains("127.0.0.1:1") && !debug.contains(CANARY),
        "{debug}"
    );
    let opts = encbench_oltp::driver::ConnectOptions::new(with_pw.clone());
    let debug = format!("{opts:?}");
    assert!(
        debug.contains("mysql://u@127.0.0.1:1/") && !debug.contains(CANARY),
        "{debug}"
    );
}
