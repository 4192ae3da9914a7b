//! Checks before a reproduction loads or runs anything: will its data sets
//! fit the disk ([`encbench_oltp::space`], as `oltp prepare` checks), will its
//! connections fit memory? Each failure says how much is needed and how much
//! there is.

use anyhow::{Result, bail};

pub use encbench_oltp::space::{bytes_text, disk_free};

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

/// The fix a reproduction short of disk space is given
/// ([`encbench_oltp::space::check_disk`]); `quick`: the run is already `--quick`, so it
/// is not suggested.
pub fn disk_fix(quick: bool) -> &'static str {
    if quick {
        "free space there or use --base-dir on a larger disk"
    } else {
        "free space there, use --base-dir on a larger disk, or run --quick"
    }
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
    }

    #[test]
    fn a_quick_run_is_not_told_to_run_quick() {
        assert!(disk_fix(false).ends_with("or run --quick"));
        assert!(!disk_fix(true).contains("--quick"));
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
