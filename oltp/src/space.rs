//! Disk space: what a data set takes on the server's disk (estimated per
//! row) and what its file system has free, checked before `oltp prepare` and
//! `oltp reproduce` load anything.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

/// Plaintext sysbench bytes per row on disk (InnoDB files of the private
/// server after `oltp prepare`, measured at 250 x 25,000 rows: 3.2 GiB /
/// 6.25 M rows, rounded up; docs/measurements.md).
pub const PLAIN_BYTES_PER_ROW: u64 = 560;
/// sysbench bytes per row with every column sealed with AES-GCM (3.7 GiB /
/// 6.25 M rows for `c, pad`, plus `k`'s 37-byte envelope in the row and its
/// index).
pub const SEALED_BYTES_PER_ROW: u64 = 720;
/// Bytes on disk per pgbench account row, estimated (pgbench's tables with
/// their indexes: about 15 MiB per scale unit of 100,000 accounts, plus WAL).
pub const PGBENCH_BYTES_PER_ROW: u64 = 200;

/// Free bytes (for an unprivileged user) on the file system of `path`, or
/// of its nearest existing ancestor.
///
/// # Errors
/// No ancestor of `path` can be examined.
pub fn disk_free(path: &Path) -> Result<u64> {
    let p = existing_ancestor(path)
        .ok_or_else(|| anyhow::anyhow!("cannot read the free space of {}", path.display()))?;
    let st = nix::sys::statvfs::statvfs(p)
        .map_err(|e| anyhow::anyhow!("cannot read the free space of {}: {e}", p.display()))?;
    Ok(st.blocks_available() * st.fragment_size())
}

/// `path`, or its nearest ancestor that exists.
fn existing_ancestor(path: &Path) -> Option<&Path> {
    path.ancestors().find(|p| p.exists())
}

/// The mount point of the file system that holds `path` (or its nearest
/// existing ancestor): the topmost ancestor on the same device; `path`
/// itself when nothing can be examined.
pub fn mount_point(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let Some(start) = existing_ancestor(&abs) else {
        return abs;
    };
    let Ok(dev) = std::fs::metadata(start).map(|m| m.dev()) else {
        return start.to_path_buf();
    };
    start
        .ancestors()
        .take_while(|p| std::fs::metadata(p).is_ok_and(|m| m.dev() == dev))
        .last()
        .unwrap_or(start)
        .to_path_buf()
}

/// `bytes` as `3.2 GiB`, `140 MiB`.
pub fn bytes_text(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= (1u64 << 30) as f64 {
        format!("{:.1} GiB", b / (1u64 << 30) as f64)
    } else {
        format!("{:.0} MiB", (b / (1u64 << 20) as f64).ceil())
    }
}

/// Refuses a data set (`what`) of `need` bytes where `free` bytes are left
/// `on` a disk (10% kept in reserve for the server's logs and temporary
/// files); `fix` ends the message.
///
/// # Errors
/// It does not fit: the message says how much it needs, how much is free,
/// and `fix`.
pub fn check_disk(need: u64, free: u64, on: &str, what: &str, fix: &str) -> Result<()> {
    let with_reserve = need + need / 10;
    if with_reserve > free {
        bail!(
            "{what} needs about {} on {on} ({} of data and 10% reserve), only {} is free: {fix}",
            bytes_text(with_reserve),
            bytes_text(need),
            bytes_text(free)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_or_says_how_much_it_needs() {
        assert!(check_disk(1 << 30, 2 << 30, "/x", "report 000", "fix").is_ok());
        let e = check_disk(10 << 30, 2 << 30, "/x", "report 000", "do this")
            .expect_err("too big")
            .to_string();
        assert!(
            e.starts_with("report 000 needs about 11.0 GiB on /x"),
            "{e}"
        );
        assert!(e.ends_with("only 2.0 GiB is free: do this"), "{e}");
        assert!(disk_free(Path::new("/tmp/does/not/exist/yet")).expect("free") > 0);
    }

    #[test]
    fn the_mount_point_is_the_top_of_the_same_device() {
        assert_eq!(mount_point(Path::new("/")), Path::new("/"));
        // /proc is a file system of its own on every Linux.
        assert_eq!(mount_point(Path::new("/proc/self")), Path::new("/proc"));
        assert_eq!(
            mount_point(Path::new("/proc/does/not/exist")),
            Path::new("/proc")
        );
    }
}
