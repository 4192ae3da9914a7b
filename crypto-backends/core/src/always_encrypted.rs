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
//!
//! The algorithm itself ([`Randomized`], [`Deterministic`]) is written once here over
//! [`CbcHmacPrimitives`]: each backend supplies only its AES-256-CBC and HMAC-SHA-256.

use std::fmt;

use zeroize::Zeroizing;

use crate::aead::fail_closed;
use crate::{Aead, Algorithm, DeterministicAead, Error};

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

/// The MAC input after the ciphertext for `aad`: `version_length`, then for a non-empty
/// AAD the AAD and its length (`len_be` must hold `aad.len()` as 8 big-endian bytes).
/// Returns the pieces and how many of them are used.
fn mac_trailer<'a>(aad: &'a [u8], len_be: &'a [u8; 8]) -> ([&'a [u8]; 3], usize) {
    let pieces: [&[u8]; 3] = [&[VERSION_LENGTH], aad, len_be];
    (pieces, if aad.is_empty() { 1 } else { 3 })
}

/// The column encryption key's three derived keys (zeroized on drop).
pub struct DerivedKeys {
    /// AES-256-CBC key.
    pub encryption: Zeroizing<[u8; MAC_LEN]>,
    /// HMAC-SHA-256 key of the MAC.
    pub mac: Zeroizing<[u8; MAC_LEN]>,
    /// HMAC-SHA-256 key of the deterministic IV.
    pub iv: Zeroizing<[u8; MAC_LEN]>,
}

impl DerivedKeys {
    /// Derives the keys from the 32-byte column encryption key with the backend's
    /// HMAC-SHA-256, `hmac(key, message)`.
    ///
    /// # Errors
    /// [`Error::KeyLength`] for a key that is not 32 bytes; the HMAC's errors.
    pub fn derive(
        cek: &[u8],
        hmac: impl Fn(&[u8], &[u8]) -> Result<[u8; MAC_LEN], Error>,
    ) -> Result<DerivedKeys, Error> {
        Error::check_key(ALGORITHM, cek.len())?;
        let derive = |salt: &str| hmac(cek, &utf16le(salt)).map(Zeroizing::new);
        Ok(DerivedKeys {
            encryption: derive(ENCRYPTION_KEY_SALT)?,
            mac: derive(MAC_KEY_SALT)?,
            iv: derive(IV_KEY_SALT)?,
        })
    }
}

/// What a backend provides for the algorithm: its AES-256-CBC and HMAC-SHA-256 under
/// the [`DerivedKeys`], set up once. [`Randomized`] and [`Deterministic`] build the
/// algorithm on top of it, once for every backend.
pub trait CbcHmacPrimitives: Send + Sync {
    /// The backend name, as in `BACKEND:ALGORITHM`.
    fn backend(&self) -> &'static str;

    /// The longest plaintext, in bytes, the backend takes in one call.
    fn max_len(&self) -> u64;

    /// HMAC-SHA-256 under the MAC key of the concatenated `pieces`.
    ///
    /// # Errors
    /// [`Error::Backend`] when the library fails.
    fn mac(&self, pieces: &[&[u8]]) -> Result<[u8; MAC_LEN], Error>;

    /// Whether `tag` is the MAC of `pieces`, compared in constant time.
    ///
    /// # Errors
    /// [`Error::Backend`] when the library fails.
    fn verify_mac(&self, pieces: &[&[u8]], tag: &[u8]) -> Result<bool, Error>;

    /// HMAC-SHA-256 under the IV key of `plaintext`.
    ///
    /// # Errors
    /// [`Error::Backend`] when the library fails.
    fn iv_mac(&self, plaintext: &[u8]) -> Result<[u8; MAC_LEN], Error>;

    /// Pads (PKCS#7) and encrypts `buf[..plaintext_len]` in place under `iv`; `buf` is
    /// at least `Algorithm::ciphertext_len(plaintext_len) + BLOCK_LEN` long. Returns
    /// the ciphertext length.
    ///
    /// # Errors
    /// [`Error::Backend`] when the library fails.
    fn encrypt(&self, iv: &[u8], buf: &mut [u8], plaintext_len: usize) -> Result<usize, Error>;

    /// Decrypts `buf[..ciphertext_len]` in place under `iv` and removes the padding;
    /// `buf` is at least `ciphertext_len + BLOCK_LEN` long. Returns the plaintext length.
    ///
    /// # Errors
    /// [`Error::Decrypt`] for bad padding (only reachable after a MAC was forged).
    fn decrypt(&self, iv: &[u8], buf: &mut [u8], ciphertext_len: usize) -> Result<usize, Error>;
}

const ALGORITHM: Algorithm = Algorithm::Aes256CbcHmacSha256;

/// The MAC pieces: version, IV, ciphertext, then the trailer for `aad`.
fn mac_pieces<'a>(
    iv: &'a [u8],
    ciphertext: &'a [u8],
    aad: &'a [u8],
    len_be: &'a [u8; 8],
) -> ([&'a [u8]; 6], usize) {
    let (trailer, n) = mac_trailer(aad, len_be);
    (
        [
            &[VERSION],
            iv,
            ciphertext,
            trailer[0],
            trailer[1],
            trailer[2],
        ],
        3 + n,
    )
}

fn check_len<P: CbcHmacPrimitives>(p: &P, len: usize) -> Result<(), Error> {
    let max = p.max_len();
    let actual = u64::try_from(len).unwrap_or(u64::MAX);
    if actual > max {
        return Err(Error::TooLong {
            algorithm: ALGORITHM,
            max,
            actual,
        });
    }
    Ok(())
}

fn mac_of<P: CbcHmacPrimitives>(
    p: &P,
    iv: &[u8],
    ct: &[u8],
    aad: &[u8],
) -> Result<[u8; MAC_LEN], Error> {
    let len_be = (aad.len() as u64).to_be_bytes();
    let (pieces, n) = mac_pieces(iv, ct, aad, &len_be);
    p.mac(&pieces[..n])
}

/// Verifies (constant time) before anything is decrypted: Encrypt-then-MAC.
fn verify<P: CbcHmacPrimitives>(
    p: &P,
    iv: &[u8],
    ct: &[u8],
    aad: &[u8],
    tag: &[u8],
) -> Result<(), Error> {
    let len_be = (aad.len() as u64).to_be_bytes();
    let (pieces, n) = mac_pieces(iv, ct, aad, &len_be);
    if p.verify_mac(&pieces[..n], tag)? {
        Ok(())
    } else {
        Err(Error::Decrypt)
    }
}

/// Randomized form ([`Aead`]): the caller's nonce is the IV; sealed = `ciphertext || MAC`.
pub struct Randomized<P>(pub P);

impl<P: CbcHmacPrimitives> Aead for Randomized<P> {
    fn algorithm(&self) -> Algorithm {
        ALGORITHM
    }

    fn backend(&self) -> &'static str {
        self.0.backend()
    }

    fn seal_in_place(&self, nonce: &[u8], aad: &[u8], buf: &mut Vec<u8>) -> Result<(), Error> {
        Error::check_nonce(ALGORITHM, nonce.len())?;
        let plaintext_len = buf.len();
        check_len(&self.0, plaintext_len)?;
        let ct_len = ALGORITHM.ciphertext_len(plaintext_len);
        buf.resize(ct_len + BLOCK_LEN, 0);
        let sealed = self
            .0
            .encrypt(nonce, buf, plaintext_len)
            .and_then(|written| {
                buf.truncate(ct_len);
                if written == ct_len {
                    mac_of(&self.0, nonce, buf, aad)
                } else {
                    Err(Error::Backend(format!(
                        "AES-256-CBC wrote {written} bytes, expected {ct_len}"
                    )))
                }
            });
        let tag = fail_closed(buf, sealed)?;
        buf.extend_from_slice(&tag);
        Ok(())
    }

    fn open_in_place<'b>(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &'b mut [u8],
    ) -> Result<&'b mut [u8], Error> {
        Error::check_nonce(ALGORITHM, nonce.len())?;
        let ct_len = buf.len().checked_sub(MAC_LEN).ok_or(Error::Decrypt)?;
        if ct_len == 0 || ct_len % BLOCK_LEN != 0 {
            return Err(Error::Decrypt);
        }
        verify(&self.0, nonce, &buf[..ct_len], aad, &buf[ct_len..])?;
        // The MAC's 32 bytes after the ciphertext are the block of room `decrypt` may use.
        let len = self.0.decrypt(nonce, buf, ct_len)?;
        Ok(&mut buf[..len])
    }
}

/// Deterministic form ([`DeterministicAead`]): IV = first 16 bytes of
/// HMAC-SHA-256(iv_key, plaintext); sealed = the cell `version || MAC || IV || ciphertext`.
pub struct Deterministic<P>(pub P);

impl<P: CbcHmacPrimitives> DeterministicAead for Deterministic<P> {
    fn algorithm(&self) -> Algorithm {
        ALGORITHM
    }

    fn backend(&self) -> &'static str {
        self.0.backend()
    }

    fn seal(&self, aad: &[u8], plaintext: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        out.clear();
        check_len(&self.0, plaintext.len())?;
        let iv_full = self.0.iv_mac(plaintext)?;
        let iv = &iv_full[..BLOCK_LEN];
        let ct_len = ALGORITHM.ciphertext_len(plaintext.len());
        out.resize(CELL_CIPHERTEXT_AT, 0);
        out[0] = VERSION;
        out[CELL_IV_AT..CELL_CIPHERTEXT_AT].copy_from_slice(iv);
        out.extend_from_slice(plaintext);
        out.resize(CELL_CIPHERTEXT_AT + ct_len + BLOCK_LEN, 0);
        let sealed = self
            .0
            .encrypt(iv, &mut out[CELL_CIPHERTEXT_AT..], plaintext.len())
            .and_then(|written| {
                out.truncate(CELL_CIPHERTEXT_AT + ct_len);
                if written == ct_len {
                    mac_of(&self.0, iv, &out[CELL_CIPHERTEXT_AT..], aad)
                } else {
                    Err(Error::Backend(format!(
                        "AES-256-CBC wrote {written} bytes, expected {ct_len}"
                    )))
                }
            });
        let tag = fail_closed(out, sealed)?;
        out[1..CELL_IV_AT].copy_from_slice(&tag);
        Ok(())
    }

    fn open(&self, aad: &[u8], sealed: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        out.clear();
        if sealed.len() < MIN_CELL_LEN
            || sealed[0] != VERSION
            || (sealed.len() - CELL_CIPHERTEXT_AT) % BLOCK_LEN != 0
        {
            return Err(Error::Decrypt);
        }
        let iv = &sealed[CELL_IV_AT..CELL_CIPHERTEXT_AT];
        let ct = &sealed[CELL_CIPHERTEXT_AT..];
        verify(&self.0, iv, ct, aad, &sealed[1..CELL_IV_AT])?;
        out.extend_from_slice(ct);
        out.resize(ct.len() + BLOCK_LEN, 0);
        let decrypted = self.0.decrypt(iv, out, ct.len());
        let len = fail_closed(out, decrypted)?;
        out.truncate(len);
        Ok(())
    }
}

impl<P> fmt::Debug for Randomized<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Randomized(AEAD_AES_256_CBC_HMAC_SHA_256 { keys: <redacted> })")
    }
}

impl<P> fmt::Debug for Deterministic<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Deterministic(AEAD_AES_256_CBC_HMAC_SHA_256 { keys: <redacted> })")
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
        let concat = |aad: &[u8]| {
            let len_be = (aad.len() as u64).to_be_bytes();
            let (pieces, n) = mac_trailer(aad, &len_be);
            pieces[..n].concat()
        };
        assert_eq!(concat(b""), [1]);
        assert_eq!(concat(b"ab"), [1, b'a', b'b', 0, 0, 0, 0, 0, 0, 0, 2]);
    }
}
