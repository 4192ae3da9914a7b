//! Algorithm identifiers and their sizes.

use std::fmt;

/// An AEAD algorithm, independent of the library that implements it.
///
/// Sizes are in bytes. Sources:
/// - AES-GCM: NIST SP 800-38D (96-bit nonce, 128-bit tag, as used by TLS and every
///   database product we model) and RFC 5116 (`AEAD_AES_128_GCM`, `AEAD_AES_256_GCM`).
/// - ChaCha20-Poly1305: RFC 8439. XChaCha20-Poly1305: draft-irtf-cfrg-xchacha-03
///   (192-bit nonce, HChaCha20 subkey).
/// - AES-256-GCM-SIV: RFC 8452 (`AEAD_AES_256_GCM_SIV`, nonce-misuse resistant).
/// - AES-256-SIV: RFC 5297 `AEAD_AES_SIV_CMAC_512` (two AES-256 keys: S2V/CMAC and
///   CTR); the 16-byte synthetic IV is the tag. Also deterministic
///   ([`crate::DeterministicAead`]).
/// - AES-256-CBC-HMAC-SHA256: `AEAD_AES_256_CBC_HMAC_SHA_256` as SQL Server Always
///   Encrypted defines it (Microsoft's "Always Encrypted cryptography" page): AES-256-CBC
///   with PKCS#7 padding, then HMAC-SHA-256 over version byte, IV, ciphertext and
///   version-byte length; encryption, MAC and IV keys derived from the column
///   encryption key with HMAC-SHA-256. Randomized (random IV, this trait) and
///   deterministic (IV from an HMAC of the plaintext, [`crate::DeterministicAead`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Algorithm {
    /// AES-128 in Galois/Counter Mode: 16-byte key, 12-byte nonce, 16-byte tag.
    Aes128Gcm,
    /// AES-256 in Galois/Counter Mode: 32-byte key, 12-byte nonce, 16-byte tag.
    Aes256Gcm,
    /// ChaCha20-Poly1305 (RFC 8439): 32-byte key, 12-byte nonce, 16-byte tag.
    ChaCha20Poly1305,
    /// XChaCha20-Poly1305: 32-byte key, 24-byte nonce (safe to draw at random for
    /// any number of messages), 16-byte tag.
    XChaCha20Poly1305,
    /// AES-256-GCM-SIV (RFC 8452): 32-byte key, 12-byte nonce, 16-byte tag.
    Aes256GcmSiv,
    /// AES-SIV with two AES-256 keys (RFC 5297 `AEAD_AES_SIV_CMAC_512`): 64-byte key,
    /// 16-byte nonce (the last S2V header, RFC 5297 section 3), 16-byte synthetic IV as tag.
    Aes256Siv,
    /// SQL Server Always Encrypted's `AEAD_AES_256_CBC_HMAC_SHA_256`: 32-byte column
    /// encryption key, 16-byte IV as nonce, 32-byte HMAC-SHA-256 tag; the ciphertext is
    /// PKCS#7-padded, 1 to 16 bytes longer than the plaintext
    /// ([`Algorithm::ciphertext_len`]).
    Aes256CbcHmacSha256,
}

impl Algorithm {
    /// Every algorithm this version knows, in display order.
    pub const ALL: &'static [Algorithm] = &[
        Algorithm::Aes128Gcm,
        Algorithm::Aes256Gcm,
        Algorithm::ChaCha20Poly1305,
        Algorithm::XChaCha20Poly1305,
        Algorithm::Aes256GcmSiv,
        Algorithm::Aes256Siv,
        Algorithm::Aes256CbcHmacSha256,
    ];

    /// The name used on command lines and in results: `aes-128-gcm`, `aes-256-gcm`,
    /// `chacha20-poly1305`, `xchacha20-poly1305`, `aes-256-gcm-siv`, `aes-256-siv`,
    /// `aes-256-cbc-hmac-sha256`.
    pub const fn name(self) -> &'static str {
        match self {
            Algorithm::Aes128Gcm => "aes-128-gcm",
            Algorithm::Aes256Gcm => "aes-256-gcm",
            Algorithm::ChaCha20Poly1305 => "chacha20-poly1305",
            Algorithm::XChaCha20Poly1305 => "xchacha20-poly1305",
            Algorithm::Aes256GcmSiv => "aes-256-gcm-siv",
            Algorithm::Aes256Siv => "aes-256-siv",
            Algorithm::Aes256CbcHmacSha256 => "aes-256-cbc-hmac-sha256",
        }
    }

    /// Key length in bytes.
    pub const fn key_len(self) -> usize {
        match self {
            Algorithm::Aes128Gcm => 16,
            Algorithm::Aes256Siv => 64,
            Algorithm::Aes256Gcm
            | Algorithm::ChaCha20Poly1305
            | Algorithm::XChaCha20Poly1305
            | Algorithm::Aes256GcmSiv
            | Algorithm::Aes256CbcHmacSha256 => 32,
        }
    }

    /// Nonce length in bytes: 96 bits for AES-GCM, AES-GCM-SIV and ChaCha20-Poly1305
    /// (NIST SP 800-38D section 8.2, RFC 8452, RFC 8439 section 2.8); 192 bits for
    /// XChaCha20-Poly1305; 128 bits for AES-SIV's nonce header and the CBC IV.
    pub const fn nonce_len(self) -> usize {
        match self {
            Algorithm::XChaCha20Poly1305 => 24,
            Algorithm::Aes256Siv | Algorithm::Aes256CbcHmacSha256 => 16,
            _ => 12,
        }
    }

    /// Authentication tag length in bytes: 128 bits, except the 256-bit
    /// HMAC-SHA-256 of `AEAD_AES_256_CBC_HMAC_SHA_256`.
    pub const fn tag_len(self) -> usize {
        match self {
            Algorithm::Aes256CbcHmacSha256 => 32,
            _ => 16,
        }
    }

    /// Whether the ciphertext has the plaintext's length (every algorithm but the
    /// padded CBC one). Exactly these algorithms have the detached form
    /// ([`crate::DetachedAead`], reached through [`crate::Aead::detached`]); every
    /// algorithm implements [`crate::Aead::seal_in_place`] and
    /// [`crate::Aead::open_in_place`].
    pub const fn is_length_preserving(self) -> bool {
        !matches!(self, Algorithm::Aes256CbcHmacSha256)
    }

    /// Ciphertext length in bytes (tag excluded) for a plaintext of `plaintext_len`
    /// bytes: the same length, or for the CBC algorithm the next multiple of the
    /// 16-byte AES block strictly above it (PKCS#7 always adds 1 to 16 bytes).
    pub const fn ciphertext_len(self, plaintext_len: usize) -> usize {
        match self {
            Algorithm::Aes256CbcHmacSha256 => (plaintext_len / 16 + 1) * 16,
            _ => plaintext_len,
        }
    }

    /// Sealed length in bytes (ciphertext and tag) for a plaintext of
    /// `plaintext_len` bytes.
    pub const fn sealed_len(self, plaintext_len: usize) -> usize {
        self.ciphertext_len(plaintext_len) + self.tag_len()
    }

    /// The most bytes sealing adds to a plaintext (tag, plus padding for CBC).
    pub const fn max_expansion(self) -> usize {
        match self {
            Algorithm::Aes256CbcHmacSha256 => 16 + self.tag_len(),
            _ => self.tag_len(),
        }
    }

    /// Whether the algorithm also has a deterministic form
    /// ([`crate::DeterministicAead`]): AES-256-SIV and AES-256-CBC-HMAC-SHA256.
    pub const fn has_deterministic_form(self) -> bool {
        matches!(self, Algorithm::Aes256Siv | Algorithm::Aes256CbcHmacSha256)
    }

    /// The longest plaintext, in bytes, one message may have: 2^36 - 32 for AES-GCM
    /// (NIST SP 800-38D), 2^36 for AES-GCM-SIV (RFC 8452 section 6), 2^38 - 64 for
    /// (X)ChaCha20-Poly1305 (RFC 8439); AES-SIV and the CBC algorithm have no limit a
    /// database value could reach, given here as 2^36 to keep one bound for all.
    pub const fn max_plaintext_len(self) -> u64 {
        match self {
            Algorithm::Aes128Gcm | Algorithm::Aes256Gcm => (1 << 36) - 32,
            Algorithm::ChaCha20Poly1305 | Algorithm::XChaCha20Poly1305 => (1 << 38) - 64,
            Algorithm::Aes256GcmSiv | Algorithm::Aes256Siv | Algorithm::Aes256CbcHmacSha256 => {
                1 << 36
            }
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
