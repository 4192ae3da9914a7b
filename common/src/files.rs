//! Files the user names on a command line (a key file, a CA's PEM file, result
//! JSON, column-bench's schema file), read whole but bounded: [`read_capped`]
//! refuses anything that is not a regular file (a FIFO would block forever, a
//! character device such as `/dev/zero` never ends, a directory holds no text)
//! without waiting on it, and reads at most a cap suited to what the file holds,
//! so a wrong path costs one line of error, never the machine's memory.
//!
//! `--password-file` is read through it too ([`crate::password`], which then
//! checks the file's mode and that it holds one line).

use std::io::Read as _;
use std::os::unix::fs::{FileTypeExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

/// Largest key file read (`--key-file`, oltp's default key files), bytes: 64 KiB.
/// A line of MariaDB's `file_key_management` format (`ID;HEX`) is at most 76
/// bytes (a 10-digit key id, `;`, the 64 hex digits of a 32-byte key, a
/// newline), so 64 KiB holds over 800 rotated keys with their comments; the
/// file `oltp prepare` creates is one comment and one key, about 140 bytes.
pub const MAX_KEY_FILE: u64 = 64 * 1024;

/// Largest PEM file of CA certificates read (`--tls-ca`), bytes: 1 MiB. One
/// PEM certificate is 1 to 2 KiB (a 4096-bit RSA CA about 2 KiB); a whole
/// system bundle (Debian's `ca-certificates.crt`, about 150 roots) is about
/// 220 KB.
pub const MAX_PEM_FILE: u64 = 1024 * 1024;

/// Largest JSON result read (`oltp merge` inputs, column-bench's
/// `--oltp-result`, the runs `oltp reproduce` reads back), bytes: 1 GiB. One
/// run of `oltp run --json-out` is about 11 KB (its histograms as hex), so a
/// merge of 19,000 runs is about 210 MB: the cap leaves room for five times that.
pub const MAX_RESULT_JSON: u64 = 1024 * 1024 * 1024;

/// Largest schema file read (column-bench's `--schema-file`: one
/// `NAME:LENGTHS` line per column), bytes: 1 MiB. MariaDB allows 4,096 columns
/// per table; a line is tens of bytes.
pub const MAX_SCHEMA_FILE: u64 = 1024 * 1024;

/// Why a named file was not read: each message is one line naming the flag,
/// the file and the fix.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FileError {
    /// The file cannot be opened or read (missing, no permission, an I/O error).
    #[error("cannot read {flag} {}: {error}: give {what}", path.display())]
    Io {
        /// The flag (or command) that named the file, e.g. `--tls-ca`.
        flag: String,
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        error: std::io::Error,
        /// What the file should be, e.g. `the PEM file of the CA ...`.
        what: String,
    },
    /// The path names a FIFO, a device, a directory or a socket.
    #[error("{flag} {} is {kind}, not a regular file: give {what}", path.display())]
    NotRegular {
        /// The flag (or command) that named the file.
        flag: String,
        /// The file.
        path: PathBuf,
        /// What it is: `a FIFO`, `a character device`, `a directory`, ...
        kind: &'static str,
        /// What the file should be.
        what: String,
    },
    /// The file holds more than the cap.
    #[error("{flag} {} is larger than {}, too large for {what}: give {what}", path.display(), shown(*cap))]
    TooLarge {
        /// The flag (or command) that named the file.
        flag: String,
        /// The file.
        path: PathBuf,
        /// The cap, bytes.
        cap: u64,
        /// What the file should be.
        what: String,
    },
}

impl FileError {
    /// The operating system's error kind for [`FileError::Io`] (e.g. `NotFound`),
    /// `None` for the others.
    pub fn io_kind(&self) -> Option<std::io::ErrorKind> {
        match self {
            FileError::Io { error, .. } => Some(error.kind()),
            _ => None,
        }
    }
}

/// `bytes` as KiB, MiB or GiB when it is a whole number of them.
fn shown(bytes: u64) -> String {
    for (unit, size) in [("GiB", 1u64 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] {
        if bytes >= size && bytes % size == 0 {
            return format!("{} {unit}", bytes / size);
        }
    }
    format!("{bytes} bytes")
}

/// What a file type that is not a regular file is, in words.
fn kind_of(t: std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// The whole content of the regular file `path`, at most `cap` bytes. The file
/// is opened without blocking (`O_NONBLOCK`: opening a FIFO does not wait for a
/// writer) and its type checked on the open file, before any byte is read; its
/// size is checked before reading and again while reading (a file that grows
/// is read only to `cap + 1` bytes). The buffer is sized to the file once, so
/// a large file takes its size in memory, not twice that.
///
/// `flag` names the flag or command that named the file (`--tls-ca`, `oltp
/// merge`) and `what` the file it should be (`the PEM file of the CA that
/// signed the server's certificate`), both used in errors.
///
/// # Errors
/// [`FileError::Io`] when it cannot be opened or read, [`FileError::NotRegular`]
/// for a FIFO, a device, a directory or a socket, [`FileError::TooLarge`] when it
/// holds more than `cap` bytes.
pub fn read_capped(path: &Path, cap: u64, what: &str, flag: &str) -> Result<Vec<u8>, FileError> {
    let io = |error| FileError::Io {
        flag: flag.to_string(),
        path: path.to_path_buf(),
        error,
        what: what.to_string(),
    };
    let too_large = || FileError::TooLarge {
        flag: flag.to_string(),
        path: path.to_path_buf(),
        cap,
        what: what.to_string(),
    };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)
        .map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.file_type().is_file() {
        return Err(FileError::NotRegular {
            flag: flag.to_string(),
            path: path.to_path_buf(),
            kind: kind_of(meta.file_type()),
            what: what.to_string(),
        });
    }
    if meta.len() > cap {
        return Err(too_large());
    }
    let len = usize::try_from(meta.len()).map_err(|_| too_large())?;
    let mut bytes = Vec::with_capacity(len);
    file.take(cap + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > cap {
        return Err(too_large());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const WHAT: &str = "a key file of ID;HEX lines";

    fn read(path: &Path, cap: u64) -> Result<Vec<u8>, String> {
        read_capped(path, cap, WHAT, "--key-file").map_err(|e| e.to_string())
    }

    #[test]
    fn a_regular_file_up_to_the_cap_is_read_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("k");
        std::fs::write(&p, b"1;00ff\n").expect("write");
        assert_eq!(read(&p, 7).expect("read"), b"1;00ff\n");
        let e = read(&p, 6).expect_err("over the cap");
        assert_eq!(
            e,
            format!(
                "--key-file {} is larger than 6 bytes, too large for {WHAT}: give {WHAT}",
                p.display()
            )
        );
        std::fs::write(&p, vec![b'#'; 64 * 1024 + 1]).expect("write");
        let e = read(&p, MAX_KEY_FILE).expect_err("over the cap");
        assert!(e.contains("is larger than 64 KiB"), "{e}");
    }

    #[test]
    fn what_is_not_a_regular_file_is_refused_without_reading_or_waiting() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
        for (path, kind) in [
            (Path::new("/dev/zero"), "a character device"),
            (fifo.as_path(), "a FIFO"),
            (dir.path(), "a directory"),
        ] {
            let e = read(path, MAX_KEY_FILE).expect_err("refused");
            assert_eq!(
                e,
                format!(
                    "--key-file {} is {kind}, not a regular file: give {WHAT}",
                    path.display()
                )
            );
        }
        let missing = dir.path().join("missing");
        let e = read_capped(&missing, 1, WHAT, "--key-file").expect_err("missing");
        assert_eq!(e.io_kind(), Some(std::io::ErrorKind::NotFound));
        assert!(
            e.to_string()
                .starts_with(&format!("cannot read --key-file {}: ", missing.display())),
            "{e}"
        );
    }

    #[test]
    fn caps_are_shown_in_their_unit() {
        assert_eq!(shown(MAX_KEY_FILE), "64 KiB");
        assert_eq!(shown(MAX_PEM_FILE), "1 MiB");
        assert_eq!(shown(MAX_RESULT_JSON), "1 GiB");
        assert_eq!(shown(1500), "1500 bytes");
    }
}
