//! Initialising a data directory: `mariadb-install-db`, then a `mariadbd --bootstrap` that
//! creates the benchmark user, into `data.tmp/` renamed to `data/` when complete.

use std::fs::{self, File};
use std::io::Write;
use std::process::{Command, Stdio};

use super::BENCH_USER;
use super::binaries::{Binaries, flag};
use super::error::{Result, io_err};
use super::layout::Layout;
use super::logs::init_failed;

/// Run by `mariadbd --bootstrap` on a fresh data directory: drop the anonymous users (they
/// shadow `encbench@localhost`, `shared/spec/mariadb.md`) and every `root` but
/// `root@localhost` (`mariadb-install-db` also makes passwordless `root@127.0.0.1`,
/// `root@::1` and `root@HOSTNAME`, which any local user could reach over TCP: issue 15,
/// defect 11), then create the benchmark user. `root@localhost` is the Unix socket only,
/// in a directory only the owner may enter (`PrivateServer::start`).
const BOOTSTRAP_SQL: &str = "\
USE mysql;
FLUSH PRIVILEGES;
DELETE FROM mysql.global_priv WHERE User = '';
DELETE FROM mysql.global_priv WHERE User = 'root' AND Host <> 'localhost';
DELETE FROM mysql.proxies_priv WHERE User = 'root' AND Host <> 'localhost';
CREATE USER 'encbench'@'localhost' IDENTIFIED BY 'encbench';
CREATE USER 'encbench'@'127.0.0.1' IDENTIFIED BY 'encbench';
GRANT ALL PRIVILEGES ON *.* TO 'encbench'@'localhost';
GRANT ALL PRIVILEGES ON *.* TO 'encbench'@'127.0.0.1';
FLUSH PRIVILEGES;
";

/// Creates `data/`: `mariadb-install-db` and the user bootstrap into `data.tmp/`, then a
/// rename, so `data/` exists only when complete. A `data.tmp/` left by a failed attempt is
/// wiped first.
pub(super) fn initialise(bins: &Binaries, layout: &Layout, as_root: bool) -> Result<()> {
    let data_tmp = layout.data_tmp();
    if data_tmp.exists() {
        fs::remove_dir_all(&data_tmp).map_err(io_err("remove directory", &data_tmp))?;
    }
    // A temporary directory of our own: servers initialising side by side in the shared
    // /tmp collide on temporary table names (seen: "Unknown table 'mysql.tmp_user_sys'").
    let tmp = layout.tmp_dir();
    fs::create_dir_all(&tmp).map_err(io_err("create directory", &tmp))?;
    let log_path = layout.install_log();
    let log = File::create(&log_path).map_err(io_err("create", &log_path))?;
    let clone_log = || log.try_clone().map_err(io_err("write", &log_path));

    let mut install = Command::new(&bins.install_db);
    install
        .arg("--no-defaults")
        .arg(flag("--datadir=", &data_tmp))
        .args(bins.basedir.as_deref().map(|d| flag("--basedir=", d)))
        .args(["--auth-root-authentication-method=normal", "--skip-test-db"])
        .arg(flag("--tmpdir=", &tmp))
        .env("TMPDIR", &tmp)
        .args(as_root.then_some("--user=root"))
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

    let mut bootstrap = Command::new(&bins.mariadbd);
    bootstrap
        .arg("--no-defaults")
        .args(bins.path_flags())
        .arg("--bootstrap")
        .arg(flag("--datadir=", &data_tmp))
        .arg(flag("--tmpdir=", &tmp))
        .env("TMPDIR", &tmp)
        .arg("--skip-log-bin")
        .args(as_root.then_some("--user=root"))
        .stdin(Stdio::piped())
        .stdout(clone_log()?)
        .stderr(clone_log()?);
    let mut child = bootstrap.spawn().map_err(io_err("run", &bins.mariadbd))?;
    let written = child
        .stdin
        .take()
        .map(|mut stdin| stdin.write_all(BOOTSTRAP_SQL.as_bytes()));
    let status = child.wait().map_err(io_err("wait for", &bins.mariadbd))?;
    if !status.success() || !matches!(written, Some(Ok(()))) {
        return Err(init_failed(
            format!("mariadbd --bootstrap (creating user {BENCH_USER}) failed ({status})"),
            &log_path,
        ));
    }

    fs::rename(&data_tmp, layout.data()).map_err(io_err("rename", &data_tmp))
}

/// Whether we run with effective uid 0 (then `mariadbd` needs `--user=root`).
pub(super) fn running_as_root() -> bool {
    nix::unistd::geteuid().is_root()
}
