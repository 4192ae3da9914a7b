//! Sealing and opening version-1 envelopes with a keyring: [`ColumnCipher`].

use super::aad::ValueAad;
use super::{EnvelopeError, HEADER_LEN, MAX_NONCE_LEN, NONCE_WINDOW_FITS, VERSION, overhead};
use crate::aead::fail_closed;
use crate::{Aead, Algorithm, Error, KeyId, Keyring, random_nonce};

/// Authenticates and decrypts `ciphertext || tag` in place; returns the plaintext
/// length (the plaintext is the start of `sealed`).
fn open_parts<L: ValueAad + ?Sized>(
    key_id: KeyId,
    aead: &dyn Aead,
    loc: &L,
    nonce: &[u8],
    sealed: &mut [u8],
) -> Result<usize, EnvelopeError> {
    loc.with_v1_aad(key_id, |aad| match aead.open_in_place(nonce, aad, sealed) {
        Ok(plaintext) => Ok(plaintext.len()),
        Err(e) => Err(open_error(key_id, e)),
    })
}

/// The envelope error for an AEAD error while opening under `key_id`.
#[cold]
#[inline(never)]
fn open_error(key_id: KeyId, e: Error) -> EnvelopeError {
    match e {
        Error::Decrypt => EnvelopeError::Decrypt { key_id },
        e => EnvelopeError::Aead(e),
    }
}

/// Clears `stored` after a failed open and returns `e` (out of line).
#[cold]
#[inline(never)]
fn cleared(stored: &mut Vec<u8>, e: EnvelopeError) -> EnvelopeError {
    stored.clear();
    e
}

/// Seals and opens column values as envelopes with the keys of a [`Keyring`].
///
/// One `ColumnCipher` is shared by every worker (`Send + Sync`); sealing uses
/// the keyring's active key, opening the key the envelope names.
#[derive(Debug)]
pub struct ColumnCipher {
    keyring: Keyring,
}

impl ColumnCipher {
    /// Wraps a keyring.
    pub fn new(keyring: Keyring) -> ColumnCipher {
        ColumnCipher { keyring }
    }

    /// The keyring.
    pub fn keyring(&self) -> &Keyring {
        &self.keyring
    }

    /// The algorithm of the active key.
    pub fn algorithm(&self) -> Algorithm {
        self.keyring.active().1.algorithm()
    }

    /// Envelope overhead per value in bytes (see [`overhead`]).
    pub fn overhead(&self) -> usize {
        overhead(self.algorithm())
    }

    /// Seals `plaintext` for `loc` under the active key with a fresh random
    /// nonce, replacing the contents of `out` with the envelope
    /// (`plaintext.len() + overhead()` bytes for length-preserving algorithms).
    /// Reuses `out`'s allocation (the padded CBC algorithm allocates once more).
    ///
    /// # Errors
    /// [`EnvelopeError::FieldTooLong`]; [`EnvelopeError::Aead`] when the nonce
    /// cannot be drawn or the backend fails. On error `out` is overwritten with
    /// zeros and left empty, so no plaintext copy remains in it.
    pub fn seal<L: ValueAad + ?Sized>(
        &self,
        loc: &L,
        plaintext: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        let sealed = self.seal_into(loc, plaintext, out);
        fail_closed(out, sealed)
    }

    /// [`ColumnCipher::seal`] without the clean-up on error.
    fn seal_into<L: ValueAad + ?Sized>(
        &self,
        loc: &L,
        plaintext: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        let (key_id, aead) = self.keyring.active();
        let alg = aead.algorithm();
        loc.with_v1_aad(key_id, |aad| {
            let nonce_end = HEADER_LEN + alg.nonce_len();
            out.clear();
            out.resize(nonce_end, 0);
            out[..HEADER_LEN].copy_from_slice(&aad[..HEADER_LEN]);
            random_nonce(&mut out[HEADER_LEN..nonce_end]).map_err(EnvelopeError::Aead)?;
            let Some(detached) = aead.detached() else {
                // The padded CBC algorithm: the ciphertext is longer than the plaintext.
                let sealed = aead
                    .seal_to_vec(&out[HEADER_LEN..nonce_end], aad, plaintext)
                    .map_err(EnvelopeError::Aead)?;
                out.extend_from_slice(&sealed);
                return Ok(());
            };
            let body_end = nonce_end + plaintext.len();
            out.extend_from_slice(plaintext);
            out.resize(body_end + alg.tag_len(), 0);
            let (head, tag) = out.split_at_mut(body_end);
            let (header_nonce, body) = head.split_at_mut(nonce_end);
            detached
                .seal_in_place_detached(&header_nonce[HEADER_LEN..], aad, body, tag)
                .map_err(EnvelopeError::Aead)
        })
    }

    /// Opens the envelope in `stored` in place and returns the plaintext, a
    /// sub-slice of `stored`. Does not allocate.
    ///
    /// # Errors
    /// [`EnvelopeError::Truncated`], [`EnvelopeError::Version`],
    /// [`EnvelopeError::UnknownKeyId`], [`EnvelopeError::FieldTooLong`], and
    /// [`EnvelopeError::Decrypt`] when authentication fails (then `stored` holds
    /// unspecified bytes).
    pub fn open_in_place<'s, L: ValueAad + ?Sized>(
        &self,
        loc: &L,
        stored: &'s mut [u8],
    ) -> Result<&'s mut [u8], EnvelopeError> {
        let range = self.open_range(loc, stored)?;
        Ok(&mut stored[range])
    }

    /// Opens the envelope held in `stored` and leaves exactly the plaintext in
    /// it (moved to the front, then truncated). Does not allocate: this is the
    /// per-row path of a decrypting proxy, where the driver hands over an owned
    /// buffer per value.
    ///
    /// # Errors
    /// As [`ColumnCipher::open_in_place`]; on error `stored` is cleared.
    pub fn open_vec_in_place<L: ValueAad + ?Sized>(
        &self,
        loc: &L,
        stored: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        match self.open_to_front(loc, stored) {
            Ok(len) => {
                stored.truncate(len);
                Ok(())
            }
            Err(e) => Err(cleared(stored, e)),
        }
    }

    /// Opens in place with the plaintext written to the front of `stored`
    /// ([`Aead::open_within`]: one pass in ring, decrypt then move in the other
    /// backends); returns the plaintext length.
    fn open_to_front<L: ValueAad + ?Sized>(
        &self,
        loc: &L,
        stored: &mut [u8],
    ) -> Result<usize, EnvelopeError> {
        let (key_id, aead, nonce_end) = self.parse_header(stored)?;
        // The nonce is read before the plaintext overwrites it: a fixed-width
        // copy of MAX_NONCE_LEN bytes (inline, no `memcpy` call), of which the
        // algorithm's nonce is the start; every envelope is long enough
        // (`NONCE_WINDOW_FITS`, checked by `parse_header`'s overhead check).
        let mut window = [0u8; MAX_NONCE_LEN];
        window.copy_from_slice(&stored[HEADER_LEN..NONCE_WINDOW_FITS]);
        let nonce = &window[..nonce_end - HEADER_LEN];
        loc.with_v1_aad(key_id, |aad| {
            match aead.open_within(nonce, aad, stored, nonce_end..) {
                Ok(plaintext) => Ok(plaintext.len()),
                Err(e) => Err(open_error(key_id, e)),
            }
        })
    }

    /// Opens in place; returns where the plaintext now is within `stored`.
    fn open_range<L: ValueAad + ?Sized>(
        &self,
        loc: &L,
        stored: &mut [u8],
    ) -> Result<std::ops::Range<usize>, EnvelopeError> {
        let (key_id, aead, nonce_end) = self.parse_header(stored)?;
        let (header_nonce, sealed) = stored.split_at_mut(nonce_end);
        let len = open_parts(key_id, aead, loc, &header_nonce[HEADER_LEN..], sealed)?;
        Ok(nonce_end..nonce_end + len)
    }

    /// Opens the envelope `stored` into `out` (contents replaced; allocation reused).
    ///
    /// # Errors
    /// As [`ColumnCipher::open_in_place`]; on error `out` is left empty.
    pub fn open<L: ValueAad + ?Sized>(
        &self,
        loc: &L,
        stored: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        out.clear();
        let (key_id, aead, nonce_end) = self.parse_header(stored)?;
        out.extend_from_slice(&stored[nonce_end..]);
        let opened = open_parts(key_id, aead, loc, &stored[HEADER_LEN..nonce_end], out);
        let len = fail_closed(out, opened)?;
        out.truncate(len);
        Ok(())
    }

    /// Reads version and key id and finds the key; checks the minimum length.
    /// Returns the key id, its AEAD and where the nonce ends (the header and
    /// nonce length, read from the algorithm once).
    fn parse_header(&self, stored: &[u8]) -> Result<(KeyId, &dyn Aead, usize), EnvelopeError> {
        if stored.len() < HEADER_LEN {
            return Err(EnvelopeError::Truncated {
                len: stored.len(),
                min: self.overhead(),
            });
        }
        if stored[0] != VERSION {
            return Err(EnvelopeError::Version(stored[0]));
        }
        let key_id = KeyId::from_be_bytes([stored[1], stored[2], stored[3], stored[4]]);
        let Some(aead) = self.keyring.get(key_id) else {
            return Err(unknown_key_id(key_id, self.keyring.ids()));
        };
        let algorithm = aead.algorithm();
        let need = overhead(algorithm);
        if stored.len() < need {
            return Err(EnvelopeError::Truncated {
                len: stored.len(),
                min: need,
            });
        }
        Ok((key_id, aead, HEADER_LEN + algorithm.nonce_len()))
    }
}

/// [`EnvelopeError::UnknownKeyId`] for `key_id`, listing the `known` ids (out
/// of line: the error path of the per-value open).
#[cold]
#[inline(never)]
fn unknown_key_id(key_id: KeyId, known: impl Iterator<Item = KeyId>) -> EnvelopeError {
    EnvelopeError::UnknownKeyId {
        key_id,
        known: known.map(|k| k.to_string()).collect::<Vec<_>>().join(","),
    }
}
