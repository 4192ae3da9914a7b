//! `--iops-limit`: the private MariaDB in a cgroup of its own with a read and a write IOPS
//! limit on its data disk (cgroup v1 blkio throttle or cgroup v2 io.max, whichever this
//! machine has), on real servers: the server is in the cgroup with the limit written, a
//! cold-pool table scan's reads counted by the kernel stay under the cap, the cgroup is
//! gone after stop, and the bad inputs are refused in one line before anything starts.
//! Needs root (the cgroup files are root's); as another user the refusal is what is tested.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Instant;

use encbench_oltp::server::iops::{self, CGROUP_PREFIX, IopsCap, Mechanism};
use encbench_oltp::server::{PrivateServer, ServerConfig, ServerError};
use mysql_async::prelude::*;

#[allow(dead_code)] // each test binary uses a subset of the helpers
mod common;
use common::{conn, oltp_bin, runtime, server_tempdir, start, utf8};

/// The cap of the test, IO per second: far under what this disk serves uncapped
/// (thousands of reads per second measured, docs/measurements.md), so an unheld cap shows.
const CAP: u32 = 100;

/// Rows of the scanned table: 2^15 of ~290 bytes, about 9 MiB (≈580 pages of 16 KiB), so
/// a cold scan reads several times `CAP` pages: uncapped it takes well under a second, and
/// its reads would exceed the bound below unless the scan lasted ~3 s.
const DOUBLINGS: u32 = 15;

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// The flags of every server here: a small pool, no dump at shutdown or load at start,
/// so a restarted server's pool is cold and a scan reads every page from the disk.
fn cfg(dir: &Path, cap: Option<u32>) -> ServerConfig {
    let mut c = ServerConfig::new(dir);
    c.extra_args = vec![
        "--innodb-buffer-pool-size=32M".into(),
        "--innodb-buffer-pool-dump-at-shutdown=OFF".into(),
        "--innodb-buffer-pool-load-at-startup=OFF".into(),
    ];
    c.iops_limit = cap;
    c
}

/// The cgroup path of `pid` in the block-IO hierarchy, from `/proc/PID/cgroup` (v1: the
/// `blkio` line; v2: the `0::` line).
fn cgroup_line(pid: u32, mechanism: Mechanism) -> String {
    let text = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).expect("/proc/PID/cgroup");
    text.lines()
        .find_map(|l| {
            let mut f = l.splitn(3, ':');
            let (_, controllers, path) = (f.next()?, f.next()?, f.next()?);
            let mine = match mechanism {
                Mechanism::CgroupV1Blkio => controllers.split(',').any(|c| c == "blkio"),
                Mechanism::CgroupV2IoMax => controllers.is_empty(),
            };
            mine.then(|| path.to_string())
        })
        .unwrap_or_else(|| panic!("no block-IO line in {text}"))
}

/// Reads the cgroup `cap` names has completed, as the kernel counts them (v1:
/// `blkio.throttle.io_serviced`'s `Read` line of the device; v2: `io.stat`'s `rios`).
fn cgroup_reads(cap: &IopsCap) -> u64 {
    match cap.mechanism {
        Mechanism::CgroupV1Blkio => {
            let text = std::fs::read_to_string(cap.cgroup.join("blkio.throttle.io_serviced"))
                .expect("io_serviced");
            text.lines()
                .find_map(|l| {
                    let rest = l.strip_prefix(&format!("{} Read ", cap.device))?;
                    rest.trim().parse().ok()
                })
                .unwrap_or(0)
        }
        Mechanism::CgroupV2IoMax => {
            let text = std::fs::read_to_string(cap.cgroup.join("io.stat")).expect("io.stat");
            text.lines()
                .filter(|l| l.starts_with(&format!("{} ", cap.device)))
                .flat_map(|l| l.split_whitespace())
                .find_map(|kv| kv.strip_prefix("rios=")?.parse().ok())
                .unwrap_or(0)
        }
    }
}

/// Reads completed by `device` (`MAJ:MIN`) in `/proc/diskstats` (every process's).
fn device_reads(device: &str) -> u64 {
    let (major, minor) = device.split_once(':').expect("MAJ:MIN");
    let text = std::fs::read_to_string("/proc/diskstats").expect("diskstats");
    text.lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() > 3 && f[0] == major && f[1] == minor).then(|| f[3].parse().ok())?
        })
        .expect("the device's line")
}

fn cgroup_dir_of(cap: &IopsCap, pid: u32) -> PathBuf {
    cap.cgroup
        .parent()
        .expect("hierarchy root")
        .join(format!("{CGROUP_PREFIX}{pid}"))
}

#[test]
fn a_capped_server_is_in_its_cgroup_and_its_reads_stay_under_the_cap() {
    if !is_root() {
        // The refusal is the behaviour to test without root.
        let dir = server_tempdir();
        let err = PrivateServer::start(&cfg(dir.path(), Some(CAP))).expect_err("needs root");
        assert!(err.to_string().contains("needs root"), "{err}");
        return;
    }
    let dir = server_tempdir();
    let rt = runtime();
    // The table, written uncapped.
    let plain = start(&cfg(dir.path(), None));
    assert_eq!(plain.iops_cap(), None, "no --iops-limit: no cap");
    let pages = rt.block_on(async {
        let mut c = conn(&plain.url(), None).await;
        for q in [
            "CREATE DATABASE capped".to_string(),
            "CREATE TABLE capped.t (id INT AUTO_INCREMENT PRIMARY KEY, pad CHAR(255) NOT NULL) ENGINE=InnoDB".into(),
            "INSERT INTO capped.t (pad) VALUES (REPEAT('x', 255))".into(),
        ] {
            c.query_drop(q).await.expect("setup");
        }
        for _ in 0..DOUBLINGS {
            c.query_drop("INSERT INTO capped.t (pad) SELECT pad FROM capped.t")
                .await
                .expect("double");
        }
        c.query_drop("ANALYZE TABLE capped.t").await.expect("analyze");
        let bytes: u64 = c
            .query_first(
                "SELECT DATA_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'capped' AND TABLE_NAME = 't'",
            )
            .await
            .expect("size")
            .expect("row");
        c.disconnect().await.expect("disconnect");
        bytes / 16384
    });
    let plain_pid = plain.pid();
    drop(plain);

    // Capped: the server starts in its cgroup.
    let server = start(&cfg(dir.path(), Some(CAP)));
    assert!(server.started_here());
    let pid = server.pid();
    assert_ne!(pid, plain_pid);
    let cap = server.iops_cap().expect("the server is capped");
    assert_eq!(
        (cap.read_iops, cap.write_iops),
        (u64::from(CAP), u64::from(CAP))
    );
    // The kernel's own files, read here without oltp's parser.
    let line = cgroup_line(pid, cap.mechanism);
    assert_eq!(
        line,
        format!("/{CGROUP_PREFIX}{pid}"),
        "the server's cgroup"
    );
    assert_eq!(
        cap.cgroup.file_name().and_then(|n| n.to_str()),
        Some(&line[1..])
    );
    match cap.mechanism {
        Mechanism::CgroupV1Blkio => {
            for f in [
                "blkio.throttle.read_iops_device",
                "blkio.throttle.write_iops_device",
            ] {
                let got = std::fs::read_to_string(cap.cgroup.join(f)).expect(f);
                assert_eq!(got.trim(), format!("{} {CAP}", cap.device), "{f}");
            }
        }
        Mechanism::CgroupV2IoMax => {
            let got = std::fs::read_to_string(cap.cgroup.join("io.max")).expect("io.max");
            assert!(
                got.contains(&format!("riops={CAP} wiops={CAP}")),
                "io.max: {got}"
            );
        }
    }
    let procs = std::fs::read_to_string(cap.cgroup.join("cgroup.procs")).expect("procs");
    assert!(
        procs.lines().any(|l| l.trim() == pid.to_string()),
        "{pid} in cgroup.procs: {procs}"
    );
    // The data directory's disk is the capped device.
    let data_dev = {
        use std::os::unix::fs::MetadataExt as _;
        let d = std::fs::metadata(server.data_dir()).expect("stat").dev();
        (libc::major(d), libc::minor(d))
    };
    let sys = format!("/sys/dev/block/{}:{}", data_dev.0, data_dev.1);
    let whole = if Path::new(&sys).join("partition").exists() {
        std::fs::read_to_string(
            std::fs::canonicalize(&sys)
                .expect("sys")
                .parent()
                .expect("disk")
                .join("dev"),
        )
        .expect("dev")
        .trim()
        .to_string()
    } else {
        format!("{}:{}", data_dev.0, data_dev.1)
    };
    assert_eq!(cap.device, whole, "the data directory's disk");
    // The server's own settings: every InnoDB read direct.
    let flush = rt.block_on(async {
        let mut c = conn(&server.url(), None).await;
        let v: Option<String> = c
            .query_first("SELECT @@innodb_flush_method")
            .await
            .expect("flush method");
        c.disconnect().await.expect("disconnect");
        v
    });
    assert_eq!(flush.as_deref(), Some("O_DIRECT"));

    // A cold-pool scan: every page of the table is a read of the disk.
    let (reads0, dev0, t0) = (
        cgroup_reads(&cap),
        device_reads(&cap.device),
        Instant::now(),
    );
    let rows: u64 = rt.block_on(async {
        let mut c = conn(&server.url(), None).await;
        let n: Option<u64> = c
            .query_first("SELECT COUNT(*) FROM capped.t FORCE INDEX (PRIMARY) WHERE pad <> ''")
            .await
            .expect("scan");
        c.disconnect().await.expect("disconnect");
        n.expect("count")
    });
    let (reads, dev, secs) = (
        cgroup_reads(&cap) - reads0,
        device_reads(&cap.device) - dev0,
        t0.elapsed().as_secs_f64(),
    );
    assert_eq!(rows, 1 << DOUBLINGS);
    let seen = format!(
        "{reads} reads in the cgroup, {dev} on the device (every process's), in {secs:.2} s, {pages} pages, cap {CAP}/s"
    );
    eprintln!("{seen}");
    // The scan went to the disk, through the cgroup: at least half the table's pages (a
    // cold pool reads every leaf once; reads are counted per page before merging).
    assert!(reads >= pages / 2, "{seen}");
    // The bound below has the power to catch an uncapped server: a scan of every page in
    // under a second (what this disk does uncapped) breaks it.
    assert!(pages > 3 * u64::from(CAP) + 128, "{seen}");
    // ... and no faster than the cap: the kernel's count over the window we timed (which
    // holds the kernel's) is at most CAP per second, plus a generous burst of 2 s worth
    // (the throttle's slices). A load on the machine only slows the scan, never speeds it.
    // Reads InnoDB's read-ahead queued and the kernel counted before serving them: two
    // extents of 64 pages at most.
    assert!(
        reads as f64 <= f64::from(CAP) * (secs + 2.0) + 128.0,
        "the cap did not hold: {seen}"
    );

    // Stopped: the cgroup goes with the server.
    let root_dir = cgroup_dir_of(&cap, pid);
    assert!(root_dir.exists());
    server.stop().expect("stop");
    assert!(!root_dir.exists(), "{} left behind", root_dir.display());
    assert!(!iops::exists_for(pid));
}

#[test]
fn a_stale_cgroup_is_removed_at_the_next_capped_start() {
    if !is_root() {
        return;
    }
    let dir = server_tempdir();
    let first = start(&cfg(dir.path(), Some(CAP)));
    let cap = first.iops_cap().expect("capped");
    // A cgroup of a server that is gone (a pid above the kernel's limit cannot be alive).
    let max: u64 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .expect("pid_max")
        .trim()
        .parse()
        .expect("number");
    let stale = cap
        .cgroup
        .parent()
        .expect("root")
        .join(format!("{CGROUP_PREFIX}{}", max + 1));
    std::fs::create_dir(&stale).expect("make a stale cgroup");
    // Another cap restarts the server, which cleans up first.
    let second = start(&cfg(dir.path(), Some(CAP + 1)));
    assert_eq!(
        second.iops_cap().map(|c| c.read_iops),
        Some(u64::from(CAP + 1))
    );
    assert!(!stale.exists(), "stale {} left", stale.display());
    assert!(
        !iops::exists_for(first.pid()),
        "the replaced server's cgroup"
    );
    drop(first);
    let pid = second.pid();
    second.stop().expect("stop");
    assert!(!iops::exists_for(pid));
}

#[test]
fn a_data_directory_on_no_block_device_is_refused_before_anything_is_made() {
    if !is_root() {
        return;
    }
    // tmpfs: no block device to cap.
    let dir = tempfile::tempdir_in("/dev/shm").expect("tempdir on tmpfs");
    let err = match PrivateServer::start(&cfg(dir.path(), Some(CAP))) {
        Ok(_) => panic!("a cap on tmpfs must be refused"),
        Err(e) => e,
    };
    assert!(matches!(err, ServerError::Iops(_)), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("is on none") && text.contains("put --base-dir on a disk"),
        "{text}"
    );
    assert!(!dir.path().join("mariadb").exists(), "nothing made");
}

/// The one line on stderr of a failed command, exit 1.
fn refused(out: &Output, what: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).trim_end().to_string();
    assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{what}: one line: {stderr}");
    assert!(
        stderr.starts_with("Error: --iops-limit"),
        "{what}: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    stderr
}

#[test]
fn bad_iops_limits_are_refused_in_one_line() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    // Not a count of IO per second.
    for bad in ["0", "many", "4294967296"] {
        let out = oltp_bin(h, &["run", "--iops-limit", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(e.contains("--iops-limit"), "{bad}: {e}");
    }
    let cases: [(&[&str], &str); 4] = [
        (
            &[
                "run",
                "--iops-limit",
                "100",
                "--mysql-url",
                "mysql://u:p@127.0.0.1:1/db",
            ],
            "with --mysql-url, cap the server's disk yourself",
        ),
        (
            &["run", "--iops-limit", "100", "--db-driver", "pgsql"],
            "omit --iops-limit with --db-driver pgsql",
        ),
        (
            &["run", "--iops-limit", "100", "--at-rest", "gocryptfs"],
            "with --at-rest gocryptfs the disk IO is done by the filesystem's own threads",
        ),
        (
            &[
                "server",
                "start",
                "--iops-limit",
                "100",
                "--at-rest",
                "ext4-loop",
            ],
            "with --at-rest ext4-loop",
        ),
    ];
    for (args, needle) in cases {
        let line = refused(&oltp_bin(h, args), &args.join(" "));
        assert!(line.contains(needle), "{args:?}: {line}");
    }
    // Nothing was started or made for them.
    assert!(!h.join("mariadb").exists());
}

#[test]
fn no_root_or_no_block_io_controller_is_refused_before_the_server_starts() {
    if !is_root() {
        let home = server_tempdir();
        let line = refused(
            &oltp_bin(home.path(), &["server", "start", "--iops-limit", "100"]),
            "not root",
        );
        assert!(line.contains("needs root"), "{line}");
        return;
    }
    let home = server_tempdir();
    let oltp = env!("CARGO_BIN_EXE_oltp");
    let base = utf8(home.path());
    // Not root: the same command as user nobody.
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", oltp])
        .args(["server", "start", "--iops-limit", "100", "--base-dir", base])
        .output()
        .expect("run setpriv");
    let line = refused(&out, "as nobody");
    assert!(
        line.contains("needs root") && line.contains("run oltp as root, or omit --iops-limit"),
        "{line}"
    );
    // No controller: in a mount namespace of its own without the block-IO hierarchies.
    let script = format!(
        "for m in $(awk '$3 == \"cgroup2\" || ($3 == \"cgroup\" && $4 ~ /blkio/) {{print $2}}' /proc/self/mounts); do umount \"$m\" || exit 9; done; exec {oltp} server start --iops-limit 100 --base-dir {base}"
    );
    let out = std::process::Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", &script])
        .output()
        .expect("run unshare");
    let line = refused(&out, "no controller");
    assert!(
        line.contains("needs the block-IO cgroup controller") && line.contains("omit --iops-limit"),
        "{line}"
    );
    assert!(
        !home.path().join("mariadb").join("data").exists(),
        "no server made"
    );
}
