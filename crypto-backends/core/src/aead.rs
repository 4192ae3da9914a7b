//! The AEAD trait every backend implements, and the descriptor each backend exports.

use crate::{Algorithm, Error};

/// One AEAD algorithm under one key, set up once (key schedule done in
/// [`Descriptor::new_key`]) and then shared by all threads.
///
/// The two required methods work in place on a caller's buffer with a detached
/// tag, and must not allocate: they are the per-row hot path of a decrypting
/// proxy. Nonce and tag lengths are [`Algorithm::nonce_len`] and
/// [`Algorithm::tag_len`] of [`Aead::algorithm`].
///
/// Implementations never log or print key material; `Debug` output, where
/// implemented, shows the algorithm only.
pub trait Aead: Send + Sync {
    /// The algorithm this key is for.
    fn algorithm(&self) -> Algorithm;

    /// The library that implements it, as used in `BACKEND:ALGORITHM` names
    /// (`rustcrypto`, `openssl`).
    fn backend(&self) -> &'static str;

    /// Encrypts `in_out` in place and writes the authentication tag to `tag`.
    ///
    /// Only for length-preserving algorithms ([`Algorithm::is_length_preserving`]);
    /// the CBC algorithm returns [`Error::NotLengthPreserving`] and is sealed with
    /// [`Aead::seal_in_place`].
    ///
    /// `nonce` must never repeat under the same key (use [`crate::random_nonce`]).
    ///
    /// # Errors
    /// [`Error::NonceLength`] or [`Error::TagLength`] when a buffer has the wrong
    /// size, [`Error::TooLong`] past the algorithm's limit, [`Error::Backend`] when
    /// the library fails.
    fn seal_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), Error>;

    /// Verifies `tag` over `nonce`, `aad` and the ciphertext in `in_out`, and
    /// decrypts `in_out` in place. Length-preserving algorithms only, as
    /// [`Aead::seal_in_place_detached`].
    ///
    /// On [`Error::Decrypt`] the contents of `in_out` are unspecified (a backend
    /// may have decrypted before checking the tag) and must not be used.
    ///
    /// # Errors
    /// [`Error::Decrypt`] when authentication fails (opaque on purpose);
    /// [`Error::NonceLength`] or [`Error::TagLength`] for wrong buffer sizes.
    fn open_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error>;

    /// Seals `buf` in place: on entry it holds the plaintext; on success it holds
    /// `ciphertext || tag` ([`Algorithm::sealed_len`] bytes; it grows by the tag, and
    /// by the padding for the CBC algorithm). Works for every algorithm; the
    /// provided version calls [`Aead::seal_in_place_detached`].
    ///
    /// # Errors
    /// As [`Aead::seal_in_place_detached`]. On error `buf` is zeroed and cleared.
    fn seal_in_place(&self, nonce: &[u8], aad: &[u8], buf: &mut Vec<u8>) -> Result<(), Error> {
        let len = buf.len();
        buf.resize(len + self.algorithm().tag_len(), 0);
        let (body, tag) = buf.split_at_mut(len);
        let sealed = self.seal_in_place_detached(nonce, aad, body, tag);
        if sealed.is_err() {
            buf.fill(0);
            buf.clear();
        }
        sealed
    }

    /// Opens `buf` (`ciphertext || tag`) in place and returns the plaintext, a
    /// prefix of `buf`. Works for every algorithm; the provided version calls
    /// [`Aead::open_in_place_detached`]. Does not allocate.
    ///
    /// # Errors
    /// As [`Aead::open_in_place_detached`]; an input shorter than the tag is
    /// [`Error::Decrypt`]. On [`Error::Decrypt`] `buf` holds unspecified bytes.
    fn open_in_place<'b>(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &'b mut [u8],
    ) -> Result<&'b mut [u8], Error> {
        let tag_len = self.algorithm().tag_len();
        let body_len = buf.len().checked_sub(tag_len).ok_or(Error::Decrypt)?;
        let (body, tag) = buf.split_at_mut(body_len);
        self.open_in_place_detached(nonce, aad, body, tag)?;
        Ok(body)
    }

    /// Encrypts `plaintext` into a new vector `ciphertext || tag`.
    ///
    /// # Errors
    /// As [`Aead::seal_in_place`].
    fn seal_to_vec(&self, nonce: &[u8], aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>, Error> {
        let mut out = Vec::with_capacity(plaintext.len() + self.algorithm().max_expansion());
        out.extend_from_slice(plaintext);
        self.seal_in_place(nonce, aad, &mut out)?;
        Ok(out)
    }

    /// Decrypts `ciphertext || tag` into a new vector.
    ///
    /// # Errors
    /// As [`Aead::open_in_place`].
    fn open_to_vec(&self, nonce: &[u8], aad: &[u8], sealed: &[u8]) -> Result<Vec<u8>, Error> {
        let mut out = sealed.to_vec();
        let len = match self.open_in_place(nonce, aad, &mut out) {
            Ok(plaintext) => plaintext.len(),
            Err(e) => {
                out.fill(0);
                return Err(e);
            }
        };
        out.truncate(len);
        Ok(out)
    }

    /// Opens a batch of values (the rows of one result set) in one call, each in
    /// place as [`Aead::open_in_place`]; `items[i].len` receives the plaintext
    /// length of item `i` (its plaintext is `items[i].buf[..len]`).
    ///
    /// The provided version loops; a backend may do better (one context lookup per
    /// batch, interleaved blocks). Stops at the first failure.
    ///
    /// # Errors
    /// [`BatchError`] with the index of the first item that failed and its error
    /// (an opaque [`Error::Decrypt`] for authentication failures).
    fn open_batch(&self, items: &mut [OpenItem<'_>]) -> Result<(), BatchError> {
        for (index, item) in items.iter_mut().enumerate() {
            match self.open_in_place(item.nonce, item.aad, item.buf) {
                Ok(plaintext) => item.len = plaintext.len(),
                Err(error) => return Err(BatchError { index, error }),
            }
        }
        Ok(())
    }

    /// Seals a batch of values in one call, each as [`Aead::seal_in_place`]
    /// (`items[i].buf` holds a plaintext on entry and `ciphertext || tag` on return).
    ///
    /// # Errors
    /// [`BatchError`] with the index of the first item that failed.
    fn seal_batch(&self, items: &mut [SealItem<'_>]) -> Result<(), BatchError> {
        for (index, item) in items.iter_mut().enumerate() {
            self.seal_in_place(item.nonce, item.aad, item.buf)
                .map_err(|error| BatchError { index, error })?;
        }
        Ok(())
    }
}

/// One value of a batch to open: nonce, AAD, and `ciphertext || tag` to open in place.
#[derive(Debug)]
pub struct OpenItem<'a> {
    /// The nonce ([`Algorithm::nonce_len`] bytes).
    pub nonce: &'a [u8],
    /// The associated data.
    pub aad: &'a [u8],
    /// `ciphertext || tag` on entry; the plaintext in `buf[..len]` on success.
    pub buf: &'a mut [u8],
    /// Plaintext length in bytes, set by [`Aead::open_batch`].
    pub len: usize,
}

impl<'a> OpenItem<'a> {
    /// An item to open; `len` starts at 0.
    pub fn new(nonce: &'a [u8], aad: &'a [u8], buf: &'a mut [u8]) -> OpenItem<'a> {
        OpenItem {
            nonce,
            aad,
            buf,
            len: 0,
        }
    }

    /// The plaintext after a successful [`Aead::open_batch`].
    pub fn plaintext(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// One value of a batch to seal.
#[derive(Debug)]
pub struct SealItem<'a> {
    /// A fresh nonce ([`Algorithm::nonce_len`] bytes), never reused under the key.
    pub nonce: &'a [u8],
    /// The associated data.
    pub aad: &'a [u8],
    /// The plaintext on entry; `ciphertext || tag` on return.
    pub buf: &'a mut Vec<u8>,
}

/// The first failure of a batch call: which item, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("batch item {index}: {error}")]
pub struct BatchError {
    /// Index of the failed item in the batch (0-based).
    pub index: usize,
    /// Its error.
    #[source]
    pub error: Error,
}

/// Deterministic authenticated encryption: the same key, plaintext and AAD always
/// give the same sealed value, so an encrypted column can be searched by equality
/// (`WHERE c = ?` with the sealed value). It leaks equality of plaintexts by design,
/// and is only ever implemented by algorithms built for it (AES-SIV's synthetic IV,
/// RFC 5297; Always Encrypted's HMAC-derived IV), never by reusing a GCM nonce.
///
/// Sealed formats:
/// - AES-256-SIV: `SIV (16 bytes) || ciphertext`, RFC 5297 section 2.6 with the AAD
///   as the only S2V header.
/// - AES-256-CBC-HMAC-SHA256: Always Encrypted's cell,
///   `version 0x01 || MAC (32) || IV (16) || ciphertext (PKCS#7-padded)`. The AAD
///   must be empty for a byte-exact Always Encrypted cell; a non-empty AAD is
///   appended to the MAC input followed by its length (8 bytes, big-endian).
pub trait DeterministicAead: Send + Sync {
    /// The algorithm this key is for.
    fn algorithm(&self) -> Algorithm;

    /// The library that implements it, as in `BACKEND:ALGORITHM` names.
    fn backend(&self) -> &'static str;

    /// Seals `plaintext` under `aad` into `out` (contents replaced, allocation reused).
    ///
    /// # Errors
    /// [`Error::TooLong`] past the algorithm's limit; [`Error::Backend`] when the
    /// library fails. On error `out` is empty.
    fn seal(&self, aad: &[u8], plaintext: &[u8], out: &mut Vec<u8>) -> Result<(), Error>;

    /// Opens `sealed` under `aad` into `out` (contents replaced, allocation reused).
    ///
    /// # Errors
    /// [`Error::Decrypt`] (opaque) when authentication fails or `sealed` is
    /// malformed; on error `out` is zeroed and empty.
    fn open(&self, aad: &[u8], sealed: &[u8], out: &mut Vec<u8>) -> Result<(), Error>;

    /// [`DeterministicAead::seal`] into a new vector.
    ///
    /// # Errors
    /// As [`DeterministicAead::seal`].
    fn seal_to_vec(&self, aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        self.seal(aad, plaintext, &mut out)?;
        Ok(out)
    }

    /// [`DeterministicAead::open`] into a new vector.
    ///
    /// # Errors
    /// As [`DeterministicAead::open`].
    fn open_to_vec(&self, aad: &[u8], sealed: &[u8]) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        self.open(aad, sealed, &mut out)?;
        Ok(out)
    }
}

impl std::fmt::Debug for dyn DeterministicAead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{} (deterministic) {{ key: <redacted> }}",
            self.backend(),
            self.algorithm()
        )
    }
}

/// What a backend exports for each deterministic algorithm it implements (static,
/// like [`Descriptor`]).
#[derive(Clone, Copy)]
pub struct DeterministicDescriptor {
    /// Backend name as used on the command line.
    pub backend: &'static str,
    /// The algorithm ([`Algorithm::has_deterministic_form`]).
    pub algorithm: Algorithm,
    /// Sets up a key (key schedule and, for Always Encrypted, key derivation) once.
    ///
    /// # Errors
    /// [`Error::KeyLength`] for a key of the wrong length; [`Error::Backend`].
    #[allow(
        clippy::type_complexity,
        reason = "the signature, spelled out, is the documentation of what a backend provides"
    )]
    pub new_key: fn(key: &[u8]) -> Result<Box<dyn DeterministicAead>, Error>,
}

impl DeterministicDescriptor {
    /// `BACKEND:ALGORITHM`, e.g. `openssl:aes-256-siv`.
    pub fn name(&self) -> String {
        format!("{}:{}", self.backend, self.algorithm.name())
    }
}

impl std::fmt::Debug for DeterministicDescriptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeterministicDescriptor")
            .field("backend", &self.backend)
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for dyn Aead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{} {{ key: <redacted> }}",
            self.backend(),
            self.algorithm()
        )
    }
}

/// What a backend crate exports for each algorithm it implements: a static
/// value, like a rustls provider's cipher suite list.
#[derive(Clone, Copy)]
pub struct Descriptor {
    /// Backend name as used on the command line (`rustcrypto`, `openssl`).
    pub backend: &'static str,
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Sets up a key: runs the key schedule once and returns the keyed AEAD.
    ///
    /// # Errors
    /// [`Error::KeyLength`] when `key` is not [`Algorithm::key_len`] bytes;
    /// [`Error::Backend`] when the library cannot set the key up.
    #[allow(
        clippy::type_complexity,
        reason = "the signature, spelled out, is the documentation of what a backend provides"
    )]
    pub new_key: fn(key: &[u8]) -> Result<Box<dyn Aead>, Error>,
}

impl Descriptor {
    /// `BACKEND:ALGORITHM`, e.g. `openssl:aes-256-gcm`.
    pub fn name(&self) -> String {
        format!("{}:{}", self.backend, self.algorithm.name())
    }
}

impl std::fmt::Debug for Descriptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Descriptor")
            .field("backend", &self.backend)
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}
