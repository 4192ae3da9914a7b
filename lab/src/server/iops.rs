//! An IOPS cap on the private `mariadbd` (`--iops-limit N`): a cgroup of its own per
//! server, `encbench-mariadbd-<pid>` at the root of the block-IO hierarchy, holding a
//! limit of N reads per second and N writes per second on the block device of the data
//! directory, enforced by the kernel's block throttle:
//!
//! - cgroup v1, the `blkio` controller: `blkio.throttle.read_iops_device` and
//!   `blkio.throttle.write_iops_device` (`MAJ:MIN N`; the kernel's
//!   `Documentation/admin-guide/cgroup-v1/blkio-controller.rst`);
//! - cgroup v2, the `io` controller: `io.max` (`MAJ:MIN riops=N wiops=N`;
//!   `Documentation/admin-guide/cgroup-v2.rst`), enabled in the root's
//!   `cgroup.subtree_control`.
//!
//! A machine with a v1 `blkio` hierarchy uses it (the controller is then not available to
//! v2); else v2 when its root's `cgroup.controllers` lists `io`; else the cap is refused.
//! The limit goes on the whole disk (a partition's `MAJ:MIN` is refused by the kernel), found
//! through `/sys/dev/block/MAJ:MIN`.
//!
//! What the cap holds: IO the server's threads submit to the device themselves, i.e. direct
//! IO (InnoDB's data files and doublewrite buffer with `innodb_flush_method=O_DIRECT`, its
//! redo log with `innodb_log_file_buffering=OFF`: the flags [`CAP_FLAGS`] a capped server
//! gets) and reads that miss the page cache. What it does not hold under v1: buffered writes,
//! which reach the disk by the kernel's writeback (or an `fsync`) charged to the root
//! cgroup: the binary log and the filesystem's journal. v2 charges writeback to the
//! cgroup that dirtied the pages, where the memory controller is enabled too.
//!
//! The cgroup is made and the server moved in right after `mariadbd` is spawned (before it
//! opens its data files), and removed when the server stops; a cgroup whose `<pid>` is no
//! live process is removed at the next start (stale, from a server killed outside oltp).

use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// The name of every server's cgroup starts with this, then the `mariadbd` pid.
pub const CGROUP_PREFIX: &str = "encbench-mariadbd-";

/// The `mariadbd` flags of a capped server, after the profile's: every InnoDB read and write
/// direct, so the cgroup's throttle sees it (MariaDB 10.11's defaults, said explicitly).
pub const CAP_FLAGS: [&str; 2] = [
    "--innodb-flush-method=O_DIRECT",
    "--innodb-log-file-buffering=OFF",
];

/// How long [`remove`] retries a cgroup the kernel still holds (its last tasks exiting).
const REMOVE_TIMEOUT: Duration = Duration::from_secs(5);

/// Why an IOPS cap cannot be set; each names the fix.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IopsError {
    /// Not root: cgroups are the kernel's, writable by root only here.
    #[error(
        "--iops-limit needs root (it creates a cgroup under {}): run oltp as root, or omit --iops-limit",
        root.display()
    )]
    NotRoot {
        /// The hierarchy the cgroup would go in.
        root: PathBuf,
    },
    /// Neither a v1 `blkio` hierarchy nor a v2 one with the `io` controller.
    #[error(
        "--iops-limit needs the block-IO cgroup controller, and this machine has none ({why}): mount cgroup v1's blkio (mount -t cgroup -o blkio none /sys/fs/cgroup/blkio) or enable cgroup v2's io, or omit --iops-limit"
    )]
    NoController {
        /// What was found instead.
        why: String,
    },
    /// The data directory is on no block device (tmpfs, overlay, FUSE).
    #[error(
        "--iops-limit caps the block device of the data directory, and {} is on none (device {major}:{minor}: tmpfs, overlay or FUSE): put --base-dir on a disk, or omit --iops-limit",
        dir.display()
    )]
    NoBlockDevice {
        /// The directory.
        dir: PathBuf,
        /// Its device's major number (0: no device).
        major: u32,
        /// Its device's minor number.
        minor: u32,
    },
    /// A cgroup file could not be read or written.
    #[error("--iops-limit: cannot {action} {}: {error} (is the cgroup filesystem mounted read-only? run oltp where it is writable, or omit --iops-limit)", path.display())]
    Cgroup {
        /// What was being done.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The kernel's answer.
        error: io::Error,
    },
    /// The kernel did not keep what was written.
    #[error(
        "--iops-limit: {what} reads back as {got:?} (expected {expected:?}): the kernel refused the cap; omit --iops-limit"
    )]
    NotApplied {
        /// The file.
        what: String,
        /// What it holds.
        got: String,
        /// What was written.
        expected: String,
    },
}

type Result<T> = std::result::Result<T, IopsError>;

/// The kernel mechanism that holds a cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mechanism {
    /// cgroup v1, `blkio.throttle.{read,write}_iops_device`.
    #[serde(rename = "cgroup v1 blkio throttle")]
    CgroupV1Blkio,
    /// cgroup v2, `io.max`'s `riops` and `wiops`.
    #[serde(rename = "cgroup v2 io.max")]
    CgroupV2IoMax,
}

impl Mechanism {
    /// Its name, as in the JSON (`cgroup v1 blkio throttle`, `cgroup v2 io.max`).
    pub fn label(self) -> &'static str {
        match self {
            Mechanism::CgroupV1Blkio => "cgroup v1 blkio throttle",
            Mechanism::CgroupV2IoMax => "cgroup v2 io.max",
        }
    }
}

/// An IOPS cap as the kernel holds it for a running server (read back from its cgroup):
/// the `iops_cap` of a run's JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IopsCap {
    /// Reads per second the server may submit to the device (`--iops-limit`).
    pub read_iops: u64,
    /// Writes per second, likewise (a separate limit: reads and writes together may reach
    /// twice `--iops-limit`).
    pub write_iops: u64,
    /// Which kernel mechanism holds it.
    pub mechanism: Mechanism,
    /// The device, `MAJ:MIN` (the whole disk holding the data directory).
    pub device: String,
    /// The device's kernel name, e.g. `vda` (empty when unknown).
    pub device_name: String,
    /// The server's cgroup directory.
    pub cgroup: PathBuf,
}

impl IopsCap {
    /// One line for text reports, e.g. `200 reads/s + 200 writes/s on vda (254:0), cgroup
    /// v1 blkio throttle`.
    pub fn text(&self) -> String {
        format!(
            "{} reads/s + {} writes/s on {} ({}), {}",
            self.read_iops,
            self.write_iops,
            if self.device_name.is_empty() {
                "?"
            } else {
                &self.device_name
            },
            self.device,
            self.mechanism.label()
        )
    }
}

/// Where a cap will go, checked before the server starts ([`plan`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapPlan {
    /// The limit, IO per second for reads and for writes each.
    pub limit: u32,
    /// The mechanism.
    pub mechanism: Mechanism,
    /// The hierarchy's root directory (the cgroup goes right under it).
    pub root: PathBuf,
    /// The whole disk, `(major, minor)`.
    pub device: (u32, u32),
}

/// A mounted cgroup hierarchy: its mechanism and where it is.
fn hierarchies(mountinfo: &str) -> Vec<(Mechanism, PathBuf)> {
    mountinfo
        .lines()
        .filter_map(|line| {
            // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS
            let (left, right) = line.split_once(" - ")?;
            let mountpoint = left.split(' ').nth(4)?;
            let mut r = right.split(' ');
            let fstype = r.next()?;
            let superopts = r.nth(1).unwrap_or("");
            let mechanism = match fstype {
                "cgroup" if superopts.split(',').any(|o| o == "blkio") => Mechanism::CgroupV1Blkio,
                "cgroup2" => Mechanism::CgroupV2IoMax,
                _ => return None,
            };
            Some((mechanism, PathBuf::from(unescape(mountpoint))))
        })
        .collect()
}

/// A mountinfo path with its octal escapes (`\040` for a space) decoded.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let code = rest
            .get(i + 1..i + 4)
            .and_then(|o| u8::from_str_radix(o, 8).ok());
        match code {
            Some(c) => {
                out.push(char::from(c));
                rest = &rest[i + 4..];
            }
            None => {
                out.push('\\');
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The hierarchy a cap uses on this machine: v1 `blkio` when mounted, else v2 with `io`.
///
/// # Errors
/// [`IopsError::NoController`].
fn hierarchy() -> Result<(Mechanism, PathBuf)> {
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").map_err(|e| IopsError::Cgroup {
        action: "read",
        path: "/proc/self/mountinfo".into(),
        error: e,
    })?;
    let all = hierarchies(&mountinfo);
    if let Some(v1) = all.iter().find(|(m, _)| *m == Mechanism::CgroupV1Blkio) {
        return Ok(v1.clone());
    }
    let mut seen = Vec::new();
    for (m, root) in all.iter().filter(|(m, _)| *m == Mechanism::CgroupV2IoMax) {
        let controllers = fs::read_to_string(root.join("cgroup.controllers")).unwrap_or_default();
        if controllers.split_whitespace().any(|c| c == "io") {
            return Ok((*m, root.clone()));
        }
        seen.push(format!(
            "cgroup v2 at {} has controllers '{}'",
            root.display(),
            controllers.trim()
        ));
    }
    Err(IopsError::NoController {
        why: if seen.is_empty() {
            "no blkio (v1) or cgroup2 mount in /proc/self/mountinfo".to_string()
        } else {
            format!("no blkio (v1) mount, and {}", seen.join(", "))
        },
    })
}

/// The whole disk of device `(major, minor)`: itself, or for a partition its parent's
/// `dev` in `/sys/dev/block`.
fn whole_disk(major: u32, minor: u32) -> (u32, u32) {
    let sys = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    if !sys.join("partition").exists() {
        return (major, minor);
    }
    fs::canonicalize(&sys)
        .ok()
        .and_then(|p| fs::read_to_string(p.parent()?.join("dev")).ok())
        .and_then(|d| {
            let (a, b) = d.trim().split_once(':')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        })
        .unwrap_or((major, minor))
}

/// The kernel name of device `MAJ:MIN` (`DEVNAME` of its uevent), or empty.
fn device_name(device: &str) -> String {
    fs::read_to_string(format!("/sys/dev/block/{device}/uevent"))
        .ok()
        .and_then(|u| {
            u.lines()
                .find_map(|l| l.strip_prefix("DEVNAME=").map(str::to_string))
        })
        .unwrap_or_default()
}

/// Checks that a cap of `limit` IOPS can be put on a server whose data lives in `dir` (or,
/// while `dir` does not exist yet, in its nearest existing parent), and says where.
///
/// # Errors
/// [`IopsError::NotRoot`], [`IopsError::NoController`], [`IopsError::NoBlockDevice`],
/// [`IopsError::Cgroup`] (the directory cannot be read).
pub fn plan(dir: &Path, limit: u32) -> Result<CapPlan> {
    let (mechanism, root) = hierarchy()?;
    if !nix::unistd::geteuid().is_root() {
        return Err(IopsError::NotRoot { root });
    }
    let existing = dir
        .ancestors()
        .find(|p| p.exists())
        .unwrap_or(Path::new("/"));
    let dev = fs::metadata(existing)
        .map_err(|e| IopsError::Cgroup {
            action: "stat",
            path: existing.to_path_buf(),
            error: e,
        })?
        .dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    if major == 0 || !Path::new(&format!("/sys/dev/block/{major}:{minor}")).exists() {
        return Err(IopsError::NoBlockDevice {
            dir: existing.to_path_buf(),
            major,
            minor,
        });
    }
    Ok(CapPlan {
        limit,
        mechanism,
        root,
        device: whole_disk(major, minor),
    })
}

/// The cgroup directory of server `pid` under `root`.
fn cgroup_dir(root: &Path, pid: u32) -> PathBuf {
    root.join(format!("{CGROUP_PREFIX}{pid}"))
}

fn write(path: &Path, text: &str) -> Result<()> {
    fs::write(path, text).map_err(|e| IopsError::Cgroup {
        action: "write",
        path: path.to_path_buf(),
        error: e,
    })
}

/// Puts server `pid` in a cgroup of its own under `plan`'s hierarchy with `plan`'s limit,
/// after removing stale cgroups of ours; returns the cap as the kernel reads it back.
///
/// # Errors
/// [`IopsError::Cgroup`] (a write refused), [`IopsError::NotApplied`] (the limit or the
/// move did not hold).
pub fn apply(plan: &CapPlan, pid: u32) -> Result<IopsCap> {
    remove_stale(&plan.root);
    let dir = cgroup_dir(&plan.root, pid);
    fs::create_dir_all(&dir).map_err(|e| IopsError::Cgroup {
        action: "create",
        path: dir.clone(),
        error: e,
    })?;
    let (major, minor) = plan.device;
    let n = plan.limit;
    match plan.mechanism {
        Mechanism::CgroupV1Blkio => {
            for file in [
                "blkio.throttle.read_iops_device",
                "blkio.throttle.write_iops_device",
            ] {
                write(&dir.join(file), &format!("{major}:{minor} {n}\n"))?;
            }
        }
        Mechanism::CgroupV2IoMax => {
            let control = plan.root.join("cgroup.subtree_control");
            let enabled = fs::read_to_string(&control).unwrap_or_default();
            if !enabled.split_whitespace().any(|c| c == "io") {
                write(&control, "+io\n")?;
            }
            write(
                &dir.join("io.max"),
                &format!("{major}:{minor} riops={n} wiops={n}\n"),
            )?;
        }
    }
    write(&dir.join("cgroup.procs"), &format!("{pid}\n"))?;
    let got = of_pid(pid);
    let expected = IopsCap {
        read_iops: u64::from(n),
        write_iops: u64::from(n),
        mechanism: plan.mechanism,
        device: format!("{major}:{minor}"),
        device_name: device_name(&format!("{major}:{minor}")),
        cgroup: dir.clone(),
    };
    match got {
        Some(cap) if cap == expected => Ok(cap),
        other => Err(IopsError::NotApplied {
            what: format!("the cgroup of process {pid}"),
            got: other.map_or("no cap".to_string(), |c| c.text()),
            expected: expected.text(),
        }),
    }
}

/// The cap the kernel holds for process `pid`: `None` when it is in no cgroup of ours (or
/// gone).
pub fn of_pid(pid: u32) -> Option<IopsCap> {
    let (mechanism, root) = hierarchy().ok()?;
    let cgroups = fs::read_to_string(format!("/proc/{pid}/cgroup")).ok()?;
    // Lines `ID:CONTROLLERS:PATH`; v2's is `0::PATH`.
    let path = cgroups.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (_, controllers, path) = (f.next()?, f.next()?, f.next()?);
        let mine = match mechanism {
            Mechanism::CgroupV1Blkio => controllers.split(',').any(|c| c == "blkio"),
            Mechanism::CgroupV2IoMax => controllers.is_empty(),
        };
        mine.then(|| path.to_string())
    })?;
    let name = Path::new(&path).file_name()?.to_str()?;
    if !name.starts_with(CGROUP_PREFIX) {
        return None;
    }
    let dir = root.join(name);
    let limits: Vec<(String, u64, u64)> = match mechanism {
        Mechanism::CgroupV1Blkio => {
            let read = |f: &str| -> Vec<(String, u64)> {
                fs::read_to_string(dir.join(f))
                    .unwrap_or_default()
                    .lines()
                    .filter_map(|l| {
                        let (d, n) = l.split_once(' ')?;
                        Some((d.to_string(), n.trim().parse().ok()?))
                    })
                    .collect()
            };
            let writes = read("blkio.throttle.write_iops_device");
            read("blkio.throttle.read_iops_device")
                .into_iter()
                .filter_map(|(d, r)| {
                    let w = writes.iter().find(|(wd, _)| *wd == d)?.1;
                    Some((d, r, w))
                })
                .collect()
        }
        Mechanism::CgroupV2IoMax => fs::read_to_string(dir.join("io.max"))
            .unwrap_or_default()
            .lines()
            .filter_map(parse_io_max)
            .collect(),
    };
    let (device, read_iops, write_iops) = limits.into_iter().next()?;
    Some(IopsCap {
        read_iops,
        write_iops,
        mechanism,
        device_name: device_name(&device),
        device,
        cgroup: dir,
    })
}

/// One line of `io.max`, `MAJ:MIN rbps=max wbps=max riops=N wiops=N`: the device and both
/// IOPS limits, when both are numbers.
fn parse_io_max(line: &str) -> Option<(String, u64, u64)> {
    let mut f = line.split_whitespace();
    let device = f.next()?.to_string();
    let (mut r, mut w) = (None, None);
    for kv in f {
        match kv.split_once('=') {
            Some(("riops", v)) => r = v.parse().ok(),
            Some(("wiops", v)) => w = v.parse().ok(),
            _ => {}
        }
    }
    Some((device, r?, w?))
}

/// Removes the cgroup of server `pid` once its tasks are gone (after the server stopped);
/// nothing to do when it has none. Best effort: a cgroup left behind is removed by the next
/// [`apply`] (stale).
pub fn remove(pid: u32) {
    let Ok((_, root)) = hierarchy() else {
        return;
    };
    let dir = cgroup_dir(&root, pid);
    let deadline = Instant::now() + REMOVE_TIMEOUT;
    // rmdir, not remove_dir_all: a cgroup's files are the kernel's, and rmdir is refused
    // (EBUSY) while a task is still inside.
    while dir.exists() && fs::remove_dir(&dir).is_err() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(20));
    }
}

/// Removes the cgroup of server `pid` ([`remove`]) when dropped, if the server is gone by
/// then (exited, or a zombie); a server still running keeps its cgroup and its cap. Every
/// path that starts, stops or kills a server holds one from the moment it knows the pid,
/// so each way out (stopped, failed to start, timed out, an error) removes the cgroup of a
/// server that is gone, and none can miss it.
#[must_use = "the cgroup is removed when this is dropped"]
pub(super) struct RemovedWhenGone(pub(super) u32);

impl Drop for RemovedWhenGone {
    fn drop(&mut self) {
        if !super::process::is_alive(self.0) {
            remove(self.0);
        }
    }
}

/// Whether the cgroup of server `pid` exists (for tests and checks).
pub fn exists_for(pid: u32) -> bool {
    hierarchy().is_ok_and(|(_, root)| cgroup_dir(&root, pid).exists())
}

/// Removes our cgroups under `root` whose pid is no live process.
fn remove_stale(root: &Path) {
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(CGROUP_PREFIX))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = fs::remove_dir(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_gives_the_blkio_and_cgroup2_hierarchies() {
        let text = "\
35 26 0:30 / /sys/fs/cgroup/unified rw,nosuid shared:10 - cgroup2 cgroup2 rw,nsdelegate
36 26 0:31 / /sys/fs/cgroup/blkio rw,nosuid shared:11 - cgroup cgroup rw,blkio
37 26 0:32 / /sys/fs/cgroup/cpu rw,nosuid shared:12 - cgroup cgroup rw,cpu
38 26 0:33 / /mnt/with\\040space rw - cgroup cgroup rw,blkio,memory
22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
";
        assert_eq!(
            hierarchies(text),
            vec![
                (Mechanism::CgroupV2IoMax, "/sys/fs/cgroup/unified".into()),
                (Mechanism::CgroupV1Blkio, "/sys/fs/cgroup/blkio".into()),
                (Mechanism::CgroupV1Blkio, "/mnt/with space".into()),
            ]
        );
    }

    #[test]
    fn io_max_lines_give_both_iops_limits() {
        assert_eq!(
            parse_io_max("254:0 rbps=max wbps=max riops=200 wiops=300"),
            Some(("254:0".into(), 200, 300))
        );
        assert_eq!(
            parse_io_max("254:0 rbps=max wbps=max riops=max wiops=300"),
            None
        );
    }

    #[test]
    fn the_mechanism_is_named_in_the_json_as_in_the_text() {
        for m in [Mechanism::CgroupV1Blkio, Mechanism::CgroupV2IoMax] {
            assert_eq!(
                serde_json::to_value(m).expect("json"),
                serde_json::Value::String(m.label().into())
            );
        }
    }
}
