//! What messages tell a user to type, checked on real private servers (a new
//! user's findings): the `oltp prepare` / `oltp cleanup` a message suggests
//! carries the flags that chose the server (`--mysql-url` / `--pgsql-url`,
//! `--password-file`, `--base-dir`) as typed, a password in the URL shown as
//! `PASSWORD`, and run as printed it acts on that server; a closed port is
//! named as such, in one line with the fix, by both drivers.

#[allow(dead_code)]
mod common;

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;
use encbench_common::password::without_password;

/// Writes the password file `dir/pw` (mode 0600) holding `password`.
fn password_file(dir: &Path, password: &str) -> PathBuf {
    let p = dir.join("pw");
    std::fs::write(&p, format!("{password}\n")).expect("write the password file");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    p
}

/// The command between the backticks after `run \``, in `message`.
fn suggested(message: &str) -> String {
    let at = message
        .find("run `")
        .unwrap_or_else(|| panic!("no command in: {message}"));
    let rest = &message[at + 5..];
    rest[..rest.find('`').expect("closing backtick")].to_string()
}

/// Runs `command` (`oltp ...`, words without quotes) as the binary, with no
/// password in the environment; `home` is `ENCBENCH_HOME`.
fn run_suggested(home: &Path, command: &str) -> Output {
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(words.first(), Some(&"oltp"), "{command}");
    oltp_command(home, &words[1..])
        .env_remove("MYSQL_PWD")
        .env_remove("PGPASSWORD")
        .output()
        .expect("run oltp")
}

/// [`run_suggested`], which must succeed.
fn run_suggested_ok(home: &Path, command: &str) {
    let out = run_suggested(home, command);
    assert!(
        out.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `args` as the binary with no password in the environment; its stderr.
fn stderr_of(home: &Path, args: &[String]) -> (bool, String) {
    let out = oltp_command(home, args)
        .env_remove("MYSQL_PWD")
        .env_remove("PGPASSWORD")
        .output()
        .expect("run oltp");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn mariadb_suggestions_carry_the_url_and_password_file_and_run_as_printed() {
    let u = shared_server();
    let password = u.shared.server().password().to_string();
    let url = without_password(&u.url);
    std::fs::create_dir_all(u.scratch.path()).expect("scratch");
    let file = password_file(u.scratch.path(), &password);
    let base = u.base();
    // ENCBENCH_HOME elsewhere: a command without --base-dir would use another place.
    let home = u.file("other-home");
    let flags = format!(
        "--mysql-db sgmy --mysql-url {url} --password-file {} --base-dir {}",
        utf8(&file),
        utf8(&base)
    );
    let with_file = |cmd: &str, extra: &[&str]| {
        let mut v = sized_args(cmd, &url, &base, "sgmy", ("1", "100"), extra);
        v.extend(strings(&["--password-file", utf8(&file)]));
        v
    };

    // run before prepare: the prepare named is this server's.
    let (ok, e) = stderr_of(&home, &with_file("run", &["--time", "1"]));
    assert!(!ok, "a run without tables ran");
    let prepare = suggested(&e);
    assert_eq!(
        prepare,
        format!("oltp prepare --tables 1 --table-size 100 --encrypt none {flags}")
    );
    assert!(!e.contains(&password), "the password in: {e}");
    run_suggested_ok(&home, &prepare);
    let (ok, e) = stderr_of(&home, &with_file("run", &["--time", "1"]));
    assert!(ok, "the run after the suggested prepare: {e}");

    // prepare again: the cleanup named is this server's.
    let (ok, e) = stderr_of(&home, &with_file("prepare", &[]));
    assert!(!ok, "a second prepare loaded");
    let cleanup = suggested(&e);
    assert_eq!(cleanup, format!("oltp cleanup --encrypt none {flags}"));
    run_suggested_ok(&home, &cleanup);
    let (ok, e) = stderr_of(&home, &with_file("run", &["--time", "1"]));
    assert!(!ok && e.contains("not found"), "cleaned up: {e}");

    // The password in the URL: shown as PASSWORD, never itself.
    let (ok, e) = stderr_of(
        &home,
        &sized_args("run", &u.url, &base, "sgmy", ("1", "100"), &["--time", "1"]),
    );
    assert!(!ok);
    let shown = url.replacen('@', ":PASSWORD@", 1);
    assert!(
        suggested(&e).contains(&format!("--mysql-url {shown} ")),
        "{e}"
    );
    assert!(!e.contains(&password), "the password in: {e}");
}

#[test]
fn pgbench_suggestions_carry_the_pgsql_url_and_password_file_and_run_as_printed() {
    let s = shared_pg();
    let file = s.server().layout().password_file();
    let password = std::fs::read_to_string(&file)
        .expect("the private server's password file")
        .trim()
        .to_string();
    let url = without_password(s.url());
    let dir = pg_tempdir();
    let base = dir.path().join("home");
    let home = dir.path().join("other-home");
    let args = |cmd: &str, extra: &[&str]| {
        let mut v = pg_data_args(cmd, Some(&url), &base, "sgpg", extra);
        v.extend(strings(&["--password-file", utf8(&file)]));
        v
    };
    let flags = format!(
        "--db-driver pgsql --pgsql-db sgpg --pgsql-url {url} --password-file {} --base-dir {}",
        utf8(&file),
        utf8(&base)
    );
    let workload = ["--workload", "pgbench_select_only", "--scale", "1"];
    let (ok, e) = stderr_of(
        &home,
        &args("run", &[&workload[..], &["--time", "1"]].concat()),
    );
    assert!(!ok, "a run without tables ran");
    let prepare = suggested(&e);
    assert_eq!(
        prepare,
        format!("oltp prepare --workload pgbench_select_only --scale 1 --encrypt none {flags}")
    );
    assert!(!e.contains(&password), "the password in: {e}");
    run_suggested_ok(&home, &prepare);
    let (ok, e) = stderr_of(&home, &args("prepare", &workload));
    assert!(!ok, "a second prepare loaded");
    let cleanup = suggested(&e);
    assert_eq!(cleanup, format!("oltp cleanup --encrypt none {flags}"));
    run_suggested_ok(&home, &cleanup);
}

#[test]
fn a_closed_port_is_named_with_the_fix_by_both_drivers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().join("home");
    // Port 1 (tcpmux): nothing listens there.
    for (args, want) in [
        (
            pg_args(
                "run",
                Some("postgres://u:p@127.0.0.1:1/sbtest"),
                &base,
                "s",
                (1, 10),
            ),
            "connection refused at 127.0.0.1:1: is PostgreSQL running there? correct --pgsql-url, or omit it to use the private server",
        ),
        (
            sized_args(
                "run",
                "mysql://u:p@127.0.0.1:1/",
                &base,
                "s",
                ("1", "10"),
                &[],
            ),
            "connection refused at 127.0.0.1:1: is MariaDB (or MySQL) running there? correct --mysql-url, or omit it to use the private server",
        ),
    ] {
        let e = runtime().block_on(cli(&args)).expect_err("refused");
        assert_eq!(e, want, "{args:?}");
        let out = oltp_bin(&base, &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).trim_end(),
            format!("Error: {want}")
        );
    }
}
