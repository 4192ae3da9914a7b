//! Deterministic envelopes (version 2): [`DeterministicColumnCipher`].

use super::aad::with_aad;
use super::{EnvelopeError, HEADER_LEN};
use crate::{Algorithm, DeterministicAead, DeterministicDescriptor, Error, Key, KeyId};

/// The version byte of deterministic envelopes.
pub const DETERMINISTIC_VERSION: u8 = 2;

/// Per-value overhead of the deterministic envelope for `algorithm`, in bytes:
/// header (5) + 16 for AES-256-SIV (the synthetic IV, RFC 5297) = 21; for
/// AES-256-CBC-HMAC-SHA256 an upper bound, 5 + 1 + 32 + 16 + 16 = 70 (version
/// byte, MAC, IV, at most one block of PKCS#7 padding). 0 for algorithms without
/// a deterministic form.
pub const fn deterministic_overhead(algorithm: Algorithm) -> usize {
    match algorithm {
        Algorithm::Aes256Siv => HEADER_LEN + 16,
        Algorithm::Aes256CbcHmacSha256 => HEADER_LEN + 1 + 32 + 16 + 16,
        _ => 0,
    }
}

/// Seals and opens column values as deterministic envelopes (version 2): the
/// same plaintext in the same table and column always gives the same bytes
/// under one key, so the server can compare them for equality.
///
/// Sealing uses the highest key id; opening the key the envelope names.
pub struct DeterministicColumnCipher {
    /// Index into `keys` of the highest key id.
    active: usize,
    algorithm: Algorithm,
    keys: Vec<(KeyId, Box<dyn DeterministicAead>)>,
}

impl DeterministicColumnCipher {
    /// Sets up every `(id, key)` with `descriptor`; the highest id is active.
    ///
    /// # Errors
    /// [`Error::KeyLength`] or [`Error::Backend`] from the backend;
    /// [`Error::KeySource`] when `keys` is empty.
    pub fn new(
        descriptor: &DeterministicDescriptor,
        keys: &[(KeyId, Key)],
    ) -> Result<DeterministicColumnCipher, Error> {
        let active = keys
            .iter()
            .enumerate()
            .max_by_key(|(_, (id, _))| *id)
            .map(|(i, _)| i)
            .ok_or_else(|| Error::KeySource("no key for the deterministic cipher".into()))?;
        let keys = keys
            .iter()
            .map(|(id, k)| Ok((*id, descriptor.new_key(k.as_bytes())?)))
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(DeterministicColumnCipher {
            active,
            algorithm: descriptor.algorithm,
            keys,
        })
    }

    /// The algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The key id values are sealed under.
    pub fn active_key_id(&self) -> KeyId {
        self.keys[self.active].0
    }

    fn get(&self, id: KeyId) -> Option<&dyn DeterministicAead> {
        self.keys
            .iter()
            .find(|(k, _)| *k == id)
            .map(|(_, a)| a.as_ref())
    }

    /// Seals `plaintext` of `table.column` under the active key, replacing the
    /// contents of `out` with the envelope.
    ///
    /// # Errors
    /// [`EnvelopeError::FieldTooLong`]; [`EnvelopeError::Aead`] when the backend
    /// fails (e.g. OpenSSL 3.0's AES-SIV on an empty plaintext). On error `out` is
    /// empty.
    pub fn seal(
        &self,
        table: &str,
        column: &str,
        plaintext: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        out.clear();
        let (key_id, aead) = &self.keys[self.active];
        with_aad(
            DETERMINISTIC_VERSION,
            *key_id,
            &deterministic_fields(table, column),
            |aad| {
                let mut body = std::mem::take(out);
                aead.seal(aad, plaintext, &mut body)
                    .map_err(EnvelopeError::Aead)?;
                out.reserve(HEADER_LEN + body.len());
                out.extend_from_slice(&aad[..HEADER_LEN]);
                out.extend_from_slice(&body);
                Ok(())
            },
        )
    }

    /// Opens the deterministic envelope `stored` of `table.column` into `out`
    /// (contents replaced).
    ///
    /// # Errors
    /// [`EnvelopeError::Truncated`], [`EnvelopeError::Version`],
    /// [`EnvelopeError::UnknownKeyId`], [`EnvelopeError::FieldTooLong`],
    /// [`EnvelopeError::Decrypt`]. On error `out` is empty.
    pub fn open(
        &self,
        table: &str,
        column: &str,
        stored: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        out.clear();
        let min = HEADER_LEN + 1;
        if stored.len() < min {
            return Err(EnvelopeError::Truncated {
                len: stored.len(),
                min,
            });
        }
        if stored[0] != DETERMINISTIC_VERSION {
            return Err(EnvelopeError::Version(stored[0]));
        }
        let key_id = KeyId::from_be_bytes([stored[1], stored[2], stored[3], stored[4]]);
        let aead = self
            .get(key_id)
            .ok_or_else(|| EnvelopeError::UnknownKeyId {
                key_id,
                known: self
                    .keys
                    .iter()
                    .map(|(k, _)| k.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
            })?;
        with_aad(
            DETERMINISTIC_VERSION,
            key_id,
            &deterministic_fields(table, column),
            |aad| match aead.open(aad, &stored[HEADER_LEN..], out) {
                Ok(()) => Ok(()),
                Err(Error::Decrypt) => Err(EnvelopeError::Decrypt { key_id }),
                Err(e) => Err(EnvelopeError::Aead(e)),
            },
        )
    }
}

/// The fields the AAD of a deterministic envelope binds: table and column.
fn deterministic_fields<'a>(table: &'a str, column: &'a str) -> [(&'static str, &'a [u8]); 2] {
    [("table", table.as_bytes()), ("column", column.as_bytes())]
}

impl std::fmt::Debug for DeterministicColumnCipher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeterministicColumnCipher")
            .field("algorithm", &self.algorithm)
            .field("active", &self.active_key_id())
            .field(
                "ids",
                &self.keys.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}
