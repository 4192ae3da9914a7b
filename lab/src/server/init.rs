//! Initialising a data directory: a new random password for the benchmark user in
//! `password` (mode 0600, [`super::password`]), `mariadb-install-db`, then a
//! `mariadbd --bootstrap` that creates the benchmark user with it, into `data.tmp/` renamed
//! to `data/` when complete. As root both run as `mysql` ([`Owner`]), so the files are its.

use std::fs::{self, File};
use std::io::Write;
use std::process::Stdio;

use super::BENCH_USER;
use super::binaries::{Binaries, flag};
use super::error::{Result, io_err};
use super::layout::Layout;
use super::logs::init_failed;
use super::owner::Owner;
use super::password;

/// Run by `mariadbd --bootstrap` on a fresh data directory: drop the anonymous users (they
/// shadow `encbench@localhost`, `shared/spec/mariadb.md`) and every `root` but
/// `root@localhost` (`mariadb-install-db` also makes passwordless `root@127.0.0.1`,
/// `root@::1` and `root@HOSTNAME`, which any local user could reach over TCP),
/// then create the benchmark user with `password` (alphanumeric: nothing to
/// escape). `root@localhost` is the Unix socket only, in a directory only the owner may
/// enter (`PrivateServer::start`).
fn bootstrap_sql(password: &str) -> String {
    format!(
        "\
USE mysql;
FLUSH PRIVILEGES;
DELETE FROM mysql.global_priv WHERE User = '';
DELETE FROM mysql.global_priv WHERE User = 'root' AND Host <> 'localhost';
DELETE FROM mysql.proxies_priv WHERE User = 'root' AND Host <> 'localhost';
CREATE USER '{BENCH_USER}'@'localhost' IDENTIFIED BY '{password}';
CREATE USER '{BENCH_USER}'@'127.0.0.1' IDENTIFIED BY '{password}';
GRANT ALL PRIVILEGES ON *.* TO '{BENCH_USER}'@'localhost';
GRANT ALL PRIVILEGES ON *.* TO '{BENCH_USER}'@'127.0.0.1';
FLUSH PRIVILEGES;
"
    )
}

/// Creates `data/`: a new password in `password`, `mariadb-install-db` and the user
/// bootstrap into `data.tmp/`, then a rename, so `data/` exists only when complete. A
/// `data.tmp/` left by a failed attempt is wiped first (and the password made anew). The
/// server's own directories (`tmp/`, `data.tmp/`) are `owner`'s; the password file stays
/// ours (the server never reads it). The bootstrap's output, in `install.log`, is kept free
/// of the password.
pub(super) fn initialise(bins: &Binaries, layout: &Layout, owner: Owner) -> Result<()> {
    let data_tmp = layout.data_tmp();
    if data_tmp.exists() {
        fs::remove_dir_all(&data_tmp).map_err(io_err("remove directory", &data_tmp))?;
    }
    let pw_path = layout.password_file();
    let password = password::generate();
    password::write(&pw_path, &password).map_err(io_err("create", &pw_path))?;
    // A temporary directory of our own: servers initialising side by side in the shared
    // /tmp collide on temporary table names (seen: "Unknown table 'mysql.tmp_user_sys'").
    let tmp = layout.tmp_dir();
    fs::create_dir_all(&tmp).map_err(io_err("create directory", &tmp))?;
    owner.take(&tmp).map_err(io_err("chown", &tmp))?;
    let log_path = layout.install_log();
    let log = File::create(&log_path).map_err(io_err("create", &log_path))?;
    let clone_log = || log.try_clone().map_err(io_err("write", &log_path));

    let mut install = owner.command(&bins.install_db);
    install
        .arg("--no-defaults")
        .arg(flag("--datadir=", &data_tmp))
        .args(bins.basedir.as_deref().map(|d| flag("--basedir=", d)))
        .args(["--auth-root-authentication-method=normal", "--skip-test-db"])
        .arg(flag("--tmpdir=", &tmp))
        .env("TMPDIR", &tmp)
        .stdin(Stdio::null())
        .stdout(clone_log()?)
        .stderr(clone_log()?);
    let status = install.status().map_err(io_err("run", &bins.install_db))?;
    if !status.success() {
        return Err(init_failed(
            format!("mariadb-install-db failed ({status})"),
            &log_path,
        ));
    }

    let mut bootstrap = owner.command(&bins.mariadbd);
    bootstrap
        .arg("--no-defaults")
        .args(bins.path_flags())
        .arg("--bootstrap")
        .arg(flag("--datadir=", &data_tmp))
        .arg(flag("--tmpdir=", &tmp))
        .env("TMPDIR", &tmp)
        .arg("--skip-log-bin")
        .stdin(Stdio::piped())
        .stdout(clone_log()?)
        .stderr(clone_log()?);
    let mut child = bootstrap.spawn().map_err(io_err("run", &bins.mariadbd))?;
    let written = child
        .stdin
        .take()
        .map(|mut stdin| stdin.write_all(bootstrap_sql(&password).as_bytes()));
    let status = child.wait().map_err(io_err("wait for", &bins.mariadbd))?;
    if !status.success() || !matches!(written, Some(Ok(()))) {
        // mariadbd quotes a failing statement: the password must not stay in the log,
        // nor reach the error (which quotes the log's tail).
        if let Ok(log) = fs::read_to_string(&log_path) {
            let _ = fs::write(&log_path, password::redact(&log, &password));
        }
        return Err(init_failed(
            format!("mariadbd --bootstrap (creating user {BENCH_USER}) failed ({status})"),
            &log_path,
        ));
    }

    fs::rename(&data_tmp, layout.data()).map_err(io_err("rename", &data_tmp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bootstrap_sets_the_password_given_for_both_hosts() {
        let sql = bootstrap_sql("Abc123");
        assert_eq!(sql.matches("IDENTIFIED BY 'Abc123';").count(), 2, "{sql}");
        assert!(!sql.contains("IDENTIFIED BY 'encbench'"));
    }
}
