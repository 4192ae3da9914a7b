//! The benchmark user's password of a private server, MariaDB's and PostgreSQL's alike:
//! [`PASSWORD_LEN`] alphanumeric characters from the operating system's RNG, in a file of
//! mode 0600 beside the data (`<dir>/password`), written at initialisation and read at
//! every start (the MariaDB one used to be a fixed string).
//! Alphanumeric: nothing to escape in a URL, in SQL or on a command line.

use std::fs::{self, OpenOptions};
use std::io::{self, Write as _};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

use rand::distr::Alphanumeric;
use rand::rngs::OsRng;
use rand::{Rng as _, TryRngCore as _};

/// Length of a generated password: 32 characters of 62, ~190 bits.
pub(crate) const PASSWORD_LEN: usize = 32;

/// A new password from the OS RNG (`getrandom(2)`).
///
/// # Panics
/// When the OS RNG fails (it does not on Linux once booted; `rand` panics too).
pub(crate) fn generate() -> String {
    OsRng
        .unwrap_err()
        .sample_iter(&Alphanumeric)
        .take(PASSWORD_LEN)
        .map(char::from)
        .collect()
}

/// Writes `password` and a newline to a new file `path` of mode 0600 (an older file there
/// is removed first, so the mode is never an old one's).
///
/// # Errors
/// The OS error of removing, creating or writing the file.
pub(crate) fn write(path: &Path, password: &str) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(format!("{password}\n").as_bytes())?;
    f.sync_all()
}

/// The password in `path`, if the file holds one (surrounding whitespace dropped).
pub(crate) fn read(path: &Path) -> Option<String> {
    let p = fs::read_to_string(path).ok()?;
    let p = p.trim();
    (!p.is_empty()).then(|| p.to_string())
}

/// `text` with every occurrence of `password` replaced by `<password>`.
pub(crate) fn redact(text: &str, password: &str) -> String {
    if password.is_empty() {
        return text.to_string();
    }
    text.replace(password, "<password>")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    #[test]
    fn a_password_is_alphanumeric_of_its_length_and_new_each_time() {
        let (a, b) = (generate(), generate());
        assert_eq!(a.len(), PASSWORD_LEN);
        assert!(a.bytes().all(|c| c.is_ascii_alphanumeric()), "{a}");
        // 2^-190: two equal draws mean the generator is broken, not bad luck.
        assert_ne!(a, b);
    }

    #[test]
    fn written_0600_and_read_back_replacing_an_older_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("password");
        fs::write(&path, "old\n").expect("old file");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).expect("chmod");
        write(&path, "Secret123").expect("write");
        let mode = fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(read(&path).as_deref(), Some("Secret123"));
        fs::write(&path, " \n").expect("blank");
        assert_eq!(read(&path), None);
        assert_eq!(read(&dir.path().join("none")), None);
    }

    #[test]
    fn redact_hides_every_occurrence() {
        assert_eq!(redact("a pw b pw", "pw"), "a <password> b <password>");
        assert_eq!(redact("text", ""), "text");
    }
}
