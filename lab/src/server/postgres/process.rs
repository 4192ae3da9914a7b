//! The postmaster: found running on our data directory (then reused), or started with
//! `pg_ctl start -w` on the port of the last start (a free one if that is taken), and
//! stopped with `pg_ctl stop -m fast -w`.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Stdio;
use std::thread;
use std::time::{Duration, Instant};

use super::binaries::PgBinaries;
use super::error::{PgError, Result, log_tail};
use super::init::initialise;
use super::layout::{PgLayout, Postmaster};
use super::owner::Owner;
use super::tls::ensure_tls;
use super::{PgServer, START_TIMEOUT};
use crate::server::process::{free_port, is_alive, port_is_free};

/// Attempts at starting when the port we picked is taken before the server binds it.
const PORT_ATTEMPTS: usize = 3;

/// The body of [`PgServer::start`], run while holding the directory lock.
pub(super) fn start_locked(bins: PgBinaries, layout: PgLayout, owner: Owner) -> Result<PgServer> {
    if let Some(pm) = running(&layout) {
        let pm = wait_ready(&layout, pm)?;
        layout.record_port(pm.port)?;
        return PgServer::new(layout, bins, owner, pm, false);
    }
    if !layout.data().is_dir() {
        initialise(&bins, &layout, owner)?;
    }
    // Also for a data directory from before TLS: it gets TLS at this start.
    ensure_tls(&layout, owner)?;
    let sock = layout.socket_dir();
    fs::create_dir_all(&sock).map_err(PgError::io("create directory", &sock))?;
    owner.take(&sock)?;
    let log = layout.log();
    if !log.exists() {
        fs::write(&log, b"").map_err(PgError::io("create", &log))?;
    }
    owner.take(&log)?;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let port = match layout.read_chosen_port() {
            Some(p) if attempt == 1 && port_is_free(p) => p,
            _ => free_port(PgError::Io)?,
        };
        let log_start = fs::metadata(&log).map_or(0, |m| m.len());
        let status = owner
            .command(&bins.pg_ctl)
            .arg("-D")
            .arg(layout.data())
            .arg("-l")
            .arg(&log)
            .args(["-w", "-t", &START_TIMEOUT.as_secs().to_string()])
            .args(["-o", &format!("-p {port}"), "start"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(PgError::io("run", &bins.pg_ctl))?;
        if status.success() {
            let pm = Postmaster::read(&layout).ok_or_else(|| PgError::StartFailed {
                status: "no postmaster.pid after pg_ctl start".into(),
                log: log.clone(),
                log_tail: log_tail(&log),
            })?;
            layout.record_port(pm.port)?;
            return PgServer::new(layout, bins, owner, pm, true);
        }
        let since = fs::read(&log)
            .map(|b| b.get(log_start as usize..).unwrap_or_default().to_vec())
            .unwrap_or_default();
        let clash = String::from_utf8_lossy(&since).contains("Address already in use");
        if !(clash && attempt < PORT_ATTEMPTS) {
            return Err(PgError::StartFailed {
                status: status.to_string(),
                log: log.clone(),
                log_tail: log_tail(&log),
            });
        }
    }
}

/// The postmaster running on `layout`'s data directory, if any.
pub(super) fn running(layout: &PgLayout) -> Option<Postmaster> {
    let pm = Postmaster::read(layout)?;
    is_server_of(pm.pid, &layout.data()).then_some(pm)
}

/// Waits until a running postmaster says `ready` (it may still be starting).
fn wait_ready(layout: &PgLayout, mut pm: Postmaster) -> Result<Postmaster> {
    let deadline = Instant::now() + START_TIMEOUT;
    while !pm.ready {
        if Instant::now() >= deadline {
            return Err(PgError::StartFailed {
                status: format!(
                    "pid {} runs on {} but is not ready after {} s",
                    pm.pid,
                    layout.data().display(),
                    START_TIMEOUT.as_secs()
                ),
                log: layout.log(),
                log_tail: log_tail(&layout.log()),
            });
        }
        thread::sleep(Duration::from_millis(50));
        pm = running(layout).ok_or_else(|| PgError::StartFailed {
            status: "the running server exited while we waited for it".into(),
            log: layout.log(),
            log_tail: log_tail(&layout.log()),
        })?;
    }
    Ok(pm)
}

/// `pg_ctl stop -m fast -w`: the server is gone when it returns.
pub(super) fn stop(bins: &PgBinaries, layout: &PgLayout, owner: Owner, pid: u32) -> Result<()> {
    if !is_server_of(pid, &layout.data()) {
        let _ = fs::remove_file(layout.port_file());
        return Ok(());
    }
    let status = owner
        .command(&bins.pg_ctl)
        .arg("-D")
        .arg(layout.data())
        .args(["-m", "fast", "-w", "-t", "60", "stop"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(PgError::io("run", &bins.pg_ctl))?;
    let _ = fs::remove_file(layout.port_file());
    if !status.success() && is_alive(pid) {
        return Err(PgError::StopFailed {
            pid,
            status: status.to_string(),
            log: layout.log(),
        });
    }
    Ok(())
}

/// Whether `pid` is a live `postgres` whose command line has `-D <data_dir>`.
fn is_server_of(pid: u32, data_dir: &Path) -> bool {
    if !is_alive(pid) {
        return false;
    }
    let Ok(cmdline) = fs::read(format!("/proc/{pid}/cmdline")) else {
        return false;
    };
    let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
    let dir = data_dir.as_os_str().as_bytes();
    args.windows(2).any(|w| w[0] == b"-D" && w[1] == dir)
}
