//! The keyed AEAD: a cipher fetched once, per-thread contexts keyed once, and
//! per message only the IV.

use std::cell::{RefCell, RefMut};
use std::fmt;

use encbench_crypto::{Aead, Algorithm, DetachedAead, Error};
use openssl::cipher::{Cipher, CipherRef};
use openssl::cipher_ctx::{CipherCtx, CipherCtxRef};
use openssl::error::ErrorStack;
use thread_local::ThreadLocal;
use zeroize::Zeroizing;

/// The backend name used in `BACKEND:ALGORITHM` names.
pub(crate) const BACKEND: &str = "openssl";

/// Largest slice given to one `EVP_CipherUpdate` call, in bytes: the call takes
/// an `int` length, so longer AAD and messages go in chunks of 1 GiB.
pub(crate) const MAX_UPDATE: usize = 1 << 30;

/// Output room for `EVP_CipherFinal_ex`, in bytes. GCM and ChaCha20-Poly1305 are
/// stream modes and write nothing there; the openssl crate asks for a block's room.
const FINAL_ROOM: usize = 16;

/// The OpenSSL name of `algorithm`, as given to `EVP_CIPHER_fetch`.
fn openssl_name(algorithm: Algorithm) -> Result<&'static str, Error> {
    match algorithm {
        Algorithm::Aes128Gcm => Ok("AES-128-GCM"),
        Algorithm::Aes256Gcm => Ok("AES-256-GCM"),
        Algorithm::ChaCha20Poly1305 => Ok("ChaCha20-Poly1305"),
        other => Err(Error::Backend(format!(
            "{BACKEND} does not implement {other}"
        ))),
    }
}

/// [`Error::Backend`] naming the EVP call that failed and OpenSSL's reason.
pub(crate) fn backend_error(call: &str, e: &ErrorStack) -> Error {
    Error::Backend(format!("{call}: {e}"))
}

/// Sets up a key of AES-GCM or ChaCha20-Poly1305: fetches the cipher once and
/// checks its sizes.
pub(crate) fn new_key(algorithm: Algorithm, key: &[u8]) -> Result<Box<dyn Aead>, Error> {
    let name = openssl_name(algorithm)?;
    Ok(Box::new(OpensslAead::keyed(
        algorithm,
        name,
        key,
        algorithm.key_len(),
        algorithm.nonce_len(),
    )?))
}

/// Which way a per-thread context was keyed.
#[derive(Clone, Copy)]
pub(crate) enum Direction {
    Seal,
    Open,
}

impl Direction {
    /// This direction's EVP init and update calls, as named in errors.
    fn calls(self) -> (&'static str, &'static str) {
        match self {
            Direction::Seal => ("EVP_EncryptInit_ex", "EVP_EncryptUpdate"),
            Direction::Open => ("EVP_DecryptInit_ex", "EVP_DecryptUpdate"),
        }
    }

    /// `EVP_EncryptInit_ex` or `EVP_DecryptInit_ex` on `ctx` with what is given
    /// (`None`: kept as set before); `what` names the step in an error.
    pub(crate) fn init(
        self,
        ctx: &mut CipherCtxRef,
        cipher: Option<&CipherRef>,
        key: Option<&[u8]>,
        iv: Option<&[u8]>,
        what: &str,
    ) -> Result<(), Error> {
        match self {
            Direction::Seal => ctx.encrypt_init(cipher, key, iv),
            Direction::Open => ctx.decrypt_init(cipher, key, iv),
        }
        .map_err(|e| backend_error(&format!("{} ({what})", self.calls().0), &e))
    }
}

/// One OpenSSL AEAD under one key. `Debug` shows the algorithm only.
pub(crate) struct OpensslAead {
    algorithm: Algorithm,
    /// Fetched once in [`new_key`].
    cipher: Cipher,
    /// The key bytes, kept (zeroized on drop) because a thread that has not used
    /// this key yet may appear at any time and needs its contexts keyed.
    key: Zeroizing<Vec<u8>>,
    /// Per thread: a context keyed for encryption.
    seal: ThreadLocal<RefCell<CipherCtx>>,
    /// Per thread: a context keyed for decryption.
    open: ThreadLocal<RefCell<CipherCtx>>,
}

impl OpensslAead {
    /// Fetches the OpenSSL cipher `name` once and keeps `key` (zeroized on drop) for
    /// the per-thread contexts. OpenSSL must agree on the sizes: `key_len` bytes of
    /// key and an IV of `iv_len` bytes (0 for SIV, which has none).
    ///
    /// # Errors
    /// [`Error::KeyLength`] when `key` is not `algorithm`'s key length;
    /// [`Error::Backend`] when the cipher cannot be fetched or has other sizes.
    pub(crate) fn keyed(
        algorithm: Algorithm,
        name: &str,
        key: &[u8],
        key_len: usize,
        iv_len: usize,
    ) -> Result<OpensslAead, Error> {
        if key.len() != key_len {
            Error::check_key(algorithm, key.len())?;
        }
        let cipher = Cipher::fetch(None, name, None)
            .map_err(|e| backend_error(&format!("EVP_CIPHER_fetch({name})"), &e))?;
        // The openssl crate asserts (panics) on short keys and IVs: make sure OpenSSL
        // agrees with our sizes before any context sees them.
        if cipher.key_length() != key_len || cipher.iv_length() != iv_len {
            return Err(Error::Backend(format!(
                "EVP_CIPHER_fetch({name}): OpenSSL reports a {}-byte key and a {}-byte IV, expected {key_len} and {iv_len}",
                cipher.key_length(),
                cipher.iv_length(),
            )));
        }
        Ok(OpensslAead {
            algorithm,
            cipher,
            key: Zeroizing::new(key.to_vec()),
            seal: ThreadLocal::new(),
            open: ThreadLocal::new(),
        })
    }

    /// This thread's context for `direction`, created and keyed on first use.
    pub(crate) fn context(&self, direction: Direction) -> Result<RefMut<'_, CipherCtx>, Error> {
        let slot = match direction {
            Direction::Seal => &self.seal,
            Direction::Open => &self.open,
        };
        let cell = slot.get_or_try(|| self.keyed_context(direction))?;
        cell.try_borrow_mut().map_err(|_| {
            Error::Backend(format!(
                "{BACKEND}: this thread's cipher context is already in use"
            ))
        })
    }

    /// A new context with cipher and key set, no IV yet.
    fn keyed_context(&self, direction: Direction) -> Result<RefCell<CipherCtx>, Error> {
        let mut ctx = CipherCtx::new().map_err(|e| backend_error("EVP_CIPHER_CTX_new", &e))?;
        direction.init(&mut ctx, Some(&self.cipher), Some(&self.key), None, "key")?;
        Ok(RefCell::new(ctx))
    }

    /// Sets the key again on this thread's context for `direction` (for ciphers
    /// whose context cannot start a new message without it, such as AES-SIV).
    pub(crate) fn rekey(&self, ctx: &mut CipherCtx, direction: Direction) -> Result<(), Error> {
        direction.init(ctx, None, Some(&self.key), None, "key")
    }

    /// One message up to the final call, on this thread's `direction` context: sets
    /// `nonce` as the IV, feeds `aad`, and encrypts or decrypts `in_out` in place.
    /// Returns the context for the final call and the tag.
    fn update(
        &self,
        direction: Direction,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
    ) -> Result<RefMut<'_, CipherCtx>, Error> {
        let update = direction.calls().1;
        let mut ctx = self.context(direction)?;
        direction.init(&mut ctx, None, None, Some(nonce), "IV")?;
        for chunk in aad.chunks(MAX_UPDATE) {
            ctx.cipher_update(chunk, None)
                .map_err(|e| backend_error(&format!("{update} (AAD)"), &e))?;
        }
        for chunk in in_out.chunks_mut(MAX_UPDATE) {
            let len = chunk.len();
            let written = ctx
                .cipher_update_inplace(chunk, len)
                .map_err(|e| backend_error(update, &e))?;
            check_written(update, written, len)?;
        }
        Ok(ctx)
    }

    /// Checks nonce, tag and message lengths before any call that could panic on them.
    fn check_lengths(&self, nonce_len: usize, tag_len: usize, len: usize) -> Result<(), Error> {
        let max = self.algorithm.max_plaintext_len();
        Error::check_lengths(self.algorithm, max, nonce_len, tag_len, len)
    }
}

/// Stream modes write exactly as many bytes as they read.
fn check_written(call: &str, written: usize, expected: usize) -> Result<(), Error> {
    if written == expected {
        Ok(())
    } else {
        Err(Error::Backend(format!(
            "{call} wrote {written} bytes, expected {expected}"
        )))
    }
}

impl DetachedAead for OpensslAead {
    fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    fn backend(&self) -> &'static str {
        BACKEND
    }

    fn seal_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), Error> {
        self.check_lengths(nonce.len(), tag.len(), in_out.len())?;
        let mut ctx = self.update(Direction::Seal, nonce, aad, in_out)?;
        let mut rest = [0u8; FINAL_ROOM];
        let written = ctx
            .cipher_final(&mut rest)
            .map_err(|e| backend_error("EVP_EncryptFinal_ex", &e))?;
        check_written("EVP_EncryptFinal_ex", written, 0)?;
        ctx.tag(tag)
            .map_err(|e| backend_error("EVP_CIPHER_CTX_ctrl (get tag)", &e))
    }

    fn open_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        self.check_lengths(nonce.len(), tag.len(), in_out.len())?;
        let opened = (|| {
            let mut ctx = self.update(Direction::Open, nonce, aad, in_out)?;
            ctx.set_tag(tag)
                .map_err(|e| backend_error("EVP_CIPHER_CTX_ctrl (set tag)", &e))?;
            let mut rest = [0u8; FINAL_ROOM];
            // The only failure of the final call in decryption is a tag mismatch.
            let written = ctx.cipher_final(&mut rest).map_err(|_| Error::Decrypt)?;
            check_written("EVP_DecryptFinal_ex", written, 0)
        })();
        if opened.is_err() {
            // OpenSSL decrypts before it checks the tag: leave nothing behind.
            in_out.fill(0);
        }
        opened
    }
}

impl fmt::Debug for OpensslAead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpensslAead")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_name_this_backend_and_every_algorithm_once() {
        let algorithms: Vec<Algorithm> = crate::ALGORITHMS.iter().map(|d| d.algorithm).collect();
        let mut sorted = algorithms.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(algorithms, sorted, "in Algorithm order, each once");
        assert!(crate::ALGORITHMS.iter().all(|d| d.backend == BACKEND));
    }

    #[test]
    fn too_long_is_a_typed_error() {
        let max = (1u64 << 36) - 32;
        assert_eq!(
            Error::check_lengths(Algorithm::Aes256Gcm, max, 12, 16, 1000),
            Ok(())
        );
        if let Ok(len) = usize::try_from(max + 1) {
            assert_eq!(
                Error::check_lengths(Algorithm::Aes256Gcm, max, 12, 16, len),
                Err(Error::TooLong {
                    algorithm: Algorithm::Aes256Gcm,
                    max,
                    actual: max + 1
                })
            );
        }
    }

    #[test]
    fn one_context_per_thread_and_direction() -> Result<(), Error> {
        let key = [7u8; 16];
        let aead = OpensslAead {
            algorithm: Algorithm::Aes128Gcm,
            cipher: Cipher::fetch(None, "AES-128-GCM", None)
                .map_err(|e| backend_error("fetch", &e))?,
            key: Zeroizing::new(key.to_vec()),
            seal: ThreadLocal::new(),
            open: ThreadLocal::new(),
        };
        let nonce = [1u8; 12];
        let mut tag = [0u8; 16];
        for _ in 0..3 {
            let mut data = *b"row";
            aead.seal_in_place_detached(&nonce, b"", &mut data, &mut tag)?;
            aead.open_in_place_detached(&nonce, b"", &mut data, &tag)?;
            assert_eq!(&data, b"row");
        }
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut data = *b"row";
                let mut tag = [0u8; 16];
                aead.seal_in_place_detached(&nonce, b"", &mut data, &mut tag)
            })
            .join()
            .map_err(|_| Error::Backend("thread panicked".into()))?
        })?;
        let mut seal = aead.seal;
        let mut open = aead.open;
        assert_eq!(seal.iter_mut().count(), 2, "one seal context per thread");
        assert_eq!(open.iter_mut().count(), 1, "the second thread never opened");
        Ok(())
    }

    #[test]
    fn debug_shows_no_key_material() -> Result<(), Error> {
        let aead = crate::descriptor(Algorithm::Aes256Gcm).new_key(&[0xa5; 32])?;
        assert_eq!(
            format!("{aead:?}"),
            "openssl:aes-256-gcm { key: <redacted> }"
        );
        Ok(())
    }
}
