//! Temporary directories, key files and argv helpers.

use std::path::Path;

use tempfile::TempDir;

/// `args` as owned strings.
pub fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// `path` as UTF-8 (every path in these tests is).
///
/// # Panics
/// `path` is not UTF-8.
pub fn utf8(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// A temporary directory a private server can reach when the tests run as root
/// (MariaDB then runs as `mysql`, PostgreSQL as `postgres`): mode 0755 whatever
/// the umask.
///
/// # Panics
/// The directory cannot be made or its mode set.
pub fn server_tempdir() -> TempDir {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
        .expect("chmod tempdir");
    dir
}

/// Writes a key file readable by its owner only (0600), as the tools require.
///
/// # Panics
/// The file cannot be written.
pub fn write_key_file(path: &Path, contents: &str) {
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .expect("create key file");
    std::io::Write::write_all(&mut f, contents.as_bytes()).expect("write key file");
}
