//! Key files in MariaDB's `file_key_management` format: one key per line,
//! `ID;HEX` (e.g. `1;` and 64 hex digits for a 32-byte key), `#` comments. The
//! key with the highest id is the active one (rotation appends a higher id);
//! values sealed under older ids still open.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use encbench_crypto::envelope::{ColumnCipher, DeterministicColumnCipher};

use super::{Codec, Columns, Encrypt, Error, Result};
use crate::error::KEY_FILE;
use encbench_crypto::{Algorithm, Descriptor, Key, KeyId, Keyring};

/// The default key file for `algorithm` under `base_dir`: `<base>/keys/<algorithm>.keys`.
pub fn default_key_file(base_dir: &Path, algorithm: Algorithm) -> PathBuf {
    base_dir
        .join("keys")
        .join(format!("{}.keys", algorithm.name()))
}

/// Reads a key file (`ID;HEX` lines) and returns `(id, key)` pairs sorted by id.
/// At most [`MAX_KEY_FILE`](encbench_common::files::MAX_KEY_FILE) bytes are read,
/// of a regular file only ([`read_capped`](encbench_common::files::read_capped));
/// the bytes read are zeroized when dropped.
///
/// # Errors
/// [`Error::KeyFileUnreadable`] (unreadable, not a regular file: a FIFO, a
/// device, a directory; larger than the cap), [`Error::KeyFileNotText`]; the
/// errors of [`parse_key_file`] (all checked first); then
/// [`Error::KeyFileOpen`]: a file of keys open to group or others (the `chmod`
/// to run).
pub fn read_key_file(path: &Path, algorithm: Algorithm) -> Result<Vec<(KeyId, Key)>> {
    use encbench_common::files::{MAX_KEY_FILE, read_capped};
    let bytes = zeroize::Zeroizing::new(
        read_capped(path, MAX_KEY_FILE, KEY_FILE, "key file")
            .map_err(|reason| Error::KeyFileUnreadable { reason })?,
    );
    let text = std::str::from_utf8(&bytes).map_err(|_| Error::KeyFileNotText {
        path: path.to_path_buf(),
    })?;
    let keys = parse_key_file(text, &path.display().to_string(), algorithm)?;
    encbench_crypto::check_private_file(path).map_err(|reason| Error::KeyFileOpen { reason })?;
    Ok(keys)
}

/// Parses the text of a key file (`ID;HEX` lines, `#` comments, blank lines
/// ignored): the parsing entry point of [`read_key_file`], also fuzzed
/// (`fuzz/fuzz_targets/key_file.rs`). `source` names the file in errors.
/// Returns `(id, key)` pairs sorted by id.
///
/// # Errors
/// The line's error, naming `source` and the line number:
/// [`Error::KeyLineForm`] (no `;`), [`Error::KeyIdTooLong`] or
/// [`Error::KeyIdNotNumber`], [`Error::KeyHex`], [`Error::KeySize`] (wrong
/// length for `algorithm`), [`Error::DuplicateKeyId`]; [`Error::NoKey`]. No
/// error message holds key text.
pub fn parse_key_file(text: &str, source: &str, algorithm: Algorithm) -> Result<Vec<(KeyId, Key)>> {
    let mut keys: Vec<(KeyId, Key)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (file, line_no) = (source, n + 1);
        let (id, hex) = line.split_once(';').ok_or_else(|| Error::KeyLineForm {
            file: file.to_string(),
            line: line_no,
        })?;
        let id_text = id.trim();
        let id: KeyId = id_text.parse().map_err(|e| {
            // A key id has at most 10 digits: longer text is not echoed, it
            // may be a key written first (HEX;ID), found by fuzz/fuzz_targets/key_file.rs.
            let chars = id_text.chars().count();
            if chars > 10 {
                Error::KeyIdTooLong {
                    file: file.to_string(),
                    line: line_no,
                    chars,
                }
            } else {
                Error::KeyIdNotNumber {
                    file: file.to_string(),
                    line: line_no,
                    id: id_text.to_string(),
                    source: e,
                }
            }
        })?;
        // `Key::from_hex` fails only for text that is not hex.
        let key = Key::from_hex(hex).map_err(|_| Error::KeyHex {
            file: file.to_string(),
            line: line_no,
        })?;
        if key.len() != algorithm.key_len() {
            return Err(Error::KeySize {
                file: file.to_string(),
                line: line_no,
                id,
                len: key.len(),
                algorithm,
            });
        }
        if keys.iter().any(|(k, _)| *k == id) {
            return Err(Error::DuplicateKeyId {
                file: file.to_string(),
                line: line_no,
                id,
            });
        }
        keys.push((id, key));
    }
    if keys.is_empty() {
        return Err(Error::NoKey {
            file: source.to_string(),
        });
    }
    keys.sort_by_key(|(id, _)| *id);
    Ok(keys)
}

/// Writes a new key file with one fresh random key, id 1, readable by the
/// owner only (0600); directories it creates are 0700.
///
/// # Errors
/// [`Error::CreateDir`], [`Error::WriteKeyFile`] (the file cannot be
/// written), [`Error::Crypto`] (the OS random number generator failed).
pub fn create_key_file(path: &Path, algorithm: Algorithm) -> Result<()> {
    if let Some(dir) = path.parent() {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|source| Error::CreateDir {
                path: dir.to_path_buf(),
                source,
            })?;
    }
    let key = Key::generate(algorithm.key_len())?;
    let tmp = path.with_extension("tmp");
    let write = |source| Error::WriteKeyFile {
        path: tmp.clone(),
        source,
    };
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(write)?;
        writeln!(
            f,
            "# {algorithm} column keys for encbench oltp: ID;HEX, highest id is active"
        )
        .map_err(write)?;
        writeln!(f, "1;{}", key.to_hex().as_str()).map_err(write)?;
        f.sync_all().map_err(write)?;
    }
    std::fs::rename(&tmp, path).map_err(|source| Error::WriteKeyFile {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(())
}

/// Builds the column cipher for `descriptor` from the keys in `path`; the
/// highest key id is active.
///
/// # Errors
/// As [`read_key_file`] and [`cipher_from_keys`].
pub fn cipher_from_key_file(descriptor: &'static Descriptor, path: &Path) -> Result<ColumnCipher> {
    let keys = read_key_file(path, descriptor.algorithm)?;
    cipher_from_keys(descriptor, &keys, &path.display().to_string())
}

/// Builds the column cipher for `descriptor` from `(id, key)` pairs sorted by
/// id (as [`read_key_file`] returns them): every key set up once in the
/// backend, the last (highest) id active. What a key file becomes, and what
/// column-bench builds from its generated key.
///
/// # Errors
/// [`Error::NoKey`] (naming `source`) for an empty list; [`Error::Crypto`] when
/// the backend rejects a key.
pub fn cipher_from_keys(
    descriptor: &'static Descriptor,
    keys: &[(KeyId, Key)],
    source: &str,
) -> Result<ColumnCipher> {
    let mut iter = keys.iter();
    let Some((first_id, first)) = iter.next() else {
        return Err(Error::NoKey {
            file: source.to_string(),
        });
    };
    let mut ring = Keyring::new(descriptor, *first_id, first)?;
    for (id, key) in iter {
        ring.insert(descriptor, *id, key)?;
        ring.set_active(*id);
    }
    Ok(ColumnCipher::new(ring))
}

/// Loads the column cipher for `encrypt` from `key_file` or the default key file.
///
/// # Errors
/// [`Error::KeyFileMissing`] or [`Error::DefaultKeyFileMissing`]; the errors
/// of [`cipher_from_key_file`] under [`Error::Encrypt`].
pub fn load_cipher(
    encrypt: Encrypt,
    key_file: Option<&Path>,
    base_dir: &Path,
) -> Result<Option<Arc<ColumnCipher>>> {
    let Encrypt::Aead(d) = encrypt else {
        return Ok(None);
    };
    let path = key_file.map_or_else(
        || default_key_file(base_dir, d.algorithm),
        Path::to_path_buf,
    );
    if !path.exists() {
        if key_file.is_some() {
            return Err(Error::KeyFileMissing { path });
        }
        return Err(Error::DefaultKeyFileMissing {
            path,
            encrypt: encrypt.name(),
        });
    }
    let cipher = cipher_from_key_file(d, &path).map_err(|e| e.under(encrypt.name()))?;
    Ok(Some(Arc::new(cipher)))
}

/// The codec for `encrypt` with column layout `columns`: keys from `key_file`
/// or the default key file; deterministic columns use the same keys through the
/// backend's deterministic form of the algorithm.
///
/// # Errors
/// As [`load_cipher`]; [`Error::NoDeterministicForm`] for deterministic
/// columns on an algorithm without a deterministic form; the errors of
/// [`read_key_file`], or the backend's under [`Error::Encrypt`], for the
/// deterministic cipher.
pub fn load_codec(
    encrypt: Encrypt,
    columns: Columns,
    key_file: Option<&Path>,
    base_dir: &Path,
) -> Result<Codec> {
    let Some(cipher) = load_cipher(encrypt, key_file, base_dir)? else {
        return Ok(Codec::plaintext());
    };
    columns.check(encrypt)?;
    let deterministic = match encrypt {
        Encrypt::Aead(d) if columns.any_deterministic() => {
            let det = encbench_registry::lookup_deterministic(&d.name())?;
            let path = key_file.map_or_else(
                || default_key_file(base_dir, d.algorithm),
                Path::to_path_buf,
            );
            let keys = read_key_file(&path, d.algorithm)?;
            Some(Arc::new(
                DeterministicColumnCipher::new(det, &keys)
                    .map_err(|e| Error::Crypto(e).under(encrypt.name()))?,
            ))
        }
        _ => None,
    };
    Codec::with_columns(cipher, deterministic, columns)
}

/// Key id recorded by `prepare` for a codec: the keyring's active id (0 for
/// plaintext).
pub fn active_key_id(codec: &Codec) -> u32 {
    codec.cipher().map_or(0, |c| c.keyring().active().0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// New-user finding: any file given as `--key-file` (e.g. /etc/passwd) was
    /// told to `chmod 600`, because the mode was checked before the contents.
    #[test]
    fn a_file_open_to_others_is_told_to_chmod_only_when_it_holds_keys() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).expect("write");
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).expect("chmod");
            p
        };
        let not_keys = write("passwd", "root:x:0:0:root:/root:/bin/bash\n");
        let e = format!(
            "{:#}",
            read_key_file(&not_keys, Algorithm::Aes256Gcm).expect_err("no keys")
        );
        assert!(e.contains("expected ID;HEX") && !e.contains("chmod"), "{e}");
        let keys = write("k.keys", &format!("1;{}\n", "ab".repeat(32)));
        let e = format!(
            "{:#}",
            read_key_file(&keys, Algorithm::Aes256Gcm).expect_err("mode 0644")
        );
        assert!(e.contains("chmod 600"), "{e}");
        std::fs::set_permissions(&keys, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        assert_eq!(
            read_key_file(&keys, Algorithm::Aes256Gcm)
                .expect("0600")
                .len(),
            1
        );
    }

    /// Regression (fuzz/regressions/key_file/key-in-id-position): a line with
    /// the key before the `;` printed the key in the error.
    #[test]
    fn a_key_in_the_id_position_is_not_echoed() {
        let hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
        let e = parse_key_file(&format!("{hex};1\n"), "k.keys", Algorithm::Aes256Gcm)
            .expect_err("HEX;ID is refused");
        let text = format!("{e:#}");
        assert!(text.contains("ID;HEX"), "{text}");
        assert!(!text.contains(&hex[..12]), "{text}");
        let e = parse_key_file("x1;00\n", "k.keys", Algorithm::Aes256Gcm).expect_err("bad id");
        assert!(format!("{e:#}").contains("\"x1\""), "{e:#}");
    }
}
