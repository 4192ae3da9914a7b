//! The CPU time of the database server, read from `/proc` at the start and
//! end of each measured window: the server's side of the cost per query,
//! beside the client's (`getrusage`, oltp's `measure::process_cpu_time`).
//!
//! A server is a process on this machine: the private server (its pid from
//! its pid file) or `--server-pid PID`. Its CPU time is user + system time
//! (`utime` + `stime`, fields 14 and 15 of `/proc/PID/stat`, see proc(5)) of
//! the process and of every descendant, plus the children they have reaped
//! (`cutime` + `cstime`, fields 16 and 17): one `mariadbd` holds every
//! connection in its threads, while PostgreSQL runs one backend process per
//! connection under the postmaster, and a backend that exits mid-window moves
//! its time into the postmaster's `cutime` when the postmaster reaps it. A
//! reap can fall between the read of the parent and that of the child, so
//! [`read_tree`] reads each parent before and after its children and reads
//! again when a reap came in between: each child's time is counted once. The unit is the clock tick (`sysconf(_SC_CLK_TCK)`, 100 per second
//! on Linux): a 2 s window resolves to 10 ms of server CPU.

use std::collections::{HashMap, HashSet};
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
    /// `cutime` + `cstime`, clock ticks: the time of the children this
    /// process has reaped (waited for), included in `ticks`.
    pub reaped: u64,
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
    let reaped = signed(13, "cutime")? + signed(14, "cstime")?;
    let ticks = unsigned(11, "utime")? + unsigned(12, "stime")? + reaped;
    Ok(Stat {
        comm,
        ppid,
        ticks,
        reaped,
    })
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
    /// (user + system, with reaped children), from `/proc`: one consistent
    /// [`read_tree`] snapshot. Reads every `/proc/*/stat` at least once (a
    /// few ms; take it outside the client's CPU window).
    ///
    /// # Errors
    /// The server's own `/proc/PID/stat` cannot be read (it exited), or is
    /// another process now, or its processes kept exiting while they were
    /// read ([`READ_ATTEMPTS`] times).
    pub fn cpu_time(&self) -> Result<Duration, String> {
        let ticks = read_tree(self.pid, &self.comm, &mut ProcFs)?;
        Ok(Duration::from_secs_f64(ticks as f64 * self.tick_s))
    }
}

/// How many times [`read_tree`] reads the tree before it gives up: each retry
/// follows a child reaped while the tree was read (a backend exiting), which
/// happens once per closed connection, so two or three are the most seen.
pub const READ_ATTEMPTS: usize = 20;

/// Where [`read_tree`] reads process statistics: `/proc` ([`ProcFs`]), or a
/// recorded sequence in tests.
pub trait ProcSource {
    /// Every process readable now, by pid (one pass over `/proc`; a process
    /// that exits during the pass may be missing).
    fn all(&mut self) -> HashMap<u32, Stat>;
    /// One process, `None` if it is gone (exited and reaped).
    fn one(&mut self, pid: u32) -> Option<Stat>;
}

/// The live `/proc` of this machine.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProcFs;

impl ProcSource for ProcFs {
    fn all(&mut self) -> HashMap<u32, Stat> {
        let mut all = HashMap::new();
        if let Ok(dir) = std::fs::read_dir("/proc") {
            for e in dir.flatten() {
                let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                    continue;
                };
                if let Ok(st) = read_stat(pid) {
                    all.insert(pid, st);
                }
            }
        }
        all
    }

    fn one(&mut self, pid: u32) -> Option<Stat> {
        read_stat(pid).ok()
    }
}

/// The clock ticks of `root` and every descendant, each counted once, read
/// so that no child's time is lost or counted twice.
///
/// A child that exits is reaped by its parent, and the kernel then moves its
/// time into the parent's `cutime`/`cstime`. Reading the parent and then the
/// child loses the child's time when the reap falls in between (the child is
/// gone and the parent was read without it); reading the child first counts
/// it twice. This happened at the end of PostgreSQL runs, whose backends exit
/// as the run's connections close: the window lost the backend's whole time
/// and read ~0 s of server CPU. So: one pass over `/proc` finds the tree,
/// every parent's reaped time is read before and after its children are
/// read again, and the reading is taken only if no parent reaped a child in
/// between (else it is read again, up to [`READ_ATTEMPTS`] times). A child
/// gone before the first read of its parent is in that parent's reaped time;
/// a child forked during the reading counts from the next reading on.
///
/// # Errors
/// `root` is gone or is not `comm` any more; the tree never held still for
/// [`READ_ATTEMPTS`] readings.
pub fn read_tree(root: u32, comm: &str, procs: &mut impl ProcSource) -> Result<u64, String> {
    for _ in 0..READ_ATTEMPTS {
        let all = procs.all();
        let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
        for (&pid, st) in &all {
            children.entry(st.ppid).or_default().push(pid);
        }
        // The tree under root, parents first (a set, so that a pid reused
        // during the pass cannot make a cycle).
        let mut tree = vec![root];
        let mut seen = HashSet::from([root]);
        let mut i = 0;
        while i < tree.len() {
            if let Some(c) = children.get(&tree[i]) {
                let mut c = c.clone();
                c.sort_unstable();
                tree.extend(c.into_iter().filter(|&p| seen.insert(p)));
            }
            i += 1;
        }
        let is_parent = |p: u32| p == root || children.contains_key(&p);
        let (parents, leaves): (Vec<u32>, Vec<u32>) = tree.into_iter().partition(|&p| is_parent(p));
        let before: Vec<Option<Stat>> = parents.iter().map(|&p| procs.one(p)).collect();
        let leaves: u64 = leaves
            .iter()
            .filter_map(|&p| procs.one(p))
            .map(|st| st.ticks)
            .sum();
        let after: Vec<Option<Stat>> = parents.iter().map(|&p| procs.one(p)).collect();
        match (&before[0], &after[0]) {
            (Some(b), Some(a)) if b.comm == comm && a.comm == comm => {}
            (_, Some(a)) if a.comm != comm => {
                return Err(format!(
                    "pid {root} is {:?} now, no longer the server",
                    a.comm
                ));
            }
            _ => return Err(format!("cannot read /proc/{root}/stat: the server exited")),
        }
        let still = before.iter().zip(&after).all(|(b, a)| match (b, a) {
            (Some(b), Some(a)) => b.reaped == a.reaped,
            // A parent that exited mid-reading: its reaped time moved on.
            _ => false,
        });
        if still {
            let parents: u64 = after.iter().flatten().map(|st| st.ticks).sum();
            return Ok(parents + leaves);
        }
    }
    Err(format!(
        "the server's processes kept exiting while their CPU time was read ({READ_ATTEMPTS} attempts)"
    ))
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
pub const NO_SERVER_PID_MESSAGE: &str = "server pid unknown: pass --server-pid PID";

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
        assert_eq!(st.reaped, 7 + 3);
        // Negative cutime (a %ld): not a time, counts as 0.
        let neg = "7 (mariadbd) S 3 7 7 0 -1 0 0 0 0 0 10 20 -1 0";
        assert_eq!(parse_stat(neg).expect("parse").ticks, 30);
        assert!(parse_stat("7 mariadbd S 3").is_err());
        assert!(parse_stat("7 (mariadbd) S 3 7 7 0 -1 0 0 0 0 0 10").is_err());
        assert!(parse_stat("7 (mariadbd) S 3 7 7 0 -1 0 0 0 0 0 x 20 0 0").is_err());
    }

    /// A recorded `/proc`: a postmaster (10, 2 ticks of its own and 40 of
    /// reaped backends), its checkpointer (11, 1 tick) and the backend of the
    /// run's one connection (12, 47 ticks), which exits and is reaped (its
    /// ticks move to 10's `cutime`) just before the `one` read number
    /// `reap_before` (0-based); `None`: no reap. 90 ticks in all, either way.
    struct Recorded {
        procs: HashMap<u32, Stat>,
        ones: usize,
        reap_before: Option<usize>,
        /// Every read of 10 shows one more reaped tick (a server whose
        /// children never stop exiting).
        restless: bool,
    }

    fn stat(comm: &str, ppid: u32, own: u64, reaped: u64) -> Stat {
        Stat {
            comm: comm.to_string(),
            ppid,
            ticks: own + reaped,
            reaped,
        }
    }

    impl Recorded {
        fn new(reap_before: Option<usize>) -> Recorded {
            let procs = HashMap::from([
                (1, stat("systemd", 0, 500, 900)),
                (10, stat("postgres", 1, 2, 40)),
                (11, stat("postgres", 10, 1, 0)),
                (12, stat("postgres", 10, 47, 0)),
                (13, stat("bash", 1, 70, 0)),
            ]);
            Recorded {
                procs,
                ones: 0,
                reap_before,
                restless: false,
            }
        }

        fn reap_backend(&mut self) {
            if let Some(b) = self.procs.remove(&12) {
                let pm = self.procs.get_mut(&10).expect("postmaster");
                pm.reaped += b.ticks;
                pm.ticks += b.ticks;
            }
        }
    }

    impl ProcSource for Recorded {
        fn all(&mut self) -> HashMap<u32, Stat> {
            self.procs.clone()
        }

        fn one(&mut self, pid: u32) -> Option<Stat> {
            if self.reap_before == Some(self.ones) {
                self.reap_backend();
            }
            self.ones += 1;
            if self.restless && pid == 10 {
                let pm = self.procs.get_mut(&10).expect("postmaster");
                pm.reaped += 1;
                pm.ticks += 1;
            }
            self.procs.get(&pid).cloned()
        }
    }

    #[test]
    fn a_backend_reaped_while_the_tree_is_read_is_counted_once() {
        // No reap: 2 + 40 + 1 + 47; systemd and bash are not the server's.
        assert_eq!(read_tree(10, "postgres", &mut Recorded::new(None)), Ok(90));
        // The failing case of PostgreSQL runs: the backend is reaped after the
        // postmaster was read (read 0) and before the backend is (reads 1-2).
        // Reading each once lost its 47 ticks (43: a window of ~0 s); the
        // reap shows in the postmaster's reaped time, so it is read again.
        let mut r = Recorded::new(Some(1));
        assert_eq!(read_tree(10, "postgres", &mut r), Ok(90));
        assert!(r.ones > 4, "read again after the reap: {} reads", r.ones);
        // Reaped between the pass over /proc and the first read: in 10's
        // cutime only, once.
        assert_eq!(
            read_tree(10, "postgres", &mut Recorded::new(Some(0))),
            Ok(90)
        );
        // Reaped after the backend was read: its ticks are read, then show in
        // the postmaster's second read: read again, not counted twice.
        assert_eq!(
            read_tree(10, "postgres", &mut Recorded::new(Some(3))),
            Ok(90)
        );
    }

    #[test]
    fn a_tree_that_never_holds_still_or_a_gone_server_is_an_error() {
        let mut r = Recorded::new(None);
        r.restless = true;
        let e = read_tree(10, "postgres", &mut r).expect_err("restless");
        assert!(e.contains("kept exiting"), "{e}");
        let mut r = Recorded::new(None);
        r.procs.remove(&10);
        let e = read_tree(10, "postgres", &mut r).expect_err("gone");
        assert!(e.contains("the server exited"), "{e}");
        let e = read_tree(13, "postgres", &mut Recorded::new(None)).expect_err("bash");
        assert!(e.contains("no longer the server"), "{e}");
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
