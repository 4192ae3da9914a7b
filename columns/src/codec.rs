//! The per-value seal/open path: plaintext passthrough, or per column a
//! randomized or deterministic envelope.

use std::sync::Arc;

use anyhow::{Result, bail};
use encbench_crypto::KeyId;
use encbench_crypto::envelope::{
    ColumnCipher, DeterministicColumnCipher, EnvelopeError, int_primary_key,
};

use super::{Column, ColumnMode, Columns, TableAad};

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
    pub fn mode(&self, column: Column) -> ColumnMode {
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
    /// (replaced). `table` carries the column's AAD prefix, built once per table.
    ///
    /// # Errors
    /// Sealing failed (see [`EnvelopeError`]).
    pub fn seal(
        &self,
        table: &TableAad,
        column: Column,
        id: i64,
        plaintext: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        match (self.mode(column), &self.cipher, &self.deterministic) {
            (ColumnMode::Deterministic, _, Some(d)) => {
                d.seal(table.name(), column.name(), plaintext, out)
            }
            (ColumnMode::Randomized, Some(c), _) => {
                let pk = int_primary_key(id);
                c.seal(&table.at(column, &pk), plaintext, out)
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
        table: &TableAad,
        column: Column,
        id: i64,
        stored: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        let c = match (self.mode(column), &self.cipher, &self.deterministic) {
            (ColumnMode::Deterministic, _, Some(d)) => {
                let mut out = Vec::with_capacity(stored.len());
                let opened = d.open(table.name(), column.name(), stored, &mut out);
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
        c.open_vec_in_place(&table.at(column, &pk), stored)
    }
}
