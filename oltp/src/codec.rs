//! Column encryption for `oltp`: which algorithm, which keys, and the per-value
//! seal/open path shared with `column-bench`.
//!
//! Keys live in key files of MariaDB's `file_key_management` format: one key per
//! line, `ID;HEX` (e.g. `1;` and 64 hex digits for a 32-byte key), `#` comments.
//! The key with the highest id is the active one (rotation appends a higher id);
//! values sealed under older ids still open.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use encbench_crypto::envelope::{ColumnCipher, EnvelopeError, Location, int_primary_key};
use encbench_crypto::{Algorithm, Descriptor, Key, KeyId, Keyring};

/// A column-encryption choice: `none`, or a backend and algorithm from the registry.
#[derive(Clone, Copy)]
pub enum Encrypt {
    /// Plaintext columns (sysbench's schema).
    None,
    /// `c` and `pad` stored as envelopes sealed with this backend and algorithm.
    Aead(&'static Descriptor),
}

impl Encrypt {
    /// Parses `none` or `BACKEND:ALGORITHM` (see `encbench_registry::names`).
    ///
    /// # Errors
    /// An unknown or not-compiled-in name; the message lists the valid names.
    pub fn parse(text: &str) -> Result<Encrypt> {
        if text.eq_ignore_ascii_case("none") || text.eq_ignore_ascii_case("plaintext") {
            return Ok(Encrypt::None);
        }
        let d = encbench_registry::lookup(text)
            .map_err(|e| anyhow::anyhow!("--encrypt: {e} (or none)"))?;
        Ok(Encrypt::Aead(d))
    }

    /// `none` or `BACKEND:ALGORITHM`.
    pub fn name(&self) -> String {
        match self {
            Encrypt::None => "none".to_string(),
            Encrypt::Aead(d) => d.name(),
        }
    }

    /// The algorithm, when encrypting.
    pub fn algorithm(&self) -> Option<Algorithm> {
        match self {
            Encrypt::None => None,
            Encrypt::Aead(d) => Some(d.algorithm),
        }
    }
}

impl fmt::Debug for Encrypt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl fmt::Display for Encrypt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// The default key file for `algorithm` under `base_dir`: `<base>/keys/<algorithm>.keys`.
pub fn default_key_file(base_dir: &Path, algorithm: Algorithm) -> PathBuf {
    base_dir
        .join("keys")
        .join(format!("{}.keys", algorithm.name()))
}

/// Reads a key file (`ID;HEX` lines) and returns `(id, key)` pairs sorted by id.
///
/// # Errors
/// Unreadable file, a malformed line (the message gives file and line number),
/// a key of the wrong length for `algorithm`, duplicate ids, or no key at all.
pub fn read_key_file(path: &Path, algorithm: Algorithm) -> Result<Vec<(KeyId, Key)>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read key file {}: check --key-file", path.display()))?;
    let mut keys: Vec<(KeyId, Key)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let where_ = || format!("{} line {}", path.display(), n + 1);
        let (id, hex) = line
            .split_once(';')
            .with_context(|| format!("{}: expected ID;HEX (e.g. 1;00ff...)", where_()))?;
        let id: KeyId = id.trim().parse().with_context(|| {
            format!(
                "{}: key id {:?} is not a number 0..=4294967295",
                where_(),
                id.trim()
            )
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
        bail!(
            "key file {} holds no key: add a line ID;HEX",
            path.display()
        );
    }
    keys.sort_by_key(|(id, _)| *id);
    Ok(keys)
}

/// Writes a new key file with one fresh random key, id 1, readable by the owner only.
///
/// # Errors
/// The file exists, or cannot be written.
pub fn create_key_file(path: &Path, algorithm: Algorithm) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
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

/// The per-connection column codec: plaintext passthrough or envelope open/seal,
/// bound to one table name format.
#[derive(Clone, Debug)]
pub struct Codec {
    cipher: Option<Arc<ColumnCipher>>,
}

impl Codec {
    /// Plaintext: values pass through unchanged.
    pub fn plaintext() -> Codec {
        Codec { cipher: None }
    }

    /// Envelopes sealed and opened with `cipher`.
    pub fn encrypted(cipher: Arc<ColumnCipher>) -> Codec {
        Codec {
            cipher: Some(cipher),
        }
    }

    /// Whether values are envelopes.
    pub fn is_encrypted(&self) -> bool {
        self.cipher.is_some()
    }

    /// The cipher, when encrypting.
    pub fn cipher(&self) -> Option<&ColumnCipher> {
        self.cipher.as_deref()
    }

    /// Stored bytes for `plaintext` of `table.column` at primary key `id`:
    /// the plaintext itself, or a fresh envelope. Writes into `out` (replaced).
    ///
    /// # Errors
    /// Sealing failed (see [`EnvelopeError`]).
    pub fn seal(
        &self,
        table: &str,
        column: &str,
        id: i64,
        plaintext: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        match &self.cipher {
            None => {
                out.clear();
                out.extend_from_slice(plaintext);
                Ok(())
            }
            Some(c) => {
                let pk = int_primary_key(id);
                c.seal(
                    &Location {
                        table,
                        column,
                        primary_key: &pk,
                    },
                    plaintext,
                    out,
                )
            }
        }
    }

    /// Turns a stored value into its plaintext, in place, without allocating:
    /// plaintext passes through; an envelope is opened and the plaintext moved
    /// to the front of `stored`, which is truncated to it.
    ///
    /// # Errors
    /// Opening failed (see [`EnvelopeError`]); `stored` is then cleared.
    pub fn open_in_place(
        &self,
        table: &str,
        column: &str,
        id: i64,
        stored: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        let Some(c) = &self.cipher else {
            return Ok(());
        };
        let pk = int_primary_key(id);
        c.open_vec_in_place(
            &Location {
                table,
                column,
                primary_key: &pk,
            },
            stored,
        )
    }
}
