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
    /// decrypts `in_out` in place.
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

    /// Encrypts `plaintext` into a new vector `ciphertext || tag`.
    ///
    /// # Errors
    /// As [`Aead::seal_in_place_detached`].
    fn seal_to_vec(&self, nonce: &[u8], aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>, Error> {
        let tag_len = self.algorithm().tag_len();
        let mut out = Vec::with_capacity(plaintext.len() + tag_len);
        out.extend_from_slice(plaintext);
        out.resize(plaintext.len() + tag_len, 0);
        let (body, tag) = out.split_at_mut(plaintext.len());
        self.seal_in_place_detached(nonce, aad, body, tag)?;
        Ok(out)
    }

    /// Decrypts `ciphertext || tag` into a new vector.
    ///
    /// # Errors
    /// As [`Aead::open_in_place_detached`]; an input shorter than the tag is
    /// [`Error::Decrypt`].
    fn open_to_vec(&self, nonce: &[u8], aad: &[u8], sealed: &[u8]) -> Result<Vec<u8>, Error> {
        let tag_len = self.algorithm().tag_len();
        let body_len = sealed.len().checked_sub(tag_len).ok_or(Error::Decrypt)?;
        let (body, tag) = sealed.split_at(body_len);
        let mut out = body.to_vec();
        self.open_in_place_detached(nonce, aad, &mut out, tag)?;
        Ok(out)
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
