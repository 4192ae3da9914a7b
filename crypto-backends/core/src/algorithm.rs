//! Algorithm identifiers and their sizes.

use std::fmt;

/// An AEAD algorithm, independent of the library that implements it.
///
/// Sizes are in bytes. Sources: AES-GCM from NIST SP 800-38D (96-bit nonce,
/// 128-bit tag as used by TLS and every database product we model) and RFC 5116
/// (`AEAD_AES_128_GCM`, `AEAD_AES_256_GCM`); ChaCha20-Poly1305 from RFC 8439.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Algorithm {
    /// AES-128 in Galois/Counter Mode: 16-byte key, 12-byte nonce, 16-byte tag.
    Aes128Gcm,
    /// AES-256 in Galois/Counter Mode: 32-byte key, 12-byte nonce, 16-byte tag.
    Aes256Gcm,
    /// ChaCha20-Poly1305 (RFC 8439): 32-byte key, 12-byte nonce, 16-byte tag.
    ChaCha20Poly1305,
}

impl Algorithm {
    /// Every algorithm this version knows, in display order.
    pub const ALL: &'static [Algorithm] = &[
        Algorithm::Aes128Gcm,
        Algorithm::Aes256Gcm,
        Algorithm::ChaCha20Poly1305,
    ];

    /// The name used on command lines and in results: `aes-128-gcm`,
    /// `aes-256-gcm`, `chacha20-poly1305`.
    pub const fn name(self) -> &'static str {
        match self {
            Algorithm::Aes128Gcm => "aes-128-gcm",
            Algorithm::Aes256Gcm => "aes-256-gcm",
            Algorithm::ChaCha20Poly1305 => "chacha20-poly1305",
        }
    }

    /// Key length in bytes.
    pub const fn key_len(self) -> usize {
        match self {
            Algorithm::Aes128Gcm => 16,
            Algorithm::Aes256Gcm | Algorithm::ChaCha20Poly1305 => 32,
        }
    }

    /// Nonce length in bytes (96 bits for every algorithm here: NIST SP 800-38D
    /// section 8.2, RFC 8439 section 2.8).
    pub const fn nonce_len(self) -> usize {
        12
    }

    /// Authentication tag length in bytes (128 bits).
    pub const fn tag_len(self) -> usize {
        16
    }

    /// The longest plaintext, in bytes, one message may have: 2^36 - 32 for
    /// AES-GCM (NIST SP 800-38D), 2^38 - 64 for ChaCha20-Poly1305 (RFC 8439).
    pub const fn max_plaintext_len(self) -> u64 {
        match self {
            Algorithm::Aes128Gcm | Algorithm::Aes256Gcm => (1 << 36) - 32,
            Algorithm::ChaCha20Poly1305 => (1 << 38) - 64,
        }
    }

    /// Looks an algorithm up by [`name`](Self::name) (ASCII case-insensitive).
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Self::ALL
            .iter()
            .copied()
            .find(|a| a.name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
