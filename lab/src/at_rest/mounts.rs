//! The mount table, the programs the mechanisms run, `umount`, `syncfs`, and the key
//! files.

use std::fs::{self, OpenOptions};
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::error::{AtRestError, io};

/// Directories searched for the programs besides `PATH` (mount tools live in sbin).
const SBIN_DIRS: [&str; 4] = ["/usr/sbin", "/sbin", "/usr/bin", "/bin"];

/// Whether `path` is a mount point now (`/proc/self/mountinfo`, field 5, octal escapes
/// decoded), compared after making `path` absolute.
pub(super) fn is_mounted(path: &Path) -> bool {
    let Ok(abs) = std::path::absolute(path) else {
        return false;
    };
    let Ok(table) = fs::read_to_string("/proc/self/mountinfo") else {
        return false;
    };
    table
        .lines()
        .filter_map(|l| l.split(' ').nth(4))
        .any(|mp| Path::new(&unescape(mp)) == abs)
}

/// The kernel's escapes in mount table paths: `\040` (space), `\011`, `\012`, `\134`.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b[i + 1..i + 4].iter().all(u8::is_ascii_digit) {
            let v = (b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0');
            out.push(v);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `name` in `PATH` or the sbin directories, if installed.
pub(super) fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(SBIN_DIRS.iter().map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| {
            use std::os::unix::fs::PermissionsExt as _;
            fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Runs `program` with `args` (stdin closed, output captured); `what` names the step in
/// the error, e.g. `gocryptfs -init`.
///
/// # Errors
/// [`AtRestError::Refused`] when the program is missing (naming `package`),
/// [`AtRestError::Program`] when it fails (with the last line it wrote).
pub(super) fn run(
    mode: &'static str,
    program: &str,
    package: &str,
    what: &str,
    args: &[&std::ffi::OsStr],
) -> Result<(), AtRestError> {
    let exe = find_program(program).ok_or_else(|| missing(mode, program, package))?;
    let out = Command::new(&exe)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(io("run", &exe))?;
    if out.status.success() {
        return Ok(());
    }
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty() && !l.contains("syslog"))
        .map(|l| format!(": {}", l.trim()))
        .unwrap_or_default();
    Err(AtRestError::Program {
        mode,
        program: what.to_string(),
        status: out.status.to_string(),
        detail: last,
    })
}

/// The refusal for a program that is not installed.
pub(super) fn missing(mode: &'static str, program: &str, package: &str) -> AtRestError {
    AtRestError::Refused {
        mode,
        reason: format!(
            "{program} is not installed: install it with 'apt-get install {package}' (Debian/Ubuntu)"
        ),
    }
}

/// How long [`umount`] retries a busy mount: a stopped server's last processes may still
/// be closing their files when its pid file is gone.
const UMOUNT_TIMEOUT: Duration = Duration::from_secs(15);

/// `umount path` (FUSE mounts included: oltp runs as root), retried every 100 ms while
/// the mount is busy, for at most [`UMOUNT_TIMEOUT`]. Never lazy: a mount that stays busy
/// is an error.
///
/// # Errors
/// `umount` is missing, or still fails after the timeout.
pub(super) fn umount(path: &Path) -> Result<(), AtRestError> {
    let deadline = Instant::now() + UMOUNT_TIMEOUT;
    loop {
        match run(
            "(unmount)",
            "umount",
            "mount",
            "umount",
            &[path.as_os_str()],
        ) {
            Err(AtRestError::Program { .. }) if is_mounted(path) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(100));
            }
            other => return other,
        }
    }
}

/// `syncfs(2)` on the filesystem of `path`.
///
/// # Errors
/// `path` cannot be opened, or the call fails.
pub(super) fn syncfs(path: &Path) -> Result<(), AtRestError> {
    let dir = fs::File::open(path).map_err(io("open", path))?;
    nix::unistd::syncfs(&dir).map_err(|e| io("syncfs", path)(e.into()))
}

/// Creates `path` (mode 0600, through a temporary file and a rename) holding `make()`'s
/// bytes, unless it exists. The caller's directory is mode 0700; the bytes are wiped from
/// memory after the write.
///
/// # Errors
/// The file cannot be written or read.
pub(super) fn ensure_key(path: &Path, make: impl FnOnce() -> Vec<u8>) -> Result<(), AtRestError> {
    if path.exists() {
        return Ok(());
    }
    let tmp = path.with_extension("tmp");
    let _ = fs::remove_file(&tmp);
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(io("create", &tmp))?;
    let bytes = zeroize::Zeroizing::new(make());
    f.write_all(&bytes)
        .and_then(|()| f.sync_all())
        .map_err(io("write", &tmp))?;
    fs::rename(&tmp, path).map_err(io("rename", &tmp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mount_table_escapes_are_decoded() {
        assert_eq!(unescape("/a\\040b/c"), "/a b/c");
        assert_eq!(unescape("/plain"), "/plain");
        assert_eq!(unescape("/x\\134y"), "/x\\y");
    }

    #[test]
    fn the_root_is_mounted_and_a_plain_directory_is_not() {
        assert!(is_mounted(Path::new("/")));
        assert!(!is_mounted(
            &std::env::temp_dir().join("encbench-not-a-mount-point")
        ));
    }
}
