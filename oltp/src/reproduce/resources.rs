//! Checks before a reproduction loads or runs anything: will its data sets
//! fit the disk, will its connections fit memory? Each failure says how much
//! is needed and how much there is.

use std::path::Path;

use anyhow::{Result, bail};

/// Bytes of memory a run at `threads` connections needs besides the data:
/// the private server's 1 GiB buffer pool plus 4 MiB per connection (the
/// server thread's stack and buffers, the client worker's thread), a
/// deliberate over-estimate.
pub fn memory_needed(threads: u32) -> u64 {
    (1 << 30) + u64::from(threads) * (4 << 20)
}

/// `MemAvailable` of `/proc/meminfo`, bytes; `None` when it cannot be read.
pub fn memory_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_mem_available(&text)
}

/// `MemAvailable:  123456 kB` of a `/proc/meminfo` text, in bytes.
pub fn parse_mem_available(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Free bytes (for an unprivileged user) on the file system of `path`, or
/// of its nearest existing ancestor.
///
/// # Errors
/// No ancestor of `path` can be examined.
pub fn disk_free(path: &Path) -> Result<u64> {
    let mut p = path;
    loop {
        if p.exists() {
            let st = nix::sys::statvfs::statvfs(p).map_err(|e| {
                anyhow::anyhow!("cannot read the free space of {}: {e}", p.display())
            })?;
            return Ok(st.blocks_available() * st.fragment_size());
        }
        match p.parent() {
            Some(parent) => p = parent,
            None => bail!("cannot read the free space of {}", path.display()),
        }
    }
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

/// Refuses a data set of `need` bytes where `free` bytes are left under
/// `dir` (10% kept in reserve for the server's logs and temporary files);
/// `quick`: the run is already `--quick`, so the fix does not suggest it.
///
/// # Errors
/// It does not fit: the message says how much it needs and how much is free.
pub fn check_disk(need: u64, free: u64, dir: &Path, what: &str, quick: bool) -> Result<()> {
    let with_reserve = need + need / 10;
    if with_reserve > free {
        bail!(
            "{what} needs about {} on {} ({} of data and 10% reserve), only {} is free: free space there{}",
            bytes_text(with_reserve),
            dir.display(),
            bytes_text(need),
            bytes_text(free),
            if quick {
                " or use --base-dir on a larger disk"
            } else {
                ", use --base-dir on a larger disk, or run --quick"
            }
        );
    }
    Ok(())
}

/// Refuses a run at `threads` connections when only `available` bytes of
/// memory are available; `quick`: the run is already `--quick`, so the fix
/// does not suggest it.
///
/// # Errors
/// It does not fit: the message says how much it needs.
pub fn check_memory(threads: u32, available: u64, quick: bool) -> Result<()> {
    let need = memory_needed(threads);
    if need > available {
        bail!(
            "{threads} connections need about {} of memory (1 GiB buffer pool + 4 MiB per connection), only {} is available: stop other programs, or run {}with fewer --threads",
            bytes_text(need),
            bytes_text(available),
            if quick { "" } else { "--quick " }
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_or_says_how_much_it_needs() {
        assert!(check_disk(1 << 30, 2 << 30, Path::new("/x"), "report 000", false).is_ok());
        let e = check_disk(10 << 30, 2 << 30, Path::new("/x"), "report 000", false)
            .expect_err("too big")
            .to_string();
        assert!(
            e.starts_with("report 000 needs about 11.0 GiB on /x"),
            "{e}"
        );
        assert!(e.contains("only 2.0 GiB is free"), "{e}");
        assert!(
            e.ends_with(", use --base-dir on a larger disk, or run --quick"),
            "{e}"
        );
        assert!(check_memory(256, 8 << 30, false).is_ok());
        let e = check_memory(256, 1 << 30, false)
            .expect_err("too big")
            .to_string();
        assert!(
            e.starts_with("256 connections need about 2.0 GiB of memory"),
            "{e}"
        );
        assert!(e.ends_with("or run --quick with fewer --threads"), "{e}");
        assert_eq!(
            parse_mem_available("MemTotal: 10 kB\nMemAvailable:    2048 kB\n"),
            Some(2 << 20)
        );
        assert!(disk_free(Path::new("/tmp/does/not/exist/yet")).expect("free") > 0);
    }

    #[test]
    fn a_quick_run_is_not_told_to_run_quick() {
        let e = check_disk(10 << 30, 2 << 30, Path::new("/x"), "report 000", true)
            .expect_err("too big")
            .to_string();
        assert!(
            e.ends_with(
                "only 2.0 GiB is free: free space there or use --base-dir on a larger disk"
            ),
            "{e}"
        );
        assert!(!e.contains("--quick"), "{e}");
        let e = check_memory(256, 1 << 30, true)
            .expect_err("too big")
            .to_string();
        assert!(
            e.ends_with("stop other programs, or run with fewer --threads"),
            "{e}"
        );
        assert!(!e.contains("--quick"), "{e}");
    }
}
