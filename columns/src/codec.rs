//! The per-value seal/open path: plaintext passthrough, or per column a
//! randomized or deterministic envelope.

use std::sync::Arc;

use encbench_crypto::KeyId;
use encbench_crypto::envelope::{
    ColumnCipher, DeterministicColumnCipher, EnvelopeError, int_primary_key,
};

use super::{Column, ColumnMode, Columns, Error, Result, TableAad, TableColumn};

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
    /// [`Error::NoDeterministicCipher`]: a deterministic column without a
    /// deterministic cipher.
    pub fn with_columns(
        cipher: Arc<ColumnCipher>,
        deterministic: Option<Arc<DeterministicColumnCipher>>,
        columns: Columns,
    ) -> Result<Codec> {
        if columns.any_deterministic() && deterministic.is_none() {
            return Err(Error::NoDeterministicCipher);
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

    /// [`Codec::seal`] for one value of a named column (any table and column,
    /// not only sysbench's `k`, `c` and `pad`) at primary key `id`: a fresh
    /// randomized envelope bound to (table, column, id) when the codec
    /// encrypts, the plaintext itself when it does not. The same envelope
    /// [`Codec::seal`] writes for a randomized sysbench column of the same
    /// names; no allocation beyond growing `out` (replaced).
    ///
    /// # Errors
    /// Sealing failed (see [`EnvelopeError`]).
    pub fn seal_column(
        &self,
        column: &TableColumn,
        id: i64,
        plaintext: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        match &self.cipher {
            Some(c) => {
                let pk = int_primary_key(id);
                c.seal(&column.at(&pk), plaintext, out)
            }
            None => {
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

    /// [`Codec::open_in_place`] for one value of a named column (sealed by
    /// [`Codec::seal_column`], or by [`Codec::seal`] as a randomized sysbench
    /// column): a randomized envelope opened without allocating, the plaintext
    /// moved to the front of `stored`, which is truncated to it; plaintext
    /// passes through when the codec does not encrypt. The per-value path of
    /// a decrypting proxy, timed by column-bench.
    ///
    /// # Errors
    /// Opening failed (see [`EnvelopeError`]); `stored` is then cleared.
    pub fn open_column_in_place(
        &self,
        column: &TableColumn,
        id: i64,
        stored: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        match &self.cipher {
            Some(c) => {
                let pk = int_primary_key(id);
                c.open_vec_in_place(&column.at(&pk), stored)
            }
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use encbench_crypto::{Key, Keyring};

    fn codec() -> Codec {
        let d = encbench_registry::lookup("ring:aes-256-gcm").expect("compiled in");
        let key = Key::generate(d.algorithm.key_len()).expect("OS random");
        let cipher = ColumnCipher::new(Keyring::new(d, 1, &key).expect("key setup"));
        Codec::encrypted(Arc::new(cipher))
    }

    /// A named column's value is the envelope a randomized sysbench column of
    /// the same names holds: each opens through the other's call, and only at
    /// its own table, column and id.
    #[test]
    fn a_named_column_seals_and_opens_as_the_sysbench_column_of_its_names() {
        let codec = codec();
        let table = TableAad::new("sbtest2").expect("fits");
        let c = TableColumn::new("sbtest2", "c").expect("fits");
        assert_eq!(c.to_string(), "sbtest2.c");
        let mut stored = Vec::new();
        codec
            .seal_column(&c, 7, b"plaintext value", &mut stored)
            .expect("seal");
        assert_ne!(stored, b"plaintext value");
        let mut opened = stored.clone();
        codec
            .open_in_place(&table, Column::C, 7, &mut opened)
            .expect("opens as sbtest2.c");
        assert_eq!(opened, b"plaintext value");
        codec
            .seal(&table, Column::C, 8, b"other", &mut stored)
            .expect("seal");
        let mut opened = stored.clone();
        codec
            .open_column_in_place(&c, 8, &mut opened)
            .expect("opens as a named column");
        assert_eq!(opened, b"other");
        for (column, id) in [
            (TableColumn::new("sbtest2", "pad").expect("fits"), 8),
            (TableColumn::new("sbtest3", "c").expect("fits"), 8),
            (c.clone(), 9),
        ] {
            let mut moved = stored.clone();
            assert!(
                codec.open_column_in_place(&column, id, &mut moved).is_err(),
                "{column} id {id}"
            );
            assert!(moved.is_empty(), "cleared on failure");
        }
    }

    #[test]
    fn a_plaintext_codec_passes_named_values_through() {
        let codec = Codec::plaintext();
        let c = TableColumn::new("t", "x").expect("fits");
        let mut stored = vec![9; 3];
        codec.seal_column(&c, 1, b"abc", &mut stored).expect("seal");
        assert_eq!(stored, b"abc");
        codec
            .open_column_in_place(&c, 1, &mut stored)
            .expect("open");
        assert_eq!(stored, b"abc");
    }

    /// `TableColumn::aad` is the AAD the envelope binds: the AEAD alone opens
    /// an envelope's nonce, ciphertext and tag with it (column-bench's bare
    /// path), and not with another id's.
    #[test]
    fn the_column_aad_opens_the_envelope_with_the_aead_alone() {
        use encbench_crypto::envelope::HEADER_LEN;
        let codec = codec();
        let cipher = codec.cipher().expect("encrypting");
        let (key_id, aead) = cipher.keyring().active();
        let c = TableColumn::new("t", "x").expect("fits");
        let mut stored = Vec::new();
        codec
            .seal_column(&c, 5, b"value", &mut stored)
            .expect("seal");
        let nonce_end = HEADER_LEN + aead.algorithm().nonce_len();
        for (id, opens) in [(5, true), (6, false)] {
            let mut buf = stored.clone();
            let (header_nonce, sealed) = buf.split_at_mut(nonce_end);
            let aad = c.aad(key_id, id).expect("fits");
            let opened = aead.open_in_place(&header_nonce[HEADER_LEN..], &aad, sealed);
            assert_eq!(opened.is_ok(), opens, "id {id}");
            if let Ok(plaintext) = opened {
                assert_eq!(&*plaintext, &b"value"[..]);
            }
        }
    }
}
