//! The CPU time of the database server, read from `/proc` at the start and
//! end of each measured window: the server's side of the cost per query,
//! beside the client's (`getrusage`, [`crate::measure::process_cpu_time`]).
//!
//! A server is a process on this machine: the private server (its pid from
//! its pid file) or `--server-pid PID`. Its CPU time is user + system time
//! (`utime` + `stime`, fields 14 and 15 of `/proc/PID/stat`, see proc(5)) of
//! the process and of every descendant, plus the children they have reaped
//! (`cutime` + `cstime`, fields 16 and 17): one `mariadbd` holds every
//! connection in its threads, while PostgreSQL runs one backend process per
//! connection under the postmaster, and a backend that exits mid-window moves
//! its time into the postmaster's `cutime`, so it is neither lost nor counted
//! twice. The unit is the clock tick (`sysconf(_SC_CLK_TCK)`, 100 per second
//! on Linux): a 2 s window resolves to 10 ms of server CPU.

use std::collections::HashMap;
use std::time::Duration;

/// The process names (`/proc/PID/comm`) accepted as a database server.
pub const SERVER_NAMES: [&str; 4] = ["mariadbd", "mysqld", "postgres", "postmaster"];

/// Why `--server-pid` cannot be measured. The messages name the fix.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerPidError {
    /// No such process, or its `/proc` entry cannot be read.
    #[error(
        "--server-pid {pid}: cannot read /proc/{pid}/stat ({detail}): give the pid of the database server running on this machine (e.g. `pgrep -x mariadbd`)"
    )]
    NotReadable {
        /// The pid given.
        pid: u32,
        /// What failed.
        detail: String,
    },
    /// The process is not a database server.
    #[error(
        "--server-pid {pid} is {comm:?}, not a database server (accepted: mariadbd, mysqld, postgres, postmaster): give the server's pid (e.g. `pgrep -x mariadbd`)"
    )]
    NotAServer {
        /// The pid given.
        pid: u32,
        /// Its process name.
        comm: String,
    },
}

/// The fields of one `/proc/PID/stat` line that the server's CPU needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stat {
    /// The process name (`comm`, at most 15 bytes, may hold spaces and `)`).
    pub comm: String,
    /// The parent's pid.
    pub ppid: u32,
    /// `utime` + `stime` + `cutime` + `cstime`, clock ticks.
    pub ticks: u64,
}

/// Parses one `/proc/PID/stat` line: `pid (comm) state ppid ...`. `comm` is
/// whatever lies between the first `(` and the last `)` (a name may contain
/// both `)` and spaces), the other fields are read after the last `)`.
///
/// # Errors
/// A line without `(`, `)` or the fields up to `cstime`, or a field that is
/// not a number.
pub fn parse_stat(line: &str) -> Result<Stat, String> {
    let (open, close) = match (line.find('('), line.rfind(')')) {
        (Some(o), Some(c)) if o < c => (o, c),
        _ => return Err("no (comm) in /proc/PID/stat".to_string()),
    };
    let comm = line[open + 1..close].to_string();
    // After `)`: state ppid pgrp session tty_nr tpgid flags minflt cminflt
    // majflt cmajflt utime stime cutime cstime ... (proc(5), fields 3 to 17).
    let fields: Vec<&str> = line[close + 1..].split_ascii_whitespace().collect();
    let field = |i: usize, name: &str| -> Result<&str, String> {
        fields
            .get(i)
            .copied()
            .ok_or_else(|| format!("/proc/PID/stat has no {name} field"))
    };
    let unsigned = |i: usize, name: &str| -> Result<u64, String> {
        let f = field(i, name)?;
        f.parse::<u64>()
            .map_err(|_| format!("/proc/PID/stat {name} is not a count: {f:?}"))
    };
    // cutime and cstime are signed (%ld); a negative value is not a time.
    let signed = |i: usize, name: &str| -> Result<u64, String> {
        let f = field(i, name)?;
        f.parse::<i64>()
            .map(|v| v.max(0) as u64)
            .map_err(|_| format!("/proc/PID/stat {name} is not a count: {f:?}"))
    };
    let ppid = field(1, "ppid")?
        .parse::<u32>()
        .map_err(|_| "/proc/PID/stat ppid is not a pid".to_string())?;
    let ticks = unsigned(11, "utime")?
        + unsigned(12, "stime")?
        + signed(13, "cutime")?
        + signed(14, "cstime")?;
    Ok(Stat { comm, ppid, ticks })
}

/// The server process whose CPU time is read: a live database server on
/// this machine, checked once.
#[derive(Clone, Debug)]
pub struct ServerProcess {
    pid: u32,
    comm: String,
    /// Seconds per clock tick.
    tick_s: f64,
}

fn read_stat(pid: u32) -> Result<Stat, String> {
    let path = format!("/proc/{pid}/stat");
    let line = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    parse_stat(&line)
}

impl ServerProcess {
    /// Checks that `pid` is a readable database server process
    /// ([`SERVER_NAMES`]).
    ///
    /// # Errors
    /// [`ServerPidError::NotReadable`] (no such process, no `/proc`, no
    /// clock tick rate), [`ServerPidError::NotAServer`].
    pub fn open(pid: u32) -> Result<ServerProcess, ServerPidError> {
        let not_readable = |detail: String| ServerPidError::NotReadable { pid, detail };
        if pid == 0 {
            return Err(not_readable("0 is not a process id".to_string()));
        }
        let stat = read_stat(pid).map_err(not_readable)?;
        if !SERVER_NAMES.contains(&stat.comm.as_str()) {
            return Err(ServerPidError::NotAServer {
                pid,
                comm: stat.comm,
            });
        }
        let ticks_per_s = match nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK) {
            Ok(Some(n)) if n > 0 => n as f64,
            other => return Err(not_readable(format!("no clock tick rate: {other:?}"))),
        };
        Ok(ServerProcess {
            pid,
            comm: stat.comm,
            tick_s: 1.0 / ticks_per_s,
        })
    }

    /// The server's pid.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Its process name (`mariadbd`, `postgres`, ...).
    pub fn name(&self) -> &str {
        &self.comm
    }

    /// CPU time the server process and its descendants have used so far
    /// (user + system, with reaped children), from `/proc`. Reads every
    /// `/proc/*/stat` to find the descendants (a few ms; take it outside the
    /// client's CPU window).
    ///
    /// # Errors
    /// The server's own `/proc/PID/stat` cannot be read (it exited), or is
    /// another process now.
    pub fn cpu_time(&self) -> Result<Duration, String> {
        let me =
            read_stat(self.pid).map_err(|e| format!("cannot read /proc/{}/stat: {e}", self.pid))?;
        if me.comm != self.comm {
            return Err(format!(
                "pid {} is {:?} now, no longer the server",
                self.pid, me.comm
            ));
        }
        // Children by parent, over every process readable now.
        let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
        let mut ticks: HashMap<u32, u64> = HashMap::new();
        if let Ok(dir) = std::fs::read_dir("/proc") {
            for e in dir.flatten() {
                let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                    continue;
                };
                // A process that exits between the listing and the read is skipped:
                // its parent's cutime holds its time once reaped.
                if let Ok(st) = read_stat(pid) {
                    children.entry(st.ppid).or_default().push(pid);
                    ticks.insert(pid, st.ticks);
                }
            }
        }
        let mut total = me.ticks;
        let mut todo = children.get(&self.pid).cloned().unwrap_or_default();
        while let Some(p) = todo.pop() {
            total += ticks.get(&p).copied().unwrap_or(0);
            if let Some(c) = children.get(&p) {
                todo.extend(c);
            }
        }
        Ok(Duration::from_secs_f64(total as f64 * self.tick_s))
    }
}

/// Where a run's server CPU comes from: a server process, or why there is
/// none (then `server_cpu_us_per_query` is null with this reason).
#[derive(Clone, Debug)]
pub enum ServerCpu {
    /// The server process, read at both ends of every measured window.
    Process(ServerProcess),
    /// Why the server's CPU is not measured, e.g. `server pid unknown: pass
    /// --server-pid PID`.
    Unavailable(String),
}

/// The reason when a `--mysql-url` server has no `--server-pid`.
pub const PID_UNKNOWN: &str = "server pid unknown: pass --server-pid PID";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_stat_reads_after_the_last_parenthesis() {
        // A comm with spaces and ')' (as `prctl(PR_SET_NAME)` allows), then
        // proc(5)'s fields: utime 1234, stime 56, cutime 7, cstime 3.
        let line = "4242 (my ) (odd) d) S 1 4242 4242 0 -1 4194560 8176 0 0 0 1234 56 7 3 20 0 37 0 12345 2271068160 30000 18446744073709551615 1 1 0 0 0 0 0 4096 1537 0 0 0 17 1 0 0 0 0 0\n";
        let st = parse_stat(line).expect("parse");
        assert_eq!(st.comm, "my ) (odd) d");
        assert_eq!(st.ppid, 1);
        assert_eq!(st.ticks, 1234 + 56 + 7 + 3);
        // Negative cutime (a %ld): not a time, counts as 0.
        let neg = "7 (mariadbd) S 3 7 7 0 -1 0 0 0 0 0 10 20 -1 0";
        assert_eq!(parse_stat(neg).expect("parse").ticks, 30);
        assert!(parse_stat("7 mariadbd S 3").is_err());
        assert!(parse_stat("7 (mariadbd) S 3 7 7 0 -1 0 0 0 0 0 10").is_err());
        assert!(parse_stat("7 (mariadbd) S 3 7 7 0 -1 0 0 0 0 0 x 20 0 0").is_err());
    }

    #[test]
    fn this_process_is_refused_as_not_a_server() {
        let e = ServerProcess::open(std::process::id()).expect_err("a test binary");
        assert!(matches!(e, ServerPidError::NotAServer { .. }), "{e}");
        assert!(e.to_string().contains("accepted: mariadbd"), "{e}");
        let e = ServerProcess::open(0).expect_err("pid 0");
        assert!(matches!(e, ServerPidError::NotReadable { .. }), "{e}");
    }
}
