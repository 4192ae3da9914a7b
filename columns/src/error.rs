//! The errors of the column codec: one variant per failure, each a one-line
//! message naming the flag, file or value at fault and, where there is one,
//! the fix ([`Error::what`] and [`Error::fix`] apart; `Display` joins them).
//! Messages name files, lines, key ids and lengths, never key material.

use std::fmt;
use std::path::PathBuf;

use encbench_crypto::envelope::EnvelopeError;
use encbench_crypto::{Algorithm, KeyId};

use crate::Column;

/// What a key file holds, in the messages about it.
pub(crate) const KEY_FILE: &str = "a key file of ID;HEX lines (--key-file)";

/// A failure of the column codec: parsing the column layout or the algorithm,
/// reading, parsing or writing a key file, or setting the keys up.
///
/// `Display` is the one-line message (`what`, then the fix where there is
/// one); the underlying error, where there is one (I/O, a number that does
/// not parse, the error under an `--encrypt` choice), is the `source`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `--encrypt-columns id`: `id` is the primary key the AAD binds values to.
    IdStaysPlaintext,
    /// A name in `--encrypt-columns` or `--deterministic` that is not a column
    /// (or `all`, or `none` for `--deterministic`).
    UnknownColumn {
        /// `--encrypt-columns` or `--deterministic`.
        flag: &'static str,
        /// The name as given (lowercased, trimmed).
        name: String,
    },
    /// `--encrypt-columns` names no column.
    NoColumn,
    /// A `--deterministic` column that `--encrypt-columns` leaves plaintext.
    NotEncrypted {
        /// The column.
        column: Column,
        /// The `--encrypt-columns` list that would encrypt it, e.g. `k,c`.
        encrypt_columns: String,
    },
    /// Deterministic columns with an algorithm that has no deterministic form.
    NoDeterministicForm {
        /// `BACKEND:ALGORITHM`.
        algorithm: String,
        /// The names that have one, comma separated.
        choices: String,
    },
    /// A codec given deterministic columns but no deterministic cipher (a
    /// caller's mistake: [`crate::keys::load_codec`] builds both).
    NoDeterministicCipher,
    /// `--encrypt` names no compiled-in `BACKEND:ALGORITHM`.
    UnknownEncrypt {
        /// The registry's message (lists the valid names).
        reason: encbench_registry::RegistryError,
    },
    /// The key file cannot be read: missing, not a regular file, too large.
    KeyFileUnreadable {
        /// The reading error (names the flag, the file and what to give).
        reason: encbench_common::files::FileError,
    },
    /// The key file is not UTF-8 text.
    KeyFileNotText {
        /// The key file.
        path: PathBuf,
    },
    /// A key file line without the `;` of `ID;HEX`.
    KeyLineForm {
        /// The key file, as named in messages.
        file: String,
        /// Line number, from 1.
        line: usize,
    },
    /// A key id of more than 10 characters: likely a key written first
    /// (`HEX;ID`); the text is not echoed.
    KeyIdTooLong {
        /// The key file, as named in messages.
        file: String,
        /// Line number, from 1.
        line: usize,
        /// Characters in the id text.
        chars: usize,
    },
    /// A key id that is not a number `0..=4294967295`.
    KeyIdNotNumber {
        /// The key file, as named in messages.
        file: String,
        /// Line number, from 1.
        line: usize,
        /// The id text (at most 10 characters).
        id: String,
        /// Why it does not parse.
        source: std::num::ParseIntError,
    },
    /// A key that is not hexadecimal.
    KeyHex {
        /// The key file, as named in messages.
        file: String,
        /// Line number, from 1.
        line: usize,
    },
    /// A key of the wrong length for the algorithm.
    KeySize {
        /// The key file, as named in messages.
        file: String,
        /// Line number, from 1.
        line: usize,
        /// The key's id.
        id: KeyId,
        /// Its length, bytes.
        len: usize,
        /// The algorithm it is for.
        algorithm: Algorithm,
    },
    /// The same key id on two lines.
    DuplicateKeyId {
        /// The key file, as named in messages.
        file: String,
        /// Line number of the second one, from 1.
        line: usize,
        /// The key id.
        id: KeyId,
    },
    /// A key file (or a list of keys) without a key.
    NoKey {
        /// The key file, as named in messages.
        file: String,
    },
    /// The key file holds keys but group or others may read it.
    KeyFileOpen {
        /// The message (the file, its mode and the `chmod` to run).
        reason: encbench_crypto::Error,
    },
    /// `--key-file` names a file that does not exist.
    KeyFileMissing {
        /// The path given.
        path: PathBuf,
    },
    /// The default key file (no `--key-file`) does not exist.
    DefaultKeyFileMissing {
        /// `<base>/keys/<algorithm>.keys`.
        path: PathBuf,
        /// The `--encrypt` choice, `BACKEND:ALGORITHM`.
        encrypt: String,
    },
    /// A directory of a new key file cannot be created.
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A new key file cannot be written.
    WriteKeyFile {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Drawing a key, or setting a key up in its backend, failed.
    Crypto(encbench_crypto::Error),
    /// A deterministic form looked up in the registry is not there.
    Registry(encbench_registry::RegistryError),
    /// A table or column name does not fit the envelope's AAD.
    Envelope(EnvelopeError),
    /// The error under an `--encrypt` choice (its keys or its cipher).
    Encrypt {
        /// The `--encrypt` choice, `BACKEND:ALGORITHM`.
        encrypt: String,
        /// What failed.
        source: Box<Error>,
    },
}

impl Error {
    /// What went wrong, without the fix: e.g. `--encrypt-columns "x": unknown column`.
    pub fn what(&self) -> String {
        self.parts().0
    }

    /// What to do about it, when the message says (e.g. `choose from k, c, pad,
    /// all`); `None` when it does not, or when a wrapped library's text holds it.
    pub fn fix(&self) -> Option<String> {
        self.parts().1.map(|(_, fix)| fix)
    }

    /// The message in two parts: what, and the separator and fix.
    fn parts(&self) -> (String, Option<(&'static str, String)>) {
        let line = |file: &str, line: &usize| format!("{file} line {line}");
        match self {
            Error::IdStaysPlaintext => (
                "--encrypt-columns id: id stays plaintext (it is the primary key the AAD binds values to)".into(),
                Some(("; ", "choose from k, c, pad, all".into())),
            ),
            Error::UnknownColumn { flag, name } => (
                format!("{flag} {name:?}: unknown column"),
                Some((
                    "; ",
                    if *flag == "--deterministic" {
                        "choose from k, c, pad, all, none".into()
                    } else {
                        "choose from k, c, pad, all".into()
                    },
                )),
            ),
            Error::NoColumn => (
                "--encrypt-columns is empty".into(),
                Some((": ", "give k, c, pad or all (default c,pad)".into())),
            ),
            Error::NotEncrypted {
                column,
                encrypt_columns,
            } => (
                format!("--deterministic {column}: {column} is not encrypted"),
                Some((
                    "; ",
                    format!("add it to --encrypt-columns (--encrypt-columns {encrypt_columns})"),
                )),
            ),
            Error::NoDeterministicForm { algorithm, choices } => (
                format!(
                    "--deterministic needs an algorithm with a deterministic form, and {algorithm} has none"
                ),
                Some((": ", format!("use one of {choices}"))),
            ),
            Error::NoDeterministicCipher => (
                "deterministic columns need a deterministic cipher".into(),
                None,
            ),
            Error::UnknownEncrypt { reason } => (format!("--encrypt: {reason} (or none)"), None),
            Error::KeyFileUnreadable { reason } => {
                let text = reason.to_string();
                let give = format!(": give {KEY_FILE}");
                match text.strip_suffix(&give) {
                    Some(what) => (what.to_string(), Some((": ", format!("give {KEY_FILE}")))),
                    None => (text, None),
                }
            }
            Error::KeyFileNotText { path } => (
                format!("key file {} is not UTF-8 text", path.display()),
                Some((": ", format!("give {KEY_FILE}"))),
            ),
            Error::KeyLineForm { file, line: n } => (
                format!("{}: expected ID;HEX (e.g. 1;00ff...)", line(file, n)),
                None,
            ),
            Error::KeyIdTooLong {
                file,
                line: n,
                chars,
            } => (
                format!(
                    "{}: the key id ({chars} characters) is not a number 0..=4294967295",
                    line(file, n)
                ),
                Some((": ", "the form is ID;HEX, id first".into())),
            ),
            Error::KeyIdNotNumber {
                file, line: n, id, ..
            } => (
                format!(
                    "{}: key id {id:?} is not a number 0..=4294967295",
                    line(file, n)
                ),
                None,
            ),
            Error::KeyHex { file, line: n } => (
                format!("{}: key is not valid hex", line(file, n)),
                Some((": ", "give 2 hex digits per key byte".into())),
            ),
            Error::KeySize {
                file,
                line: n,
                id,
                len,
                algorithm,
            } => (
                format!(
                    "{}: key id {id} is {len} bytes, {algorithm} needs {}",
                    line(file, n),
                    algorithm.key_len()
                ),
                Some((
                    ": ",
                    format!("generate one with `openssl rand -hex {}`", algorithm.key_len()),
                )),
            ),
            Error::DuplicateKeyId { file, line: n, id } => (
                format!("{}: key id {id} appears twice", line(file, n)),
                None,
            ),
            Error::NoKey { file } => (
                format!("key file {file} holds no key"),
                Some((": ", "add a line ID;HEX".into())),
            ),
            Error::KeyFileOpen { reason } => (reason.to_string(), None),
            Error::KeyFileMissing { path } => (
                format!("--key-file {} not found", path.display()),
                Some((": ", "give the key file the tables were prepared with".into())),
            ),
            Error::DefaultKeyFileMissing { path, encrypt } => (
                format!("key file {} not found", path.display()),
                Some((
                    ": ",
                    format!(
                        "pass --key-file with the key file the tables were prepared with (or --base-dir where prepare created it); new tables: `oltp prepare --encrypt {encrypt}` creates one"
                    ),
                )),
            ),
            Error::CreateDir { path, .. } => (format!("cannot create {}", path.display()), None),
            Error::WriteKeyFile { path, .. } => {
                (format!("cannot write key file {}", path.display()), None)
            }
            Error::Crypto(e) => (e.to_string(), None),
            Error::Registry(e) => (e.to_string(), None),
            Error::Envelope(e) => (e.to_string(), None),
            Error::Encrypt { encrypt, .. } => (format!("--encrypt {encrypt}"), None),
        }
    }

    /// `self` under the `--encrypt` choice `encrypt`.
    pub(crate) fn under(self, encrypt: String) -> Error {
        Error::Encrypt {
            encrypt,
            source: Box::new(self),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, fix) = self.parts();
        f.write_str(&what)?;
        if let Some((separator, fix)) = fix {
            f.write_str(separator)?;
            f.write_str(&fix)?;
        }
        Ok(())
    }
}

impl From<encbench_crypto::Error> for Error {
    fn from(e: encbench_crypto::Error) -> Error {
        Error::Crypto(e)
    }
}

impl From<encbench_registry::RegistryError> for Error {
    fn from(e: encbench_registry::RegistryError) -> Error {
        Error::Registry(e)
    }
}

impl From<EnvelopeError> for Error {
    fn from(e: EnvelopeError) -> Error {
        Error::Envelope(e)
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;
    use crate::Columns;
    use crate::keys::parse_key_file;

    /// `Display` is `what`, then the fix where there is one, joined as the
    /// messages always were.
    #[test]
    fn the_message_is_what_then_the_fix() {
        let e = Columns::parse(&["x".into()], &[]).expect_err("unknown");
        assert_eq!(e.what(), "--encrypt-columns \"x\": unknown column");
        assert_eq!(e.fix().as_deref(), Some("choose from k, c, pad, all"));
        assert_eq!(
            e.to_string(),
            "--encrypt-columns \"x\": unknown column; choose from k, c, pad, all"
        );
        let e = Columns::parse(&["k".into()], &["c".into()]).expect_err("not encrypted");
        assert_eq!(
            e.to_string(),
            "--deterministic c: c is not encrypted; add it to --encrypt-columns (--encrypt-columns k,c)"
        );
        let e = parse_key_file("1;00ff\n", "k.keys", Algorithm::Aes256Gcm).expect_err("short");
        assert_eq!(
            e.what(),
            "k.keys line 1: key id 1 is 2 bytes, aes-256-gcm needs 32"
        );
        assert_eq!(
            e.fix().as_deref(),
            Some("generate one with `openssl rand -hex 32`")
        );
        let e = Error::NoDeterministicCipher;
        assert_eq!(e.what(), e.to_string());
        assert_eq!(e.fix(), None);
    }

    /// The cause stays the source, so a caller printing the chain (anyhow's
    /// `{:#}`, `error_line`) shows what it did before, each part once.
    #[test]
    fn causes_are_sources_and_not_repeated() {
        let e = parse_key_file("x1;00\n", "k.keys", Algorithm::Aes256Gcm).expect_err("bad id");
        assert_eq!(
            e.to_string(),
            "k.keys line 1: key id \"x1\" is not a number 0..=4294967295"
        );
        let source = e.source().expect("the parse error");
        assert!(source.downcast_ref::<std::num::ParseIntError>().is_some());
        let under = e.under("ring:aes-256-gcm".into());
        assert_eq!(under.to_string(), "--encrypt ring:aes-256-gcm");
        assert!(
            under
                .source()
                .expect("the key file's error")
                .to_string()
                .starts_with("k.keys line 1:")
        );
        let e = parse_key_file("1;zz\n", "k.keys", Algorithm::Aes256Gcm).expect_err("hex");
        assert_eq!(
            e.to_string(),
            "k.keys line 1: key is not valid hex: give 2 hex digits per key byte"
        );
        assert!(e.source().is_none(), "the hex error is in the message");
    }

    /// Key hygiene: neither `Display` nor `Debug` holds key text, whichever
    /// side of the `;` a key sits on.
    #[test]
    fn no_message_holds_a_key() {
        let hex = "00112233445566778899aabbccddeeff0011223344556677";
        for text in [
            format!("1;{hex}\n"),
            format!("{hex};1\n"),
            format!("{hex}\n"),
            format!("1;{hex}zz\n"),
        ] {
            let e = parse_key_file(&text, "k.keys", Algorithm::Aes256Gcm).expect_err("refused");
            for shown in [e.to_string(), format!("{e:?}")] {
                assert!(!shown.contains(&hex[..12]), "{shown}");
            }
        }
    }
}
