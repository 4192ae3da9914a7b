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
use encbench_crypto::envelope::{
    ColumnCipher, DeterministicColumnCipher, EnvelopeError, Location, int_primary_key,
};
use encbench_crypto::{Algorithm, Descriptor, Key, KeyId, Keyring};

/// How one column is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnMode {
    /// As sysbench stores it.
    Plain,
    /// A version-1 envelope with a random nonce, bound to the row (table,
    /// column, id): equal plaintexts look different.
    Randomized,
    /// A version-2 deterministic envelope bound to table and column only: equal
    /// plaintexts in a column are equal bytes, so `=` and `IN` work on the server.
    Deterministic,
}

/// Which of sbtest's columns are encrypted, and how (`--encrypt-columns`,
/// `--deterministic`). `id` always stays plaintext: it is the primary key the
/// AAD binds randomized values to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Columns {
    /// `k` (INTEGER; encrypted as its 4-byte big-endian two's complement).
    pub k: ColumnMode,
    /// `c` (CHAR(120)).
    pub c: ColumnMode,
    /// `pad` (CHAR(60)).
    pub pad: ColumnMode,
}

impl Default for Columns {
    fn default() -> Self {
        Columns::DEFAULT
    }
}

impl Columns {
    /// `c` and `pad` randomized, `k` plaintext: `--encrypt-columns c,pad`.
    pub const DEFAULT: Columns = Columns {
        k: ColumnMode::Plain,
        c: ColumnMode::Randomized,
        pad: ColumnMode::Randomized,
    };

    /// The encryptable columns, in schema order.
    pub const NAMES: [&'static str; 3] = ["k", "c", "pad"];

    /// Parses `--encrypt-columns` (comma-separated `k`, `c`, `pad`, or `all`)
    /// and `--deterministic` (a subset of them, or `none`).
    ///
    /// # Errors
    /// An unknown column name, an empty list, or a deterministic column that is
    /// not encrypted.
    pub fn parse(encrypt_columns: &[String], deterministic: &[String]) -> Result<Columns> {
        let mut cols = Columns {
            k: ColumnMode::Plain,
            c: ColumnMode::Plain,
            pad: ColumnMode::Plain,
        };
        for item in encrypt_columns {
            match item.trim().to_ascii_lowercase().as_str() {
                "all" => {
                    cols.k = ColumnMode::Randomized;
                    cols.c = ColumnMode::Randomized;
                    cols.pad = ColumnMode::Randomized;
                }
                "id" => bail!(
                    "--encrypt-columns id: id stays plaintext (it is the primary key the AAD binds values to); choose from k, c, pad, all"
                ),
                name => {
                    *cols.slot(name).with_context(|| {
                        format!(
                            "--encrypt-columns {name:?}: unknown column; choose from k, c, pad, all"
                        )
                    })? = ColumnMode::Randomized
                }
            }
        }
        if cols.encrypted().next().is_none() {
            bail!("--encrypt-columns is empty: give k, c, pad or all (default c,pad)");
        }
        for item in deterministic {
            let name = item.trim().to_ascii_lowercase();
            if name == "none" || name.is_empty() {
                continue;
            }
            let names = if name == "all" {
                cols.encrypted().collect::<Vec<_>>()
            } else {
                vec![
                    Columns::NAMES
                        .into_iter()
                        .find(|n| *n == name)
                        .with_context(|| {
                            format!("--deterministic {name:?}: unknown column; choose from k, c, pad, all, none")
                        })?,
                ]
            };
            for n in names {
                let slot = cols.slot(n).context("known column")?;
                if *slot == ColumnMode::Plain {
                    let mut with = cols;
                    if let Some(s) = with.slot(n) {
                        *s = ColumnMode::Randomized;
                    }
                    bail!(
                        "--deterministic {n}: {n} is not encrypted; add it to --encrypt-columns (--encrypt-columns {})",
                        with.encrypted().collect::<Vec<_>>().join(",")
                    );
                }
                *slot = ColumnMode::Deterministic;
            }
        }
        Ok(cols)
    }

    fn slot(&mut self, name: &str) -> Option<&mut ColumnMode> {
        match name {
            "k" => Some(&mut self.k),
            "c" => Some(&mut self.c),
            "pad" => Some(&mut self.pad),
            _ => None,
        }
    }

    /// The mode of `column` (`id` and unknown names: plaintext).
    pub fn mode(&self, column: &str) -> ColumnMode {
        match column {
            "k" => self.k,
            "c" => self.c,
            "pad" => self.pad,
            _ => ColumnMode::Plain,
        }
    }

    /// The encrypted columns, in schema order.
    pub fn encrypted(&self) -> impl Iterator<Item = &'static str> + '_ {
        Columns::NAMES
            .into_iter()
            .filter(|n| self.mode(n) != ColumnMode::Plain)
    }

    /// Whether any column is deterministic.
    pub fn any_deterministic(&self) -> bool {
        Columns::NAMES
            .iter()
            .any(|n| self.mode(n) == ColumnMode::Deterministic)
    }

    /// E.g. `k (deterministic), c, pad`.
    pub fn describe(&self) -> String {
        self.encrypted()
            .map(|n| match self.mode(n) {
                ColumnMode::Deterministic => format!("{n} (deterministic)"),
                _ => n.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The command-line flags that select this layout, with a leading space:
    /// empty for the default, else e.g. ` --encrypt-columns k,c,pad --deterministic k`.
    pub fn flags(&self) -> String {
        if *self == Columns::DEFAULT {
            return String::new();
        }
        let det: Vec<&str> = self
            .encrypted()
            .filter(|c| self.mode(c) == ColumnMode::Deterministic)
            .collect();
        format!(
            " --encrypt-columns {}{}",
            self.encrypted().collect::<Vec<_>>().join(","),
            if det.is_empty() {
                String::new()
            } else {
                format!(" --deterministic {}", det.join(","))
            }
        )
    }

    /// As recorded in `encbench_meta`: e.g. `k:deterministic,c:randomized,pad:randomized`.
    pub fn meta(&self) -> String {
        self.encrypted()
            .map(|n| {
                let m = match self.mode(n) {
                    ColumnMode::Deterministic => "deterministic",
                    _ => "randomized",
                };
                format!("{n}:{m}")
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The database-name suffix of this layout: empty for the default (`c,pad`),
    /// else `_` and one letter per encrypted column (`k`, `c`, `p`), each
    /// followed by `d` when deterministic, e.g. `_kdcp`. At most 7 bytes.
    pub fn db_suffix(&self) -> String {
        if *self == Columns::DEFAULT {
            return String::new();
        }
        let mut s = String::from("_");
        for n in self.encrypted() {
            s.push_str(&n[..1]);
            if self.mode(n) == ColumnMode::Deterministic {
                s.push('d');
            }
        }
        s
    }

    /// Checks that `encrypt` can store this layout: deterministic columns need
    /// an algorithm with a deterministic form on the chosen backend.
    ///
    /// # Errors
    /// The message names the algorithms that can.
    pub fn check(&self, encrypt: Encrypt) -> Result<()> {
        let Encrypt::Aead(d) = encrypt else {
            return Ok(());
        };
        if self.any_deterministic() {
            encbench_registry::lookup_deterministic(&d.name()).map_err(|_| {
                anyhow::anyhow!(
                    "--deterministic needs an algorithm with a deterministic form, and {} has none: use one of {}",
                    d.name(),
                    encbench_registry::deterministic()
                        .iter()
                        .map(|d| d.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?;
        }
        Ok(())
    }
}

/// The stored plaintext of `k`: its 4-byte big-endian two's complement.
pub fn k_plaintext(k: i64) -> [u8; 4] {
    // sysbench's k is an INTEGER (32-bit signed); k=k+1 cannot leave it in
    // a sysbench run (values start at most at table_size).
    (k as i32).to_be_bytes()
}

/// Reads `k` back from its plaintext.
///
/// # Errors
/// Not exactly 4 bytes.
pub fn k_from_plaintext(bytes: &[u8]) -> Result<i64, String> {
    let b: [u8; 4] = bytes
        .try_into()
        .map_err(|_| format!("k holds {} bytes, expected 4", bytes.len()))?;
    Ok(i64::from(i32::from_be_bytes(b)))
}

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

/// The per-connection column codec: plaintext passthrough, or per column a
/// randomized or deterministic envelope.
#[derive(Clone, Debug)]
pub struct Codec {
    cipher: Option<Arc<ColumnCipher>>,
    deterministic: Option<Arc<DeterministicColumnCipher>>,
    columns: Columns,
}

impl Codec {
    /// Plaintext: values pass through unchanged.
    pub fn plaintext() -> Codec {
        Codec {
            cipher: None,
            deterministic: None,
            columns: Columns {
                k: ColumnMode::Plain,
                c: ColumnMode::Plain,
                pad: ColumnMode::Plain,
            },
        }
    }

    /// `c` and `pad` as randomized envelopes sealed and opened with `cipher`
    /// (the default layout).
    pub fn encrypted(cipher: Arc<ColumnCipher>) -> Codec {
        Codec {
            cipher: Some(cipher),
            deterministic: None,
            columns: Columns::DEFAULT,
        }
    }

    /// `columns` as envelopes: randomized ones with `cipher`, deterministic ones
    /// with `deterministic`.
    ///
    /// # Errors
    /// A deterministic column without a deterministic cipher.
    pub fn with_columns(
        cipher: Arc<ColumnCipher>,
        deterministic: Option<Arc<DeterministicColumnCipher>>,
        columns: Columns,
    ) -> Result<Codec> {
        if columns.any_deterministic() && deterministic.is_none() {
            bail!("deterministic columns need a deterministic cipher");
        }
        Ok(Codec {
            cipher: Some(cipher),
            deterministic,
            columns,
        })
    }

    /// Whether any column holds envelopes.
    pub fn is_encrypted(&self) -> bool {
        self.cipher.is_some()
    }

    /// How `column` is stored.
    pub fn mode(&self, column: &str) -> ColumnMode {
        if self.cipher.is_none() {
            return ColumnMode::Plain;
        }
        self.columns.mode(column)
    }

    /// The column layout (all plaintext for a plaintext codec).
    pub fn columns(&self) -> Columns {
        self.columns
    }

    /// The key id deterministic values are sealed under, when a column is
    /// deterministic.
    pub fn deterministic_key_id(&self) -> Option<KeyId> {
        self.deterministic.as_ref().map(|d| d.active_key_id())
    }

    /// The randomized cipher, when encrypting.
    pub fn cipher(&self) -> Option<&ColumnCipher> {
        self.cipher.as_deref()
    }

    /// Stored bytes for `plaintext` of `table.column` at primary key `id`:
    /// the plaintext itself, a fresh randomized envelope, or the deterministic
    /// envelope (which ignores `id`), by the column's mode. Writes into `out`
    /// (replaced).
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
        match (self.mode(column), &self.cipher, &self.deterministic) {
            (ColumnMode::Deterministic, _, Some(d)) => d.seal(table, column, plaintext, out),
            (ColumnMode::Randomized, Some(c), _) => {
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
            _ => {
                out.clear();
                out.extend_from_slice(plaintext);
                Ok(())
            }
        }
    }

    /// Turns a stored value into its plaintext, in place: plaintext passes
    /// through; a randomized envelope is opened without allocating, the
    /// plaintext moved to the front of `stored`, which is truncated to it; a
    /// deterministic envelope is opened into a new buffer that replaces `stored`.
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
        let c = match (self.mode(column), &self.cipher, &self.deterministic) {
            (ColumnMode::Deterministic, _, Some(d)) => {
                let mut out = Vec::with_capacity(stored.len());
                let opened = d.open(table, column, stored, &mut out);
                if opened.is_err() {
                    stored.clear();
                }
                opened?;
                *stored = out;
                return Ok(());
            }
            (ColumnMode::Randomized, Some(c), _) => c,
            _ => return Ok(()),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(enc: &[&str], det: &[&str]) -> Result<Columns> {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        Columns::parse(&s(enc), &s(det))
    }

    #[test]
    fn layouts_parse_and_name_their_databases() {
        let d = cols(&["c", "pad"], &["none"]).expect("default");
        assert_eq!(d, Columns::DEFAULT);
        assert_eq!(d.db_suffix(), "");
        assert_eq!(d.meta(), "c:randomized,pad:randomized");
        let all = cols(&["all"], &[]).expect("all");
        assert_eq!(all.db_suffix(), "_kcp");
        assert_eq!(all.describe(), "k, c, pad");
        let det = cols(&["all"], &["k"]).expect("det k");
        assert_eq!(det.k, ColumnMode::Deterministic);
        assert_eq!(det.db_suffix(), "_kdcp");
        assert_eq!(det.describe(), "k (deterministic), c, pad");
        let every = cols(&["K", " pad "], &["all"]).expect("case and spaces");
        assert_eq!(every.db_suffix(), "_kdpd");
        assert_eq!(every.c, ColumnMode::Plain);
        assert!(every.db_suffix().len() <= 7);
    }

    #[test]
    fn bad_layouts_are_refused_with_the_fix() {
        for (enc, det, want) in [
            (&["id"][..], &[][..], "id stays plaintext"),
            (&["x"][..], &[][..], "choose from k, c, pad, all"),
            (&["k"][..], &["c"][..], "add it to --encrypt-columns"),
            (&["k"][..], &["q"][..], "unknown column"),
        ] {
            let e = cols(enc, det).expect_err("refused").to_string();
            assert!(e.contains(want), "{enc:?} {det:?}: {e}");
        }
        let gcm = Encrypt::parse("rustcrypto:aes-256-gcm").expect("gcm");
        let siv = Encrypt::parse("rustcrypto:aes-256-siv").expect("siv");
        let det = cols(&["all"], &["k"]).expect("det");
        assert!(det.check(gcm).is_err());
        assert!(det.check(siv).is_ok());
        assert!(det.check(Encrypt::None).is_ok());
        assert!(Columns::DEFAULT.check(gcm).is_ok());
    }

    #[test]
    fn k_plaintext_round_trips() {
        for k in [0, 1, 9999, -5, i64::from(i32::MAX)] {
            assert_eq!(k_from_plaintext(&k_plaintext(k)), Ok(k));
        }
        assert!(k_from_plaintext(b"123").is_err());
    }
}
