//! The `mariadbd` process: starting it (or finding the one already running on our
//! directory), waiting until it answers, signals, clean shutdown, and the directory lock
//! that serialises all of these across processes.

use std::fs::{self, OpenOptions};
use std::io;
use std::net::{Ipv4Addr, TcpListener};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use super::binaries::{Binaries, flag};
use super::config::ServerConfig;
use super::error::{Result, ServerError, io_err};
use super::init::initialise;
use super::layout::Layout;
use super::logs::{read_log_since, start_failed, tail};
use super::owner::Owner;
use super::password;
use super::{PrivateServer, START_TIMEOUT, STOP_TIMEOUT};
use crate::io_failure::IoFailure;

/// How long a start or stop waits for another process that holds the base directory's lock
/// (long enough for that process to initialise and start a server itself).
const LOCK_TIMEOUT: Duration = Duration::from_secs(300);

/// Attempts at starting when the port we picked is taken before `mariadbd` binds it.
const PORT_ATTEMPTS: usize = 3;

/// How long [`PrivateServer::kill`] waits for a killed server to be gone.
const KILL_TIMEOUT: Duration = Duration::from_secs(10);

/// Flags every private server gets, after the paths and before `extra_args`
/// (values from `shared/spec/mariadb.md`: sysbench with many threads needs more than the
/// default 151 connections and 16382 prepared statements).
const SERVER_FLAGS: [&str; 6] = [
    "--bind-address=127.0.0.1",
    "--skip-name-resolve",
    "--max-connections=2000",
    "--max-prepared-stmt-count=1048576",
    "--innodb-buffer-pool-size=1G",
    "--skip-log-bin",
];

/// The body of [`PrivateServer::start`], run while holding the directory lock; `owner`: who
/// the server runs as (`mysql` when we are root).
pub(super) fn start_locked(
    cfg: &ServerConfig,
    bins: Binaries,
    layout: Layout,
    owner: Owner,
) -> Result<PrivateServer> {
    if let Some(pid) = layout
        .read_pid()
        .filter(|&p| is_server_of(p, layout.data()))
    {
        match wait_answering(&bins, &layout, pid)? {
            // Made by an older oltp (no password file): stopped, then refused below.
            Answer::Ready if password::read(&layout.password_file()).is_none() => {
                shutdown_foreign(&bins, &layout, pid)?;
            }
            Answer::Ready
                if layout.recorded_args().is_some_and(|r| cfg.same_flags(&r))
                    && cfg.iops_limit.map(u64::from)
                        == super::iops::of_pid(pid).map(|c| c.read_iops) =>
            {
                let port = match layout.read_port() {
                    Some(port) => port,
                    None => bins.query_port(&layout)?,
                };
                return PrivateServer::new(layout, bins, port, pid, None);
            }
            // Other flags: restart with ours.
            Answer::Ready => shutdown_foreign(&bins, &layout, pid)?,
            Answer::Gone => {}
        }
    }
    for stale in [
        layout.pid_file(),
        layout.socket().to_path_buf(),
        layout.port_file(),
    ] {
        let _ = fs::remove_file(stale);
    }
    // The cap's device once the data directory's filesystem is mounted (before: refused
    // early by `PrivateServer::start`).
    let cap = cfg
        .iops_limit
        .map(|n| super::iops::plan(layout.data(), n))
        .transpose()?;
    if layout.data().is_dir() {
        check_not_old(&layout, owner)?;
    } else {
        initialise(&bins, &layout, owner)?;
    }
    launch(cfg, bins, layout, owner, cap.as_ref())
}

/// Refuses a data directory made by an older oltp: no password file (the benchmark user's
/// password is the fixed `encbench`, and `root@127.0.0.1` may still be there), or, as root,
/// files owned by root (the server ran as root), which `mysql` cannot open.
fn check_not_old(layout: &Layout, owner: Owner) -> Result<()> {
    let why = if password::read(&layout.password_file()).is_none() {
        "no password file: its benchmark user has the fixed password 'encbench'"
    } else if !owner.owns(layout.data()) {
        "its files belong to root, not to the user 'mysql' the server now runs as"
    } else {
        return Ok(());
    };
    Err(ServerError::OldDataDir {
        data: layout.data().to_path_buf(),
        why,
    })
}

/// Gives the server (`owner`) what it opens itself: `tmp/`, and the TLS and at-rest key
/// files when they exist (made by `config`, as us: the server reads them after dropping to
/// `mysql`). Makes `no-files/`, its `--secure-file-priv`: ours, empty, mode 0500.
fn hand_over(layout: &Layout, owner: Owner) -> Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = layout.tmp_dir();
    fs::create_dir_all(&tmp).map_err(io_err("create directory", &tmp))?;
    let tls = layout.tls_files();
    let tls_dir = tls.key.parent().map(Path::to_path_buf);
    let files = [
        Some(tmp),
        tls_dir,
        Some(tls.ca),
        Some(tls.cert),
        Some(tls.key),
    ];
    for path in files
        .into_iter()
        .flatten()
        .chain([layout.at_rest_key_file()])
        .filter(|p| p.exists())
    {
        owner.take(&path).map_err(io_err("chown", &path))?;
    }
    let none = layout.no_files_dir();
    fs::create_dir_all(&none).map_err(io_err("create directory", &none))?;
    fs::set_permissions(&none, fs::Permissions::from_mode(0o500))
        .map_err(io_err("chmod 500", &none))
}

/// Spawns `mariadbd` (as `owner`), in the cgroup of `cap` when capped, and waits until it
/// answers; retries on a port taken in the meantime.
fn launch(
    cfg: &ServerConfig,
    bins: Binaries,
    layout: Layout,
    owner: Owner,
    cap: Option<&super::iops::CapPlan>,
) -> Result<PrivateServer> {
    layout.record_args(&cfg.recorded_args())?;
    hand_over(&layout, owner)?;
    let tmp = layout.tmp_dir();

    let mut attempt = 0;
    loop {
        attempt += 1;
        let port = pick_port(&layout, attempt)?;
        let log_start = fs::metadata(layout.err_log()).map_or(0, |m| m.len());
        let mut cmd = owner.command(&bins.mariadbd);
        cmd.arg("--no-defaults")
            .args(bins.path_flags())
            .arg(flag("--datadir=", layout.data()))
            .arg(flag("--socket=", layout.socket()))
            .arg(flag("--pid-file=", &layout.pid_file()))
            .arg(flag("--log-error=", layout.err_log()))
            .arg(flag("--tmpdir=", &tmp))
            .env("TMPDIR", &tmp)
            .arg(format!("--port={port}"))
            .args(SERVER_FLAGS)
            .arg(flag("--secure-file-priv=", &layout.no_files_dir()))
            .args(&cfg.extra_args)
            .args(cap.map_or(&[][..], |_| &super::iops::CAP_FLAGS[..]))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Own process group: a Ctrl-C meant for us does not kill the server mid-write;
            // our handle's drop stops it cleanly instead.
            .process_group(0);
        let mut child = cmd.spawn().map_err(io_err("run", &bins.mariadbd))?;
        let pid = child.id();
        // A start that fails (below) leaves no cgroup behind; a started server keeps it.
        let _cgroup = super::iops::RemovedWhenGone(pid);
        // Into its cgroup at once, before it opens its data files: all its IO is capped.
        if let Some(plan) = cap
            && let Err(e) = super::iops::apply(plan, pid)
        {
            let _ = child.kill();
            let _ = child.wait();
            return Err(e.into());
        }

        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let exited = child
                .try_wait()
                .map_err(io_err("wait for", &bins.mariadbd))?;
            if let Some(status) = exited {
                let log = read_log_since(layout.err_log(), log_start);
                if attempt < PORT_ATTEMPTS && log.contains("Address already in use") {
                    break;
                }
                return Err(start_failed(status, layout.err_log(), &log));
            }
            if bins.ping(layout.socket()) {
                layout.record_port(port)?;
                return PrivateServer::new(layout, bins, port, pid, Some(child));
            }
            if Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                let log = read_log_since(layout.err_log(), log_start);
                return Err(ServerError::StartTimedOut {
                    socket: layout.socket().to_path_buf(),
                    secs: START_TIMEOUT.as_secs(),
                    log: layout.err_log().to_path_buf(),
                    log_tail: tail(&log),
                });
            }
            thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The port of start attempt `attempt` (1, 2, ...): at the first, the one the last start
/// chose (`port.chosen`) while nothing listens on it, so a URL stays valid across restarts;
/// otherwise, and after a port clash, a free one.
fn pick_port(layout: &Layout, attempt: usize) -> Result<u16> {
    match layout.read_chosen_port() {
        Some(port) if attempt == 1 && port_is_free(port) => Ok(port),
        _ => free_port(ServerError::Io),
    }
}

/// Whether nothing listens on 127.0.0.1:`port` (we can bind it; the listener closes at once).
pub(super) fn port_is_free(port: u16) -> bool {
    TcpListener::bind((Ipv4Addr::LOCALHOST, port)).is_ok()
}

/// A port on 127.0.0.1 that nothing listens on right now; a failed bind
/// becomes `wrap` of its [`IoFailure`] (each engine's error).
pub(super) fn free_port<E>(wrap: fn(IoFailure) -> E) -> Result<u16, E> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(IoFailure::on("bind", Path::new("127.0.0.1:0"), wrap))
}

/// What a running server on our directory did while we waited for it.
enum Answer {
    Ready,
    Gone,
}

/// Waits until the server `pid` answers on the socket, or exits.
fn wait_answering(bins: &Binaries, layout: &Layout, pid: u32) -> Result<Answer> {
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if !is_alive(pid) {
            return Ok(Answer::Gone);
        }
        if bins.ping(layout.socket()) {
            return Ok(Answer::Ready);
        }
        if Instant::now() >= deadline {
            return Err(ServerError::Unresponsive {
                pid,
                data_dir: layout.data().to_path_buf(),
                socket: layout.socket().to_path_buf(),
                secs: START_TIMEOUT.as_secs(),
            });
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// Stops a server this process did not start (to restart it with other flags, or for
/// [`PrivateServer::stop_any`]).
pub(super) fn shutdown_foreign(bins: &Binaries, layout: &Layout, pid: u32) -> Result<()> {
    let _cgroup = super::iops::RemovedWhenGone(pid);
    let asked = bins
        .admin(layout.socket())
        .arg("shutdown")
        .status()
        .is_ok_and(|s| s.success());
    if !asked {
        send_signal(pid, Signal::SIGTERM)?;
    }
    let deadline = Instant::now() + STOP_TIMEOUT;
    while is_alive(pid) {
        if Instant::now() >= deadline {
            send_signal(pid, Signal::SIGKILL)?;
            return Err(ServerError::StopTimedOut {
                pid,
                secs: STOP_TIMEOUT.as_secs(),
                log: layout.err_log().to_path_buf(),
            });
        }
        thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

impl PrivateServer {
    /// Stops the child if there is one; idempotent.
    pub(super) fn shutdown(&mut self) -> Result<()> {
        let Some(mut child) = self.lock_child().take() else {
            return Ok(());
        };
        if child
            .try_wait()
            .map_err(io_err("wait for", &self.bins.mariadbd))?
            .is_some()
        {
            return Ok(());
        }
        // Hold the directory lock so a concurrent start waits for the end of the shutdown
        // rather than racing it; stop anyway if the lock cannot be had.
        let mut result = None;
        let _ = with_lock(&self.layout.lock_file(), || {
            result = Some(self.shutdown_child(&mut child).and_then(|()| {
                Ok(crate::at_rest::unmount_for(
                    self.layout.base(),
                    self.layout.dir(),
                )?)
            }));
            Ok(())
        });
        match result {
            Some(r) => r,
            None => self.shutdown_child(&mut child),
        }
    }

    fn shutdown_child(&self, child: &mut Child) -> Result<()> {
        let _cgroup = super::iops::RemovedWhenGone(self.pid);
        if send_signal(self.pid, Signal::SIGTERM).is_err() {
            // The signal could not be sent: ask the server itself.
            let _ = self
                .bins
                .admin(self.layout.socket())
                .arg("shutdown")
                .status();
        }
        let deadline = Instant::now() + STOP_TIMEOUT;
        loop {
            if child
                .try_wait()
                .map_err(io_err("wait for", &self.bins.mariadbd))?
                .is_some()
            {
                let _ = fs::remove_file(self.layout.port_file());
                return Ok(());
            }
            if Instant::now() >= deadline {
                let _ = child.kill();
                child
                    .wait()
                    .map_err(io_err("wait for", &self.bins.mariadbd))?;
                let _ = fs::remove_file(self.layout.port_file());
                return Err(ServerError::StopTimedOut {
                    pid: self.pid,
                    secs: STOP_TIMEOUT.as_secs(),
                    log: self.layout.err_log().to_path_buf(),
                });
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// `SIGKILL` to a server this handle did not start, and the wait for it to be gone (its
    /// caller, [`PrivateServer::kill`], holds the cgroup's [`super::iops::RemovedWhenGone`]).
    pub(super) fn kill_foreign(&self) -> Result<()> {
        if !is_server_of(self.pid, self.layout.data()) {
            return Ok(());
        }
        send_signal(self.pid, Signal::SIGKILL)?;
        let deadline = Instant::now() + KILL_TIMEOUT;
        while is_alive(self.pid) {
            if Instant::now() >= deadline {
                return Err(ServerError::Signal {
                    signal: "KILL",
                    pid: self.pid,
                    detail: format!(
                        "the process is still there after {} s",
                        KILL_TIMEOUT.as_secs()
                    ),
                });
            }
            thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }
}

/// Runs `f` while holding an exclusive `flock` on `path` (waiting at most [`LOCK_TIMEOUT`]).
pub(super) fn with_lock<T>(path: &Path, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(io_err("open", path))?;
    let mut lock = fd_lock::RwLock::new(file);
    let deadline = Instant::now() + LOCK_TIMEOUT;
    loop {
        match lock.try_write() {
            Ok(_guard) => return f(),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(io_err("lock", path)(e)),
        }
        if Instant::now() >= deadline {
            return Err(ServerError::LockTimedOut {
                path: path.to_path_buf(),
                secs: LOCK_TIMEOUT.as_secs(),
            });
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// Whether `pid` is a live (not zombie) `mariadbd` started with `--datadir=<data_dir>`.
pub(super) fn is_server_of(pid: u32, data_dir: &Path) -> bool {
    if !is_alive(pid) {
        return false;
    }
    let Ok(cmdline) = fs::read(format!("/proc/{pid}/cmdline")) else {
        return false;
    };
    let expected = flag("--datadir=", data_dir);
    cmdline
        .split(|&b| b == 0)
        .any(|arg| arg == expected.as_bytes())
}

/// Whether process `pid` exists and is not a zombie.
///
/// `kill(pid, 0)` says whether it exists (`EPERM`: it does, under another user); `/proc`
/// whether it is a zombie. A dying process loses its command line (and memory) before it
/// closes its files, so once a server is identified by [`is_server_of`], waits for its end
/// use this: only a zombie or no process at all has released the data directory.
pub(super) fn is_alive(pid: u32) -> bool {
    let Some(target) = process_id(pid) else {
        return false;
    };
    if matches!(kill(target, None), Err(nix::errno::Errno::ESRCH)) {
        return false;
    }
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
        // No /proc: the process exists, zombie or not.
        return !Path::new("/proc/self").exists();
    };
    // `pid (comm) S ...`: the state follows the last `)`.
    let state = stat
        .rfind(')')
        .and_then(|i| stat[i + 1..].trim_start().chars().next());
    !matches!(state, None | Some('Z' | 'X'))
}

/// `pid` as a process id for `kill(2)`: never 0 or negative (a process group), or too large.
fn process_id(pid: u32) -> Option<Pid> {
    i32::try_from(pid)
        .ok()
        .filter(|&p| p > 0)
        .map(Pid::from_raw)
}

/// Sends `signal` to the process `pid`.
fn send_signal(pid: u32, signal: Signal) -> Result<()> {
    let name = signal.as_str().trim_start_matches("SIG");
    let target = process_id(pid).ok_or_else(|| ServerError::Signal {
        signal: name,
        pid,
        detail: "not a process id".into(),
    })?;
    kill(target, signal).map_err(|errno| ServerError::Signal {
        signal: name,
        pid,
        detail: errno.desc().to_string(),
    })
}
