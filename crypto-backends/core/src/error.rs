//! The error type shared by every backend.

use crate::Algorithm;

/// Errors of key setup, seal and open.
///
/// Every variant but [`Error::Decrypt`] describes public facts (lengths, names)
/// and says what to fix. [`Error::Decrypt`] is deliberately opaque: a wrong key,
/// a flipped bit in the nonce, ciphertext, tag or AAD all give the same error,
/// so that callers cannot become a decryption oracle.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The key does not have the algorithm's key length.
    #[error("{algorithm} needs a {expected}-byte key, got {actual} bytes")]
    KeyLength {
        /// The algorithm the key was for.
        algorithm: Algorithm,
        /// The required length in bytes.
        expected: usize,
        /// The length given, in bytes.
        actual: usize,
    },
    /// The nonce does not have the algorithm's nonce length.
    #[error("{algorithm} needs a {expected}-byte nonce, got {actual} bytes")]
    NonceLength {
        /// The algorithm.
        algorithm: Algorithm,
        /// The required length in bytes.
        expected: usize,
        /// The length given, in bytes.
        actual: usize,
    },
    /// The tag buffer does not have the algorithm's tag length.
    #[error("{algorithm} needs a {expected}-byte tag, got {actual} bytes")]
    TagLength {
        /// The algorithm.
        algorithm: Algorithm,
        /// The required length in bytes.
        expected: usize,
        /// The length given, in bytes.
        actual: usize,
    },
    /// The message is longer than the algorithm (or the backend) can process
    /// in one call.
    #[error("{algorithm} can process at most {max} bytes in one message, got {actual}")]
    TooLong {
        /// The algorithm.
        algorithm: Algorithm,
        /// The largest length accepted, in bytes.
        max: u64,
        /// The length given, in bytes.
        actual: u64,
    },
    /// A key could not be read from where it was said to be (file, environment
    /// variable). The text names the source and the fix, never the key.
    #[error("{0}")]
    KeySource(String),
    /// A key given as text was not valid hexadecimal.
    #[error("key is not valid hex: give 2 hex digits per key byte")]
    KeyHex,
    /// The backend library reported a failure that is not a decryption failure
    /// (for example OpenSSL could not fetch the cipher). The text names the library call.
    #[error("backend failure: {0}")]
    Backend(String),
    /// The operating system's random number generator failed.
    #[error("the operating system's random number generator failed")]
    Rng,
    /// Decryption failed: wrong key, or nonce, ciphertext, tag or AAD altered.
    /// Carries no detail on purpose.
    #[error("decryption failed (wrong key, or the value was altered or moved)")]
    Decrypt,
}

impl Error {
    /// Checks `actual` against `expected`, returning [`Error::NonceLength`].
    ///
    /// # Errors
    /// When the lengths differ.
    pub fn check_nonce(algorithm: Algorithm, actual: usize) -> Result<(), Error> {
        let expected = algorithm.nonce_len();
        if actual == expected {
            Ok(())
        } else {
            Err(Error::NonceLength {
                algorithm,
                expected,
                actual,
            })
        }
    }

    /// Checks `actual` against the algorithm's tag length, returning [`Error::TagLength`].
    ///
    /// # Errors
    /// When the lengths differ.
    pub fn check_tag(algorithm: Algorithm, actual: usize) -> Result<(), Error> {
        let expected = algorithm.tag_len();
        if actual == expected {
            Ok(())
        } else {
            Err(Error::TagLength {
                algorithm,
                expected,
                actual,
            })
        }
    }

    /// Checks `actual` against the algorithm's key length, returning [`Error::KeyLength`].
    ///
    /// # Errors
    /// When the lengths differ.
    pub fn check_key(algorithm: Algorithm, actual: usize) -> Result<(), Error> {
        let expected = algorithm.key_len();
        if actual == expected {
            Ok(())
        } else {
            Err(Error::KeyLength {
                algorithm,
                expected,
                actual,
            })
        }
    }

    /// The checks every backend runs before calling its library: nonce and tag
    /// lengths of `algorithm`, and a message of `len` bytes against `max` (the
    /// algorithm's [`Algorithm::max_plaintext_len`], or a lower limit of the
    /// backend's library).
    ///
    /// # Errors
    /// [`Error::NonceLength`], [`Error::TagLength`] or [`Error::TooLong`].
    pub fn check_lengths(
        algorithm: Algorithm,
        max: u64,
        nonce_len: usize,
        tag_len: usize,
        len: usize,
    ) -> Result<(), Error> {
        Error::check_nonce(algorithm, nonce_len)?;
        Error::check_tag(algorithm, tag_len)?;
        let actual = u64::try_from(len).unwrap_or(u64::MAX);
        if actual > max {
            return Err(Error::TooLong {
                algorithm,
                max,
                actual,
            });
        }
        Ok(())
    }
}
