//! Key files in MariaDB's `file_key_management` format: one key per line,
//! `ID;HEX` (e.g. `1;` and 64 hex digits for a 32-byte key), `#` comments. The
//! key with the highest id is the active one (rotation appends a higher id);
//! values sealed under older ids still open.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use encbench_crypto::envelope::{ColumnCipher, DeterministicColumnCipher};

use super::{Codec, Columns, Encrypt};
use encbench_crypto::{Algorithm, Descriptor, Key, KeyId, Keyring};

/// The default key file for `algorithm` under `base_dir`: `<base>/keys/<algorithm>.keys`.
pub fn default_key_file(base_dir: &Path, algorithm: Algorithm) -> PathBuf {
    base_dir
        .join("keys")
        .join(format!("{}.keys", algorithm.name()))
}

/// What a key file holds, in the messages of [`read_key_file`].
const KEY_FILE: &str = "a key file of ID;HEX lines (--key-file)";

/// Reads a key file (`ID;HEX` lines) and returns `(id, key)` pairs sorted by id.
/// At most [`MAX_KEY_FILE`](encbench_common::files::MAX_KEY_FILE) bytes are read,
/// of a regular file only ([`read_capped`](encbench_common::files::read_capped));
/// the bytes read are zeroized when dropped.
///
/// # Errors
/// Unreadable file, not a regular file (a FIFO, a device, a directory), larger
/// than the cap, or not UTF-8; a malformed line (the message gives file and line
/// number), a key of the wrong length for `algorithm`, duplicate ids, or no key
/// at all (all checked first); then a file of keys open to group or others (the
/// `chmod` to run).
pub fn read_key_file(path: &Path, algorithm: Algorithm) -> Result<Vec<(KeyId, Key)>> {
    use encbench_common::files::{MAX_KEY_FILE, read_capped};
    let bytes = zeroize::Zeroizing::new(read_capped(path, MAX_KEY_FILE, KEY_FILE, "key file")?);
    let text = std::str::from_utf8(&bytes).map_err(|_| {
        anyhow::anyhow!(
            "key file {} is not UTF-8 text: give {KEY_FILE}",
            path.display()
        )
    })?;
    let keys = parse_key_file(text, &path.display().to_string(), algorithm)?;
    encbench_crypto::check_private_file(path)?;
    Ok(keys)
}

/// Parses the text of a key file (`ID;HEX` lines, `#` comments, blank lines
/// ignored): the parsing entry point of [`read_key_file`], also fuzzed
/// (`fuzz/fuzz_targets/key_file.rs`). `source` names the file in errors.
/// Returns `(id, key)` pairs sorted by id.
///
/// # Errors
/// As [`read_key_file`], but for reading; no error message holds key text.
pub fn parse_key_file(text: &str, source: &str, algorithm: Algorithm) -> Result<Vec<(KeyId, Key)>> {
    let mut keys: Vec<(KeyId, Key)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let where_ = || format!("{source} line {}", n + 1);
        let (id, hex) = line
            .split_once(';')
            .with_context(|| format!("{}: expected ID;HEX (e.g. 1;00ff...)", where_()))?;
        let id_text = id.trim();
        let id: KeyId = id_text.parse().with_context(|| {
            // A key id has at most 10 digits: longer text is not echoed, it
            // may be a key written first (HEX;ID), found by fuzz/fuzz_targets/key_file.rs.
            if id_text.chars().count() > 10 {
                format!(
                    "{}: the key id ({} characters) is not a number 0..=4294967295: the form is ID;HEX, id first",
                    where_(),
                    id_text.chars().count()
                )
            } else {
                format!(
                    "{}: key id {id_text:?} is not a number 0..=4294967295",
                    where_()
                )
            }
        })?;
        let key = Key::from_hex(hex).map_err(|e| anyhow::anyhow!("{}: {e}", where_()))?;
        if key.len() != algorithm.key_len() {
            bail!(
                "{}: key id {id} is {} bytes, {algorithm} needs {}: generate one with `openssl rand -hex {}`",
                where_(),
                key.len(),
                algorithm.key_len(),
                algorithm.key_len()
            );
        }
        if keys.iter().any(|(k, _)| *k == id) {
            bail!("{}: key id {id} appears twice", where_());
        }
        keys.push((id, key));
    }
    if keys.is_empty() {
        bail!("key file {source} holds no key: add a line ID;HEX");
    }
    keys.sort_by_key(|(id, _)| *id);
    Ok(keys)
}

/// Writes a new key file with one fresh random key, id 1, readable by the
/// owner only (0600); directories it creates are 0700.
///
/// # Errors
/// The file exists, or cannot be written.
pub fn create_key_file(path: &Path, algorithm: Algorithm) -> Result<()> {
    if let Some(dir) = path.parent() {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let key = Key::generate(algorithm.key_len())?;
    let tmp = path.with_extension("tmp");
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)
            .with_context(|| format!("cannot write key file {}", tmp.display()))?;
        writeln!(
            f,
            "# {algorithm} column keys for encbench oltp: ID;HEX, highest id is active"
        )?;
        writeln!(f, "1;{}", key.to_hex().as_str())?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
        .with_context(|| format!("cannot write key file {}", path.display()))?;
    Ok(())
}

/// Builds the column cipher for `descriptor` from the keys in `path`; the
/// highest key id is active.
///
/// # Errors
/// As [`read_key_file`], or the backend rejects a key.
pub fn cipher_from_key_file(descriptor: &'static Descriptor, path: &Path) -> Result<ColumnCipher> {
    let keys = read_key_file(path, descriptor.algorithm)?;
    let mut iter = keys.iter();
    let Some((first_id, first)) = iter.next() else {
        bail!("key file {} holds no key", path.display());
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
/// A missing or malformed key file.
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
            bail!(
                "--key-file {} not found: give the key file the tables were prepared with",
                path.display()
            );
        }
        bail!(
            "key file {} not found: pass --key-file with the key file the tables were prepared with (or --base-dir where prepare created it); new tables: `oltp prepare --encrypt {}` creates one",
            path.display(),
            encrypt.name()
        );
    }
    let cipher =
        cipher_from_key_file(d, &path).with_context(|| format!("--encrypt {}", encrypt.name()))?;
    Ok(Some(Arc::new(cipher)))
}

/// The codec for `encrypt` with column layout `columns`: keys from `key_file`
/// or the default key file; deterministic columns use the same keys through the
/// backend's deterministic form of the algorithm.
///
/// # Errors
/// A missing or malformed key file; deterministic columns on an algorithm
/// without a deterministic form.
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
                    .with_context(|| format!("--encrypt {}", encrypt.name()))?,
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
