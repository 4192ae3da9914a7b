//! The password of a server URL (`--mysql-url`, `--pgsql-url`, column-bench's
//! `--from-mysql`), kept out of argv: any local user reads a process's
//! command line in `/proc/PID/cmdline`, and callgrind copies it into its output.
//!
//! Where the password comes from, first match wins:
//!
//! 1. the URL's own (`SCHEME://USER:PASS@HOST`), when it has one; a URL with a
//!    password and `--password-file` both is refused ([`Secret::resolve`]: give
//!    one or the other);
//! 2. `--password-file FILE`: the password alone on one line (one trailing
//!    newline dropped), refused unless the file is mode 0600 or 0400 and owned by
//!    the user (or the user is root), as key files are ([`read_password_file`]);
//! 3. the environment: `MYSQL_PWD` for MySQL/MariaDB (the MariaDB client's
//!    variable), `PGPASSWORD` for PostgreSQL (libpq's); an empty value is no password;
//! 4. none: the URL as given.
//!
//! An explicit source beats the environment, as in the MariaDB client and libpq.
//! The password found is put into the URL percent-encoded ([`with_password`]), so
//! the drivers' own URL parsers read it back exactly.
//!
//! [`check_at_signs`] is the one rule of both drivers and column-bench for an `@`:
//! tokio-postgres ends USER:PASS at the first `@` of the text, the `url` crate
//! (mysql_async) at the last `@` of the authority, so `postgres://u:p@ss@host/db`
//! would be read as host `ss@host`, part of the password shown in messages. An `@`
//! (or `/`, `?`, `#`) inside USER:PASS is refused with the fix, which libpq's
//! documentation gives too: percent-encode it.

use std::fmt;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use zeroize::Zeroizing;

/// The one-line fix for an `@`, `/`, `?` or `#` inside USER:PASS ([`check_at_signs`]).
pub const PERCENT_ENCODE: &str = "an @ must appear once, ending USER:PASS before the host: percent-encode @ as %40 in the password (and / ? # as %2F %3F %23)";

/// Longest password file read, bytes: a password is a line, not a file's worth.
pub const MAX_PASSWORD_FILE: u64 = 4096;

/// Where a URL's password may come from besides the URL: `--password-file` and
/// the driver's environment variable.
#[derive(Clone, Default)]
pub struct Secret {
    /// `--password-file`.
    pub file: Option<PathBuf>,
    /// The password found in the environment variable ([`Secret::from_env`]), if set and non-empty.
    env: Option<(&'static str, Zeroizing<String>)>,
}

impl fmt::Debug for Secret {
    /// The file's path and the variable's name, never a password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Secret")
            .field("file", &self.file)
            .field("env", &self.env.as_ref().map(|(name, _)| *name))
            .finish()
    }
}

impl Secret {
    /// `--password-file` (if given) and the variable `var` of this process's
    /// environment (`MYSQL_PWD` or `PGPASSWORD`; unset, empty or not UTF-8 counts as unset).
    pub fn from_env(file: Option<PathBuf>, var: &'static str) -> Secret {
        let env = std::env::var(var)
            .ok()
            .filter(|v| !v.is_empty())
            .map(|v| (var, Zeroizing::new(v)));
        Secret { file, env }
    }

    /// `url` with the password of the first source that has one (module docs):
    /// the URL's own, else the file's, else the environment's, else `url` unchanged.
    /// `flag` names the URL's flag in messages (`--mysql-url`).
    ///
    /// # Errors
    /// One line: a URL with a password and a `--password-file` both; the file's
    /// problems ([`read_password_file`]); `--password-file` without a URL
    /// (`url` is `None`: the private server's password is its own).
    pub fn resolve(&self, url: Option<&str>, flag: &str) -> Result<Option<String>, String> {
        let Some(url) = url else {
            return match &self.file {
                Some(f) => Err(format!(
                    "--password-file {} is the password of a server given by {flag}: give {flag} too, or omit --password-file (the private server's password is read from its own file)",
                    f.display()
                )),
                None => Ok(None),
            };
        };
        if has_password(url) {
            if let Some(f) = &self.file {
                return Err(format!(
                    "{flag} holds a password and --password-file {} gives one too: give one or the other (the file keeps it out of the command line)",
                    f.display()
                ));
            }
            return Ok(Some(url.to_string()));
        }
        if let Some(f) = &self.file {
            let password = read_password_file(f)?;
            return with_password(url, &password, flag).map(Some);
        }
        if let Some((_, password)) = &self.env {
            return with_password(url, password, flag).map(Some);
        }
        Ok(Some(url.to_string()))
    }
}

/// The password in file `path`: its text with one trailing newline (`\n` or
/// `\r\n`) dropped, which must be one non-empty line. The text is read before
/// the mode is checked, so a file that holds no password is named as such, not
/// told to `chmod`. The bytes read are zeroized when dropped.
///
/// # Errors
/// One line naming the file and the fix: it cannot be read, is not a regular
/// file (a FIFO, a device, a directory: [`read_capped`](crate::files::read_capped),
/// which never waits on one), is larger than [`MAX_PASSWORD_FILE`], is empty, holds more than one line or is not UTF-8; it
/// is not owned by this user (root may read any user's file), or its mode is not
/// 0600 or 0400 (`chmod 600 FILE`).
pub fn read_password_file(path: &Path) -> Result<Zeroizing<String>, String> {
    use crate::files::{FileError, read_capped};
    let shown = path.display();
    let read_error = |e: std::io::Error| {
        format!(
            "cannot read --password-file {shown}: {e}; give a readable file holding the password on one line"
        )
    };
    let not_one_line = || {
        format!(
            "--password-file {shown} does not hold a password: give a file holding the password alone on one line (at most {MAX_PASSWORD_FILE} bytes)"
        )
    };
    // A regular file only: a FIFO would block the open, a device never end.
    let bytes = Zeroizing::new(
        read_capped(
            path,
            MAX_PASSWORD_FILE,
            "a readable file holding the password on one line",
            "--password-file",
        )
        .map_err(|e| match e {
            FileError::TooLarge { .. } => not_one_line(),
            other => other.to_string(),
        })?,
    );
    let not_one_line = || {
        format!(
            "--password-file {shown} does not hold a password: give a file holding the password alone on one line (at most {MAX_PASSWORD_FILE} bytes)"
        )
    };
    if bytes.len() as u64 > MAX_PASSWORD_FILE {
        return Err(not_one_line());
    }
    let text = std::str::from_utf8(&bytes).map_err(|_| not_one_line())?;
    let line = text
        .strip_suffix('\n')
        .map(|t| t.strip_suffix('\r').unwrap_or(t))
        .unwrap_or(text);
    if line.is_empty() || line.contains(['\n', '\r']) {
        return Err(not_one_line());
    }
    let password = Zeroizing::new(line.to_string());
    let meta = std::fs::metadata(path).map_err(read_error)?;
    let mode = meta.mode() & 0o7777;
    let euid = nix::unistd::geteuid().as_raw();
    // Root reads a service account's file too: the private server's own password
    // file belongs to `mysql` / `postgres` when root started it.
    if meta.uid() != euid && euid != 0 {
        return Err(format!(
            "--password-file {shown} belongs to another user (uid {}): use a file of your own, mode 0600 (`chmod 600 {shown}`)",
            meta.uid()
        ));
    }
    if mode != 0o600 && mode != 0o400 {
        return Err(format!(
            "--password-file {shown} has mode {mode:04o}, not 0600 or 0400 (a password file is the owner's alone): run `chmod 600 {shown}`"
        ));
    }
    Ok(password)
}

/// The offsets of `url`'s authority (after `://`, up to the first `/`, `?` or
/// `#`), or `None` for text without `://`.
fn authority(url: &str) -> Option<(usize, usize)> {
    let start = url.find("://")? + 3;
    let end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| start + i);
    Some((start, end))
}

/// Checks the rule for `@` of every server URL: in the text after `://`, at most
/// one `@`, and that one inside the authority (so it ends USER:PASS before the
/// host, as tokio-postgres, mysql_async's `url` crate and libpq all read it).
/// Text without `://` passes (the caller refuses it as no URL).
///
/// # Errors
/// [`PERCENT_ENCODE`], in fixed words (nothing of the URL is repeated).
pub fn check_at_signs(url: &str) -> Result<(), &'static str> {
    let Some((start, end)) = authority(url) else {
        return Ok(());
    };
    let rest = &url[start..];
    match rest.matches('@').count() {
        0 => Ok(()),
        1 if url[start..end].contains('@') => Ok(()),
        _ => Err(PERCENT_ENCODE),
    }
}

/// The USER:PASS part of `url` (before the `@` of its authority), if any.
fn userinfo(url: &str) -> Option<(usize, &str)> {
    let (start, end) = authority(url)?;
    let at = url[start..end].rfind('@')?;
    Some((start, &url[start..start + at]))
}

/// Whether `url` spells a password: USER:PASS with PASS not empty.
pub fn has_password(url: &str) -> bool {
    userinfo(url)
        .and_then(|(_, u)| u.split_once(':'))
        .is_some_and(|(_, p)| !p.is_empty())
}

/// `url` (which [`has_password`] says has none) with `password` percent-encoded
/// as its PASS: `SCHEME://USER@HOST...` becomes `SCHEME://USER:PASS@HOST...`, a
/// URL without USER `SCHEME://:PASS@HOST...`.
///
/// # Errors
/// The URL breaks [`check_at_signs`] or has no `SCHEME://` (`flag` names it).
pub fn with_password(url: &str, password: &str, flag: &str) -> Result<String, String> {
    check_at_signs(url).map_err(|e| format!("{flag}: {e}"))?;
    let (start, _) = authority(url).ok_or_else(|| {
        format!("{flag} is not a SCHEME://USER@HOST URL: a password from --password-file or the environment needs one")
    })?;
    let encoded = utf8_percent_encode(password, NON_ALPHANUMERIC).to_string();
    Ok(match userinfo(url) {
        Some((s, info)) => {
            let user = info.split_once(':').map_or(info, |(u, _)| u);
            format!("{}{user}:{encoded}{}", &url[..s], &url[s + info.len()..])
        }
        None => format!("{}:{encoded}@{}", &url[..start], &url[start..]),
    })
}

/// `url` without its password (`SCHEME://USER@HOST...`), for a URL to print
/// (`oltp server start`); text without USER:PASS unchanged.
pub fn without_password(url: &str) -> String {
    match userinfo(url) {
        Some((s, info)) => match info.split_once(':') {
            Some((user, _)) => format!("{}{user}{}", &url[..s], &url[s + info.len()..]),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

/// A server URL as given on the command line (`--mysql-url`, `--pgsql-url`,
/// `--from-mysql`): the text itself (through `Deref` to `str`), whose `Debug` never
/// shows a password: `SCHEME://USER@HOST...` ([`without_password`]) for a URL that
/// passes [`check_at_signs`] and names no `password` parameter, else `(not shown)`.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerUrl(String);

impl ServerUrl {
    /// The URL's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<String> for ServerUrl {
    fn from(s: String) -> ServerUrl {
        ServerUrl(s)
    }
}

impl From<&str> for ServerUrl {
    fn from(s: &str) -> ServerUrl {
        ServerUrl(s.to_string())
    }
}

impl From<ServerUrl> for String {
    fn from(u: ServerUrl) -> String {
        u.0
    }
}

impl std::ops::Deref for ServerUrl {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ServerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let url = &self.0;
        if authority(url).is_some()
            && check_at_signs(url).is_ok()
            && !url.to_ascii_lowercase().contains("password")
        {
            write!(f, "ServerUrl({:?})", without_password(url))
        } else {
            f.write_str("ServerUrl((not shown))")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    const CANARY: &str = "canary-Pw-7f3a9c";

    fn file(dir: &Path, text: &str, mode: u32) -> PathBuf {
        let p = dir.join("pw");
        std::fs::write(&p, text).expect("write");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).expect("chmod");
        p
    }

    #[test]
    fn an_at_inside_user_pass_is_refused_in_fixed_words() {
        for url in [
            "postgres://u:p@ss@host/db",
            "mysql://u:p@ss@host:3306/db",
            "postgres://u:pa/ss@h/db",
            "postgres://h/db?application_name=a@b",
            "mysql://u@h@h",
        ] {
            assert_eq!(check_at_signs(url), Err(PERCENT_ENCODE), "{url}");
        }
        for url in [
            "postgres://u:p%40ss@host/db",
            "mysql://u:p@h:3306/db?x=1",
            "mysql://h:3306",
            "host=h password=x",
            "postgres://[::1]:5432/db",
        ] {
            assert_eq!(check_at_signs(url), Ok(()), "{url}");
        }
    }

    #[test]
    fn a_password_is_put_in_percent_encoded_and_taken_out() {
        let url =
            with_password("postgres://u@h:5432/db", "p@s s/w:d", "--pgsql-url").expect("accepted");
        assert_eq!(url, "postgres://u:p%40s%20s%2Fw%3Ad@h:5432/db");
        assert!(has_password(&url));
        assert_eq!(without_password(&url), "postgres://u@h:5432/db");
        assert_eq!(
            with_password("mysql://h:1", "x", "--mysql-url").expect("accepted"),
            "mysql://:x@h:1"
        );
        assert_eq!(
            with_password("mysql://u:@h:1", "x", "--mysql-url").expect("accepted"),
            "mysql://u:x@h:1"
        );
        assert!(!has_password("mysql://u:@h"));
        assert!(!has_password("mysql://u@h/a:b"));
        let e = with_password("h:1", CANARY, "--mysql-url").expect_err("refused");
        assert!(!e.contains(CANARY), "{e}");
    }

    #[test]
    fn sources_take_their_turn_and_the_url_and_file_together_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = file(dir.path(), &format!("{CANARY}\n"), 0o600);
        let env = Secret {
            file: None,
            env: Some(("MYSQL_PWD", Zeroizing::new("from-env".into()))),
        };
        let both = Secret {
            file: Some(f.clone()),
            ..env.clone()
        };
        let url = "mysql://u@h:1/";
        assert_eq!(
            env.resolve(Some(url), "--mysql-url")
                .expect("accepted")
                .expect("accepted"),
            "mysql://u:from%2Denv@h:1/"
        );
        let got = both
            .resolve(Some(url), "--mysql-url")
            .expect("accepted")
            .expect("accepted");
        assert_eq!(got, format!("mysql://u:{}@h:1/", "canary%2DPw%2D7f3a9c"));
        assert_eq!(
            env.resolve(Some("mysql://u:own@h"), "--mysql-url")
                .expect("accepted")
                .expect("accepted"),
            "mysql://u:own@h",
            "the URL's own password beats the environment"
        );
        let e = both
            .resolve(Some("mysql://u:own@h"), "--mysql-url")
            .expect_err("refused");
        assert!(
            e.contains("give one or the other") && !e.contains("own@"),
            "{e}"
        );
        let e = both.resolve(None, "--mysql-url").expect_err("refused");
        assert!(e.contains("give --mysql-url too"), "{e}");
        assert_eq!(env.resolve(None, "--mysql-url"), Ok(None));
        let debug = format!("{both:?}");
        for url in [
            "mysql://u:canary-Pw-7f3a9c@h",
            "postgres://u:canary@Pw-7f3a9c@h",
            "h password=canary-Pw-7f3a9c",
        ] {
            let d = format!("{:?}", ServerUrl::from(url));
            assert!(!d.contains("canary") && !d.contains("7f3a9c"), "{d}");
        }
        assert!(
            !debug.contains("from-env") && debug.contains("MYSQL_PWD"),
            "{debug}"
        );
    }

    #[test]
    fn a_password_file_is_one_line_of_a_private_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ok = |text: &str, mode: u32| read_password_file(&file(dir.path(), text, mode));
        assert_eq!(
            ok(&format!("{CANARY}\n"), 0o600)
                .expect("accepted")
                .as_str(),
            CANARY
        );
        assert_eq!(
            ok(&format!("{CANARY}\r\n"), 0o400)
                .expect("accepted")
                .as_str(),
            CANARY
        );
        assert_eq!(
            ok(" sp ace ", 0o600).expect("accepted").as_str(),
            " sp ace "
        );
        for (text, want) in [
            ("", "does not hold a password"),
            ("\n", "does not hold a password"),
            ("a\nb\n", "does not hold a password"),
            ("a\n\n", "does not hold a password"),
        ] {
            let e = ok(text, 0o600).expect_err("refused");
            assert!(e.contains(want), "{text:?}: {e}");
        }
        // The contents are checked first: a file that is no password file is
        // named as such, whatever its mode.
        let e = ok("a\nb\n", 0o644).expect_err("refused");
        assert!(e.contains("does not hold a password"), "{e}");
        for mode in [0o644, 0o640, 0o604, 0o700, 0o660] {
            let p = file(dir.path(), &format!("{CANARY}\n"), mode);
            let e = read_password_file(&p).expect_err("refused");
            assert_eq!(
                e,
                format!(
                    "--password-file {0} has mode {mode:04o}, not 0600 or 0400 (a password file is the owner's alone): run `chmod 600 {0}`",
                    p.display()
                )
            );
        }
        let e = read_password_file(&dir.path().join("missing")).expect_err("refused");
        assert!(e.starts_with("cannot read --password-file"), "{e}");
    }

    /// New-user finding: a FIFO as a file to read blocked forever. The read runs
    /// on a thread of its own, so that a blocked open fails the test, not hangs it.
    #[test]
    fn a_password_file_that_is_no_regular_file_is_refused_without_waiting() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
        for (path, kind) in [
            (fifo.clone(), "a FIFO"),
            (PathBuf::from("/dev/zero"), "a character device"),
            (dir.path().to_path_buf(), "a directory"),
        ] {
            let (tx, rx) = std::sync::mpsc::channel();
            let p = path.clone();
            std::thread::spawn(move || tx.send(read_password_file(&p).map(|_| ())));
            let got = rx
                .recv_timeout(std::time::Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("reading {} still blocked after 60 s", path.display()));
            assert_eq!(
                got,
                Err(format!(
                    "--password-file {} is {kind}, not a regular file: give a readable file holding the password on one line",
                    path.display()
                ))
            );
        }
    }
}
