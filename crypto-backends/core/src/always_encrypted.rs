//! The constants of SQL Server Always Encrypted's `AEAD_AES_256_CBC_HMAC_SHA_256`,
//! shared by every backend that implements it (each computes the HMACs and AES-CBC
//! with its own library).
//!
//! Source: Microsoft, "Always Encrypted cryptography" (SQL Server documentation), and
//! the open-source client drivers that implement it (Microsoft.Data.SqlClient,
//! mssql-jdbc). Derived from draft-mcgrew-aead-aes-cbc-hmac-sha2-05.
//!
//! - Keys: from the 32-byte column encryption key (CEK),
//!   `enc_key = HMAC-SHA-256(CEK, salt("encryption"))`, `mac_key` and `iv_key` likewise,
//!   where each salt is the UTF-16LE text of [`ENCRYPTION_KEY_SALT`], [`MAC_KEY_SALT`],
//!   [`IV_KEY_SALT`].
//! - IV: 16 random bytes (randomized), or the first 16 bytes of
//!   `HMAC-SHA-256(iv_key, plaintext)` (deterministic).
//! - Ciphertext: AES-256-CBC under `enc_key` with PKCS#7 padding.
//! - MAC: `HMAC-SHA-256(mac_key, version || IV || ciphertext || version_length)` with
//!   `version = 0x01` and `version_length = 0x01` (one byte: the version's size).
//!   encbench extends it for a non-empty AAD (the column envelope binds table, column,
//!   primary key): `|| AAD || len(AAD) as 8 bytes big-endian` is appended to the MAC
//!   input. With an empty AAD the MAC is byte-for-byte Always Encrypted's.
//! - Cell (deterministic form): `version || MAC || IV || ciphertext`.

/// The cell format version byte.
pub const VERSION: u8 = 0x01;

/// `version_length`: the size of the version field in bytes, as one byte.
pub const VERSION_LENGTH: u8 = 0x01;

/// Salt for the encryption key (before UTF-16LE encoding).
pub const ENCRYPTION_KEY_SALT: &str = "Microsoft SQL Server cell encryption key with encryption algorithm:AEAD_AES_256_CBC_HMAC_SHA256 and key length:256";

/// Salt for the MAC key (before UTF-16LE encoding).
pub const MAC_KEY_SALT: &str = "Microsoft SQL Server cell MAC key with encryption algorithm:AEAD_AES_256_CBC_HMAC_SHA256 and key length:256";

/// Salt for the IV key of deterministic encryption (before UTF-16LE encoding).
pub const IV_KEY_SALT: &str = "Microsoft SQL Server cell IV key with encryption algorithm:AEAD_AES_256_CBC_HMAC_SHA256 and key length:256";

/// AES block and IV size in bytes.
pub const BLOCK_LEN: usize = 16;

/// HMAC-SHA-256 output (the tag) in bytes.
pub const MAC_LEN: usize = 32;

/// Offset of the IV in a cell: after version (1) and MAC (32).
pub const CELL_IV_AT: usize = 1 + MAC_LEN;

/// Offset of the ciphertext in a cell.
pub const CELL_CIPHERTEXT_AT: usize = CELL_IV_AT + BLOCK_LEN;

/// The shortest valid cell: header, IV and one padded block (empty plaintext).
pub const MIN_CELL_LEN: usize = CELL_CIPHERTEXT_AT + BLOCK_LEN;

/// `text` as UTF-16LE bytes, the encoding the salts are hashed in (.NET's `Encoding.Unicode`).
pub fn utf16le(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

/// What follows the ciphertext in the MAC input for `aad`: `version_length`, then for a
/// non-empty AAD the AAD and its length. Call `f` with each piece in order.
pub fn mac_trailer(aad: &[u8], mut f: impl FnMut(&[u8])) {
    f(&[VERSION_LENGTH]);
    if !aad.is_empty() {
        f(aad);
        f(&(aad.len() as u64).to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn salts_encode_as_utf16le() {
        let salt = utf16le(ENCRYPTION_KEY_SALT);
        assert_eq!(salt.len(), 2 * ENCRYPTION_KEY_SALT.len());
        assert_eq!(&salt[..4], b"M\0i\0");
        // The C driver in the wild copies 228 bytes for this salt: 114 UTF-16 units.
        assert_eq!(salt.len(), 228);
        assert_eq!(utf16le(MAC_KEY_SALT).len(), 214);
    }

    #[test]
    fn trailer_is_exact_without_aad_and_length_bound_with_it() {
        let mut bytes = Vec::new();
        mac_trailer(b"", |p| bytes.extend_from_slice(p));
        assert_eq!(bytes, [1]);
        bytes.clear();
        mac_trailer(b"ab", |p| bytes.extend_from_slice(p));
        assert_eq!(bytes, [1, b'a', b'b', 0, 0, 0, 0, 0, 0, 0, 2]);
    }
}
