//! The block device under a directory and its read counters from
//! `/proc/diskstats` (the kernel's `Documentation/admin-guide/iostats.rst`):
//! reads completed and milliseconds spent reading, what `iostat`'s `r/s` and
//! `r_await` are computed from. Report 004 reads them around each run to say
//! whether a buffer-pool miss reached a device, and how long a read took.

use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use serde::Serialize;

/// One device's read counters at one moment (cumulative since boot).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DeviceCounters {
    /// The kernel's device name, e.g. `vda`, `nvme0n1p2`.
    pub name: String,
    /// Reads completed (field 4 of the line).
    pub reads: u64,
    /// 512-byte sectors read (field 6).
    pub sectors_read: u64,
    /// Milliseconds spent on all reads (field 7; the sum of every read's
    /// time from issue to completion, so it grows faster than the wall clock
    /// when reads overlap).
    pub read_ms: u64,
}

/// The device counters of the block device holding `dir`, or why there are
/// none (a file system with no block device, e.g. FUSE or tmpfs, or no
/// `/proc/diskstats`).
pub fn of_dir(dir: &Path) -> Result<DeviceCounters, String> {
    let dev = std::fs::metadata(dir)
        .map_err(|e| format!("cannot stat {}: {e}", dir.display()))?
        .dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let text = std::fs::read_to_string("/proc/diskstats")
        .map_err(|e| format!("cannot read /proc/diskstats: {e}"))?;
    parse(&text, major, minor).ok_or_else(|| {
        format!(
            "{} is on device {major}:{minor}, which /proc/diskstats does not list (no block device behind it)",
            dir.display()
        )
    })
}

/// The line of device `major:minor` in a `/proc/diskstats` text.
pub fn parse(text: &str, major: u32, minor: u32) -> Option<DeviceCounters> {
    text.lines().find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 7 || f[0].parse() != Ok(major) || f[1].parse() != Ok(minor) {
            return None;
        }
        Some(DeviceCounters {
            name: f[2].to_string(),
            reads: f[3].parse().ok()?,
            sectors_read: f[5].parse().ok()?,
            read_ms: f[6].parse().ok()?,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = " 253       0 zram0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n 254       0 vda 3400889 140663 118464474 9920393 6924573 1288685 852451184 7153740 0 1250676 17813264 1323599 84 874220576 217848 2379816 521281\n";

    #[test]
    fn the_device_line_gives_reads_sectors_and_ms() {
        assert_eq!(
            parse(TEXT, 254, 0),
            Some(DeviceCounters {
                name: "vda".into(),
                reads: 3_400_889,
                sectors_read: 118_464_474,
                read_ms: 9_920_393,
            })
        );
        assert_eq!(parse(TEXT, 254, 1), None);
        assert_eq!(parse("8 0 sda 1 2\n", 8, 0), None);
    }
}
