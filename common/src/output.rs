//! Output files: written whole or not at all ([`write_atomically`]), and
//! checked before a long run ([`check_writable`]) so that minutes of
//! measurement do not end in a report that cannot be saved.
//!
//! Both refuse a path in a directory that does not exist (a mistyped path is
//! refused, never created), a path that is a directory, and one that is a
//! device, a FIFO or a socket (the rename would replace `/dev/null` itself
//! with a regular file, as root). A symbolic link is followed: the file it
//! names is replaced, not the link. Every error names the flag the path came
//! from and the fix.

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// Why an output file cannot be written. Every message is one line naming the
/// flag and the path, then the fix; the operating system's error is part of
/// the message (there is no separate `source`), so it prints once.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// The path names a directory.
    #[error("{flag} {}: is a directory: give a file name", path.display())]
    IsDirectory {
        /// The flag the path came from, e.g. `--out`.
        flag: String,
        /// The path given.
        path: PathBuf,
    },
    /// The path names a device, a FIFO or a socket, which an atomic write
    /// (a rename over it) would replace with a regular file.
    #[error(
        "{flag} {}: is a {kind}, not a regular file: give the path of a file to write (it is replaced whole)",
        path.display()
    )]
    NotAFile {
        /// The flag the path came from.
        flag: String,
        /// The path given.
        path: PathBuf,
        /// What it is: `character device`, `block device`, `FIFO`, `socket`.
        kind: &'static str,
    },
    /// The directory the file would go in does not exist.
    #[error(
        "{flag} {}: directory {} does not exist: create it first, or give another path",
        path.display(),
        dir.display()
    )]
    MissingDirectory {
        /// The flag the path came from.
        flag: String,
        /// The path given.
        path: PathBuf,
        /// Its directory (`.` for a bare file name).
        dir: PathBuf,
    },
    /// No file can be created in the directory (permissions, a read-only file
    /// system, `/proc`).
    #[error(
        "{flag} {}: cannot create files in {}: {error}: give a writable directory",
        path.display(),
        dir.display()
    )]
    NotWritable {
        /// The flag the path came from.
        flag: String,
        /// The path given.
        path: PathBuf,
        /// Its directory.
        dir: PathBuf,
        /// The operating system's error (without the temporary file's name,
        /// which tempfile's error gives instead of the path given).
        error: io::Error,
    },
    /// Writing, syncing or renaming the file failed (disk full, I/O error).
    #[error("{flag} {}: cannot write the file: {error}", path.display())]
    Write {
        /// The flag the path came from.
        flag: String,
        /// The path given.
        path: PathBuf,
        /// The operating system's error.
        error: io::Error,
    },
}

/// The directory an output file `path` goes in (`.` for a bare file name),
/// checked: it exists, and `path` itself is not a directory.
///
/// # Errors
/// [`OutputError::IsDirectory`], [`OutputError::MissingDirectory`], naming `flag`.
pub fn output_dir<'a>(path: &'a Path, flag: &str) -> Result<&'a Path, OutputError> {
    if path.is_dir() {
        return Err(OutputError::IsDirectory {
            flag: flag.to_string(),
            path: path.to_path_buf(),
        });
    }
    if let Some(kind) = special_kind(path) {
        return Err(OutputError::NotAFile {
            flag: flag.to_string(),
            path: path.to_path_buf(),
            kind,
        });
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."));
    if !dir.is_dir() {
        return Err(OutputError::MissingDirectory {
            flag: flag.to_string(),
            path: path.to_path_buf(),
            dir: dir.to_path_buf(),
        });
    }
    Ok(dir)
}

/// What `path` (followed if a link) is when it exists and is neither a regular
/// file nor a directory.
fn special_kind(path: &Path) -> Option<&'static str> {
    let t = std::fs::metadata(path).ok()?.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if t.is_char_device() {
            return Some("character device");
        }
        if t.is_block_device() {
            return Some("block device");
        }
        if t.is_fifo() {
            return Some("FIFO");
        }
        if t.is_socket() {
            return Some("socket");
        }
    }
    (!t.is_file() && !t.is_dir()).then_some("special file")
}

/// `path`, or the file it names when it is a symbolic link (followed link by
/// link, at most 40 as the kernel does, whether the file exists yet or not):
/// the rename then writes that file, and the link stays.
fn followed(path: &Path) -> PathBuf {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&p) {
            Ok(target) => {
                p = match p.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            Err(_) => break,
        }
    }
    p
}

/// Checks, before a run, that `path` can later be written by
/// [`write_atomically`]: not a directory, in an existing directory where files
/// can be created. Creates and removes one temporary file; leaves nothing
/// behind, and does not touch `path`.
///
/// # Errors
/// [`OutputError::IsDirectory`], [`OutputError::MissingDirectory`] or
/// [`OutputError::NotWritable`], naming `flag` (e.g. `--out`).
pub fn check_writable(path: &Path, flag: &str) -> Result<(), OutputError> {
    output_dir(path, flag)?;
    let target = followed(path);
    let dir = output_dir(&target, flag)?;
    tempfile::NamedTempFile::new_in(dir)
        .map(drop)
        .map_err(|e| not_writable(flag, path, dir, &e))
}

/// [`OutputError::NotWritable`] for a temporary file that could not be created.
fn not_writable(flag: &str, path: &Path, dir: &Path, e: &io::Error) -> OutputError {
    OutputError::NotWritable {
        flag: flag.to_string(),
        path: path.to_path_buf(),
        dir: dir.to_path_buf(),
        error: os_error(e),
    }
}

/// `e` without the temporary file's name that tempfile appends to it
/// (`No such file or directory (os error 2) at path "/proc/.tmpXXXX"`): the
/// message names the path given instead.
fn os_error(e: &io::Error) -> io::Error {
    let text = e.to_string();
    match text.split_once(" at path ") {
        Some((os, _)) => io::Error::new(e.kind(), os.to_string()),
        None => io::Error::new(e.kind(), text),
    }
}

/// Writes `bytes` to `path` atomically: a temporary file in the same directory
/// (so the rename cannot cross file systems), written, fsynced, then renamed
/// over `path`. A reader sees the old file or the whole new one, never part of
/// it, and a failed write leaves no temporary file behind. The file gets the
/// mode of any new file (0666 minus the umask), not the temporary file's 0600.
///
/// `flag` is the flag the path came from (e.g. `--out`), named in errors.
///
/// # Errors
/// [`OutputError::IsDirectory`], [`OutputError::MissingDirectory`],
/// [`OutputError::NotWritable`] (the temporary file cannot be created) or
/// [`OutputError::Write`].
pub fn write_atomically(path: &Path, bytes: &[u8], flag: &str) -> Result<(), OutputError> {
    output_dir(path, flag)?;
    let target = followed(path);
    let dir = output_dir(&target, flag)?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".encbench-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder
        .tempfile_in(dir)
        .map_err(|e| not_writable(flag, path, dir, &e))?;
    let write = |error| OutputError::Write {
        flag: flag.to_string(),
        path: path.to_path_buf(),
        error,
    };
    tmp.write_all(bytes).map_err(write)?;
    tmp.as_file().sync_all().map_err(write)?;
    tmp.persist(&target).map_err(|e| write(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .expect("read dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn writes_and_overwrites_whole_files_leaving_no_temporary_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("r.json");
        write_atomically(&path, b"{}", "--out").expect("write");
        write_atomically(&path, b"{\"again\": 1}", "--out").expect("overwrite");
        assert_eq!(std::fs::read(&path).expect("read"), b"{\"again\": 1}");
        assert_eq!(entries(dir.path()), ["r.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn files_get_the_mode_of_any_new_file_not_0600() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let reference = dir.path().join("reference");
        std::fs::write(&reference, b"").expect("write");
        let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
        let path = dir.path().join("r.csv");
        write_atomically(&path, b"a,b\n", "--out").expect("write");
        assert_eq!(mode(&path), mode(&reference), "0666 minus the umask");
    }

    #[test]
    fn a_missing_directory_is_named_and_not_created() {
        let dir = tempfile::tempdir().expect("tempdir");
        let missing = dir.path().join("no/such");
        let path = missing.join("r.json");
        for e in [
            write_atomically(&path, b"", "--out").expect_err("missing directory"),
            check_writable(&path, "--out").expect_err("missing directory"),
        ] {
            assert!(matches!(e, OutputError::MissingDirectory { .. }), "{e:?}");
            let msg = e.to_string();
            assert!(
                msg.starts_with(&format!("--out {}:", path.display()))
                    && msg.contains(&format!("directory {} does not exist", missing.display()))
                    && msg.contains("create it first"),
                "{msg}"
            );
        }
        assert!(!dir.path().join("no").exists());
    }

    #[test]
    fn a_directory_is_not_a_file_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        let e = check_writable(dir.path(), "--svg").expect_err("a directory");
        assert!(matches!(e, OutputError::IsDirectory { .. }), "{e:?}");
        assert!(e.to_string().starts_with("--svg "), "{e}");
        assert!(e.to_string().contains("give a file name"), "{e}");
        let e = write_atomically(dir.path(), b"x", "--svg").expect_err("a directory");
        assert!(matches!(e, OutputError::IsDirectory { .. }), "{e:?}");
        assert!(dir.path().is_dir());
    }

    /// As root the rename replaced `/dev/null` (or `/dev/full`) itself with a
    /// regular file; a FIFO the same. Both are refused and stay what they are.
    #[cfg(unix)]
    #[test]
    fn a_device_or_fifo_is_refused_and_left_alone() {
        use std::os::unix::fs::FileTypeExt as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600))
            .expect("mkfifo");
        for (path, kind) in [
            (Path::new("/dev/null"), "character device"),
            (&fifo, "FIFO"),
        ] {
            for e in [
                check_writable(path, "--json-out").expect_err("special"),
                write_atomically(path, b"{}", "--json-out").expect_err("special"),
            ] {
                assert!(matches!(e, OutputError::NotAFile { .. }), "{e:?}");
                assert_eq!(
                    e.to_string(),
                    format!(
                        "--json-out {}: is a {kind}, not a regular file: give the path of a file to write (it is replaced whole)",
                        path.display()
                    )
                );
            }
        }
        assert!(
            std::fs::metadata("/dev/null")
                .expect("stat")
                .file_type()
                .is_char_device()
        );
        assert!(
            std::fs::metadata(&fifo)
                .expect("stat")
                .file_type()
                .is_fifo()
        );
        assert_eq!(entries(dir.path()), ["fifo"]);
    }

    /// A link to a report is followed: the file it names gets the new report,
    /// and the link stays a link.
    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_followed_not_replaced() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("2026-12-07.json");
        std::fs::write(&file, b"old").expect("write");
        let link = dir.path().join("latest.json");
        std::os::unix::fs::symlink(&file, &link).expect("symlink");
        check_writable(&link, "--out").expect("writable");
        write_atomically(&link, b"new", "--out").expect("write");
        assert!(
            std::fs::symlink_metadata(&link)
                .expect("lstat")
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&file).expect("read"), b"new");
        assert_eq!(entries(dir.path()), ["2026-12-07.json", "latest.json"]);
        // A link to a file not written yet (relative, as `ln -s name link`
        // makes): the file is created, the link stays.
        let dangling = dir.path().join("next.json");
        std::os::unix::fs::symlink("2026-12-08.json", &dangling).expect("symlink");
        write_atomically(&dangling, b"next", "--out").expect("write");
        assert!(
            std::fs::symlink_metadata(&dangling)
                .expect("lstat")
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            std::fs::read(dir.path().join("2026-12-08.json")).expect("read"),
            b"next"
        );
    }

    #[test]
    fn check_writable_leaves_nothing_behind() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("r.json");
        check_writable(&path, "--out").expect("writable");
        assert!(entries(dir.path()).is_empty());
        // A bare file name goes in the current directory.
        assert_eq!(
            output_dir(Path::new("r.json"), "--out").expect("cwd"),
            Path::new(".")
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn an_unwritable_directory_names_the_flag_and_the_fix() {
        // /proc: exists, is a directory, and no regular file can be created in
        // it, even by root.
        let path = Path::new("/proc/encbench-report.json");
        let e = check_writable(path, "--json-out").expect_err("/proc is not writable");
        assert!(matches!(e, OutputError::NotWritable { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(msg.contains("(os error "), "the OS error: {msg}");
        assert!(
            msg.starts_with("--json-out /proc/encbench-report.json: cannot create files in /proc")
                && msg.ends_with("give a writable directory")
                && !msg.contains(".tmp"),
            "{msg}"
        );
        let e = write_atomically(path, b"{}", "--json-out").expect_err("not writable");
        assert!(matches!(e, OutputError::NotWritable { .. }), "{e:?}");
    }
}
