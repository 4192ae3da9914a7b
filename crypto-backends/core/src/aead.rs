//! The AEAD trait every backend implements, and the descriptor each backend exports.

use std::ops::RangeFrom;

use crate::{Algorithm, Error};

/// One AEAD algorithm under one key, set up once (key schedule done in
/// [`Descriptor::new_key`]) and then shared by all threads. Every algorithm
/// implements it, the padded CBC one included.
///
/// The required surface is in-place seal and open on a caller's buffer, with the
/// tag appended (`ciphertext || tag`, [`Algorithm::sealed_len`] bytes). The
/// length-preserving algorithms also have the detached form, the per-row hot
/// path, through [`Aead::detached`]: every backend that implements
/// [`DetachedAead`] gets this trait from it, once, in this crate.
///
/// Implementations never log or print key material; `Debug` output, where
/// implemented, shows the algorithm only.
pub trait Aead: Send + Sync {
    /// The algorithm this key is for.
    fn algorithm(&self) -> Algorithm;

    /// The library that implements it, as used in `BACKEND:ALGORITHM` names
    /// (`rustcrypto`, `openssl`).
    fn backend(&self) -> &'static str;

    /// Seals `buf` in place: on entry it holds the plaintext; on success it holds
    /// `ciphertext || tag` ([`Algorithm::sealed_len`] bytes; it grows by the tag, and
    /// by the padding for the CBC algorithm). `nonce` is [`Algorithm::nonce_len`]
    /// bytes and must never repeat under the same key (use [`crate::random_nonce`]).
    ///
    /// # Errors
    /// [`Error::NonceLength`] for a nonce of the wrong size, [`Error::TooLong`] past
    /// the algorithm's limit, [`Error::Backend`] when the library fails. On error
    /// `buf` is zeroed and cleared.
    fn seal_in_place(&self, nonce: &[u8], aad: &[u8], buf: &mut Vec<u8>) -> Result<(), Error>;

    /// Opens `buf` (`ciphertext || tag`) in place and returns the plaintext, a
    /// prefix of `buf`. Does not allocate.
    ///
    /// # Errors
    /// [`Error::Decrypt`] when authentication fails (opaque on purpose) or `buf` is
    /// shorter than the tag; then `buf` holds unspecified bytes. [`Error::NonceLength`]
    /// for a nonce of the wrong size.
    fn open_in_place<'b>(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &'b mut [u8],
    ) -> Result<&'b mut [u8], Error>;

    /// Opens `in_out[ciphertext_and_tag]` (`ciphertext || tag`, after a prefix of
    /// `ciphertext_and_tag.start` bytes the caller no longer needs, e.g. an
    /// envelope's header and nonce) and leaves the plaintext at the *front* of
    /// `in_out`: returns `in_out[..plaintext length]`. Equal to
    /// [`Aead::open_in_place`] on `in_out[start..]` followed by moving the plaintext
    /// to offset 0 (the provided method does exactly that); ring's and aws-lc-rs's
    /// `open_within` is the model. Does not allocate.
    ///
    /// # Errors
    /// As [`Aead::open_in_place`]; [`Error::Decrypt`] also when `start` is past
    /// the end of `in_out`. On any error all of `in_out` is zeroed.
    fn open_within<'b>(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &'b mut [u8],
        ciphertext_and_tag: RangeFrom<usize>,
    ) -> Result<&'b mut [u8], Error> {
        let start = ciphertext_and_tag.start;
        let opened = match in_out.get_mut(start..) {
            Some(sealed) => self.open_in_place(nonce, aad, sealed).map(|p| p.len()),
            None => Err(Error::Decrypt),
        };
        match opened {
            Ok(len) => {
                in_out.copy_within(start..start + len, 0);
                Ok(&mut in_out[..len])
            }
            Err(e) => {
                in_out.fill(0);
                Err(e)
            }
        }
    }

    /// The detached, in-place form of this key: `Some` exactly for the
    /// length-preserving algorithms ([`Algorithm::is_length_preserving`]: all but
    /// the padded CBC one), `None` otherwise. The same key object, no copy.
    fn detached(&self) -> Option<&dyn DetachedAead> {
        None
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
}

/// A length-preserving AEAD under one key: the ciphertext has the plaintext's
/// length and the tag is separate. This is what a backend implements for such an
/// algorithm (GCM, ChaCha20-Poly1305, GCM-SIV, SIV); [`Aead`] follows from it.
/// Modeled on RustCrypto's `aead::AeadInPlace`.
///
/// Both methods must not allocate: they are the per-row hot path of a decrypting
/// proxy. Callers holding a `Box<dyn Aead>` reach them through [`Aead::detached`].
pub trait DetachedAead: Send + Sync {
    /// The algorithm this key is for.
    fn algorithm(&self) -> Algorithm;

    /// The library that implements it, as in `BACKEND:ALGORITHM` names.
    fn backend(&self) -> &'static str;

    /// Encrypts `in_out` in place and writes the authentication tag to `tag`.
    ///
    /// `nonce` is [`Algorithm::nonce_len`] bytes, `tag` [`Algorithm::tag_len`] bytes;
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
    /// decrypts `in_out` in place (sizes as [`DetachedAead::seal_in_place_detached`]).
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

    /// [`Aead::open_within`] for a length-preserving AEAD: `in_out` is
    /// `prefix || ciphertext || tag` with the ciphertext at
    /// `ciphertext_and_tag.start`; on success the plaintext is `in_out[..len]`
    /// (returned as its length). The provided method is [`open_within_by_move`]:
    /// it decrypts in place with [`DetachedAead::open_in_place_detached`] and
    /// then moves the plaintext to the front (`copy_within`); a backend whose
    /// library decrypts to a lower offset in one pass (ring's
    /// `open_in_place_separate_tag` with a `RangeFrom` source) overrides it.
    /// Must not allocate.
    ///
    /// # Errors
    /// As [`DetachedAead::open_in_place_detached`]; [`Error::Decrypt`] when
    /// `in_out` is shorter than `start` plus the tag. On any error all of
    /// `in_out` is zeroed.
    // Inlined into `Aead::open_within`, its caller through `dyn Aead`: one call
    // fewer per value (callgrind, column-bench/README.md, "The envelope's cost").
    #[inline(always)]
    fn open_within_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        ciphertext_and_tag: RangeFrom<usize>,
    ) -> Result<usize, Error> {
        open_within_by_move(self, nonce, aad, in_out, ciphertext_and_tag)
    }
}

/// The provided [`DetachedAead::open_within_detached`]: for a backend whose
/// library decrypts only in place (AWS-LC's `EVP_AEAD_CTX_open_gather`,
/// RustCrypto's `AeadInPlace`, OpenSSL's `EVP_DecryptUpdate` here). `in_out` is
/// `prefix || ciphertext || tag`, the ciphertext at `ciphertext_and_tag.start`;
/// [`DetachedAead::open_in_place_detached`] decrypts the ciphertext in place,
/// then `copy_within` moves the plaintext to `in_out[..len]`; returns `len`.
/// Exactly the old envelope path (open in place, then move in the envelope),
/// at its cost: callgrind, column-bench/README.md, "The envelope's cost".
///
/// # Errors
/// As [`DetachedAead::open_in_place_detached`]; [`Error::Decrypt`] when
/// `in_out` is shorter than `start` plus the tag. On any error all of
/// `in_out` is zeroed.
#[inline(always)]
pub fn open_within_by_move<A: DetachedAead + ?Sized>(
    aead: &A,
    nonce: &[u8],
    aad: &[u8],
    in_out: &mut [u8],
    ciphertext_and_tag: RangeFrom<usize>,
) -> Result<usize, Error> {
    let start = ciphertext_and_tag.start;
    let tag_len = aead.algorithm().tag_len();
    let Some(tag_at) = in_out.len().checked_sub(tag_len).filter(|&t| t >= start) else {
        return Err(zeroed(in_out, Error::Decrypt));
    };
    let (body, tag) = in_out.split_at_mut(tag_at);
    let (_, ciphertext) = body.split_at_mut(start);
    if let Err(e) = aead.open_in_place_detached(nonce, aad, ciphertext, tag) {
        return Err(zeroed(in_out, e));
    }
    body.copy_within(start.., 0);
    Ok(tag_at - start)
}

/// Zeroes `in_out` after a failed open and returns `e` (out of line: the
/// error path of the per-value open).
#[cold]
#[inline(never)]
fn zeroed(in_out: &mut [u8], e: Error) -> Error {
    in_out.fill(0);
    e
}

/// Fails closed: passes `result` through, but when it is an error first
/// overwrites all of `out` with zeros and empties it, so no plaintext (a
/// backend may decrypt before it checks the tag) and no half-sealed value
/// stays in the buffer the caller reuses.
pub(crate) fn fail_closed<T, E>(out: &mut Vec<u8>, result: Result<T, E>) -> Result<T, E> {
    if result.is_err() {
        out.fill(0);
        out.clear();
    }
    result
}

/// The allocating and appended-tag API, written once for every length-preserving
/// backend on top of its two detached calls.
impl<T: DetachedAead> Aead for T {
    fn algorithm(&self) -> Algorithm {
        DetachedAead::algorithm(self)
    }

    fn backend(&self) -> &'static str {
        DetachedAead::backend(self)
    }

    fn seal_in_place(&self, nonce: &[u8], aad: &[u8], buf: &mut Vec<u8>) -> Result<(), Error> {
        let len = buf.len();
        buf.resize(len + DetachedAead::algorithm(self).tag_len(), 0);
        let (body, tag) = buf.split_at_mut(len);
        let sealed = self.seal_in_place_detached(nonce, aad, body, tag);
        fail_closed(buf, sealed)
    }

    fn open_in_place<'b>(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &'b mut [u8],
    ) -> Result<&'b mut [u8], Error> {
        let tag_len = DetachedAead::algorithm(self).tag_len();
        let body_len = buf.len().checked_sub(tag_len).ok_or(Error::Decrypt)?;
        let (body, tag) = buf.split_at_mut(body_len);
        self.open_in_place_detached(nonce, aad, body, tag)?;
        Ok(body)
    }

    fn open_within<'b>(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &'b mut [u8],
        ciphertext_and_tag: RangeFrom<usize>,
    ) -> Result<&'b mut [u8], Error> {
        let len = self.open_within_detached(nonce, aad, in_out, ciphertext_and_tag)?;
        Ok(&mut in_out[..len])
    }

    fn detached(&self) -> Option<&dyn DetachedAead> {
        Some(self)
    }
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
/// like [`Descriptor`]). Built with [`DeterministicDescriptor::new`]; keys come
/// from [`DeterministicDescriptor::new_key`].
#[derive(Clone, Copy)]
pub struct DeterministicDescriptor {
    /// Backend name as used on the command line.
    pub backend: &'static str,
    /// The algorithm ([`Algorithm::has_deterministic_form`]).
    pub algorithm: Algorithm,
    /// The backend's key setup, given [`DeterministicDescriptor::algorithm`].
    key_setup: DeterministicKeySetup,
}

/// A backend's deterministic key setup function: `(algorithm, key bytes) -> keyed
/// deterministic AEAD`.
pub type DeterministicKeySetup =
    fn(algorithm: Algorithm, key: &[u8]) -> Result<Box<dyn DeterministicAead>, Error>;

impl DeterministicDescriptor {
    /// The deterministic descriptor of `algorithm` in `backend`, whose keys
    /// `key_setup` sets up (it is called with `algorithm`).
    pub const fn new(
        backend: &'static str,
        algorithm: Algorithm,
        key_setup: DeterministicKeySetup,
    ) -> Self {
        DeterministicDescriptor {
            backend,
            algorithm,
            key_setup,
        }
    }

    /// Sets up a key (key schedule and, for Always Encrypted, key derivation) once.
    ///
    /// # Errors
    /// [`Error::KeyLength`] for a key of the wrong length; [`Error::Backend`].
    pub fn new_key(&self, key: &[u8]) -> Result<Box<dyn DeterministicAead>, Error> {
        (self.key_setup)(self.algorithm, key)
    }

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

impl std::fmt::Debug for dyn DetachedAead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{} (detached) {{ key: <redacted> }}",
            self.backend(),
            self.algorithm()
        )
    }
}

/// What a backend crate exports for each algorithm it implements: a static
/// value, like a rustls provider's cipher suite list. Built with
/// [`Descriptor::new`]; keys come from [`Descriptor::new_key`].
#[derive(Clone, Copy)]
pub struct Descriptor {
    /// Backend name as used on the command line (`rustcrypto`, `openssl`).
    pub backend: &'static str,
    /// The algorithm.
    pub algorithm: Algorithm,
    /// The backend's key setup, given [`Descriptor::algorithm`] and the key bytes
    /// (one function may serve all of a backend's algorithms).
    key_setup: KeySetup,
}

/// A backend's key setup function: `(algorithm, key bytes) -> keyed AEAD`.
pub type KeySetup = fn(algorithm: Algorithm, key: &[u8]) -> Result<Box<dyn Aead>, Error>;

impl Descriptor {
    /// The descriptor of `algorithm` in `backend`, whose keys `key_setup` sets up
    /// (it is called with `algorithm`).
    pub const fn new(backend: &'static str, algorithm: Algorithm, key_setup: KeySetup) -> Self {
        Descriptor {
            backend,
            algorithm,
            key_setup,
        }
    }

    /// Sets up a key: runs the key schedule once and returns the keyed AEAD.
    ///
    /// # Errors
    /// [`Error::KeyLength`] when `key` is not [`Algorithm::key_len`] bytes;
    /// [`Error::Backend`] when the library cannot set the key up.
    pub fn new_key(&self, key: &[u8]) -> Result<Box<dyn Aead>, Error> {
        (self.key_setup)(self.algorithm, key)
    }

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
