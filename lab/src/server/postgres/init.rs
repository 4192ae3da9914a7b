//! Initialising the data directory: a random password for the benchmark user in a 0600
//! file, `initdb` with scram-sha-256 authentication into `data.tmp/`, our `pg_hba.conf`
//! (password logins only, no `trust` line) and settings, then a rename to `data/`.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::process::Stdio;

use super::PG_USER;
use super::binaries::PgBinaries;
use super::error::{PgError, Result, log_tail};
use super::layout::PgLayout;
use super::owner::Owner;
use crate::server::password;

/// `pg_hba.conf`: the benchmark user with its password over the socket and 127.0.0.1 only,
/// over TLS (`hostssl`) or not (`hostnossl`, for `oltp --tls off`). A data directory from
/// before TLS has one `host` line, which accepts both the same way.
const PG_HBA: &str = "\
# encbench's private PostgreSQL: password (SCRAM) logins only, loopback only.
# TLS is offered, not required: oltp --tls off connects in plaintext.
local     all all              scram-sha-256
hostssl   all all 127.0.0.1/32 scram-sha-256
hostnossl all all 127.0.0.1/32 scram-sha-256
";

/// Settings appended to `postgresql.conf` (the socket directory follows). 500 connections:
/// sysbench-style runs open one per thread; shared_buffers 1 GB as the private MariaDB's
/// buffer pool (`server/process.rs`), so both engines cache the same.
const SETTINGS: &str = "\
# encbench
listen_addresses = '127.0.0.1'
max_connections = 500
shared_buffers = 1GB
unix_socket_permissions = 0700
logging_collector = off
";

/// Creates `data/` through `data.tmp/` (wiped first if a failed attempt left it).
pub(super) fn initialise(bins: &PgBinaries, layout: &PgLayout, owner: Owner) -> Result<()> {
    let tmp = layout.data_tmp();
    if tmp.exists() {
        fs::remove_dir_all(&tmp).map_err(PgError::io("remove directory", &tmp))?;
    }
    let pw_path = layout.password_file();
    password::write(&pw_path, &password::generate()).map_err(PgError::io("create", &pw_path))?;
    owner.take(&pw_path)?;

    let log_path = layout.init_log();
    let log = File::create(&log_path).map_err(PgError::io("create", &log_path))?;
    owner.take(&log_path)?;
    let clone_log = || log.try_clone().map_err(PgError::io("write", &log_path));
    let status = owner
        .command(&bins.initdb)
        .arg("-D")
        .arg(&tmp)
        .args([
            "-U",
            PG_USER,
            "--auth=scram-sha-256",
            "--encoding=UTF8",
            "--locale=C",
        ])
        .arg(format!("--pwfile={}", pw_path.display()))
        .stdin(Stdio::null())
        .stdout(clone_log()?)
        .stderr(clone_log()?)
        .status()
        .map_err(PgError::io("run", &bins.initdb))?;
    if !status.success() {
        return Err(PgError::InitFailed {
            status: status.to_string(),
            log: log_path.clone(),
            log_tail: log_tail(&log_path),
        });
    }
    let hba = tmp.join("pg_hba.conf");
    fs::write(&hba, PG_HBA).map_err(PgError::io("write", &hba))?;
    let conf = tmp.join("postgresql.conf");
    let mut f = OpenOptions::new()
        .append(true)
        .open(&conf)
        .map_err(PgError::io("open", &conf))?;
    let sock = layout.socket_dir();
    writeln!(
        f,
        "{SETTINGS}unix_socket_directories = '{}'",
        sock.display().to_string().replace('\'', "''")
    )
    .map_err(PgError::io("write", &conf))?;
    fs::rename(&tmp, layout.data()).map_err(PgError::io("rename", &tmp))
}
