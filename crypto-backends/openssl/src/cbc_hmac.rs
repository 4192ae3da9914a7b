//! SQL Server Always Encrypted's `AEAD_AES_256_CBC_HMAC_SHA_256` through OpenSSL:
//! `AES-256-CBC` (PKCS#7 padding, per-thread contexts keyed once, IV set per message)
//! and HMAC-SHA-256 (`EVP_DigestSign` with an HMAC key, one `EVP_MD_CTX` per message).
//! Randomized ([`Aead`], the nonce is the IV) and deterministic ([`DeterministicAead`]).
//! Constants and layout: [`encbench_crypto::always_encrypted`].

use std::fmt;

use encbench_crypto::always_encrypted::{
    self as ae, BLOCK_LEN, CELL_CIPHERTEXT_AT, CELL_IV_AT, MAC_LEN, MIN_CELL_LEN,
};
use encbench_crypto::{
    Aead, Algorithm, Descriptor, DeterministicAead, DeterministicDescriptor, Error,
};
use openssl::hash::MessageDigest;
use openssl::pkey::{PKey, Private};
use openssl::sign::Signer;
use zeroize::Zeroizing;

use crate::aead::{BACKEND, Direction, MAX_UPDATE, OpensslAead, backend_error};

const ALGORITHM: Algorithm = Algorithm::Aes256CbcHmacSha256;

/// Randomized AEAD_AES_256_CBC_HMAC_SHA_256.
pub(crate) const AES_256_CBC_HMAC_SHA256: Descriptor = Descriptor {
    backend: BACKEND,
    algorithm: ALGORITHM,
    new_key: new_randomized,
};

/// Deterministic AEAD_AES_256_CBC_HMAC_SHA_256.
pub(crate) const AES_256_CBC_HMAC_SHA256_DETERMINISTIC: DeterministicDescriptor =
    DeterministicDescriptor {
        backend: BACKEND,
        algorithm: ALGORITHM,
        new_key: new_deterministic,
    };

fn new_randomized(key: &[u8]) -> Result<Box<dyn Aead>, Error> {
    Ok(Box::new(Randomized(Keys::derive(key)?)))
}

fn new_deterministic(key: &[u8]) -> Result<Box<dyn DeterministicAead>, Error> {
    Ok(Box::new(Deterministic(Keys::derive(key)?)))
}

/// HMAC-SHA-256 of the pieces under `key`.
fn hmac(key: &PKey<Private>, pieces: &[&[u8]]) -> Result<[u8; MAC_LEN], Error> {
    let mut signer = Signer::new(MessageDigest::sha256(), key)
        .map_err(|e| backend_error("EVP_DigestSignInit (HMAC-SHA-256)", &e))?;
    for piece in pieces {
        signer
            .update(piece)
            .map_err(|e| backend_error("EVP_DigestSignUpdate", &e))?;
    }
    let mut out = [0u8; MAC_LEN];
    let len = signer
        .sign(&mut out)
        .map_err(|e| backend_error("EVP_DigestSignFinal", &e))?;
    if len != MAC_LEN {
        return Err(Error::Backend(format!("HMAC-SHA-256 gave {len} bytes")));
    }
    Ok(out)
}

fn hmac_key(bytes: &[u8]) -> Result<PKey<Private>, Error> {
    PKey::hmac(bytes).map_err(|e| backend_error("EVP_PKEY_new_mac_key (HMAC)", &e))
}

/// The derived keys: AES-256-CBC contexts keyed with the encryption key, and the MAC
/// and IV keys as OpenSSL HMAC keys.
struct Keys {
    aes: OpensslAead,
    mac: PKey<Private>,
    iv: PKey<Private>,
}

impl Keys {
    fn derive(cek: &[u8]) -> Result<Keys, Error> {
        Error::check_key(ALGORITHM, cek.len())?;
        let root = hmac_key(cek)?;
        let derive = |salt: &str| -> Result<Zeroizing<[u8; MAC_LEN]>, Error> {
            Ok(Zeroizing::new(hmac(&root, &[&ae::utf16le(salt)])?))
        };
        let enc_key = derive(ae::ENCRYPTION_KEY_SALT)?;
        let mac_key = derive(ae::MAC_KEY_SALT)?;
        let iv_key = derive(ae::IV_KEY_SALT)?;
        Ok(Keys {
            aes: OpensslAead::keyed(ALGORITHM, "AES-256-CBC", &enc_key[..], 32, BLOCK_LEN)?,
            mac: hmac_key(&mac_key[..])?,
            iv: hmac_key(&iv_key[..])?,
        })
    }

    /// The MAC over version, IV, ciphertext and the trailer for `aad`.
    fn mac(&self, iv: &[u8], ciphertext: &[u8], aad: &[u8]) -> Result<[u8; MAC_LEN], Error> {
        let mut pieces: Vec<&[u8]> = Vec::with_capacity(6);
        pieces.push(&[ae::VERSION]);
        pieces.push(iv);
        pieces.push(ciphertext);
        let len_be = (aad.len() as u64).to_be_bytes();
        pieces.push(&[ae::VERSION_LENGTH]);
        if !aad.is_empty() {
            pieces.push(aad);
            pieces.push(&len_be);
        }
        hmac(&self.mac, &pieces)
    }

    fn check_len(len: usize) -> Result<(), Error> {
        let max = ALGORITHM.max_plaintext_len().min(MAX_UPDATE as u64);
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

    /// Pads and encrypts `buf[..plaintext_len]` in place (`buf` is
    /// `ciphertext_len + 16` long: OpenSSL wants a block of room past the input).
    fn encrypt(&self, iv: &[u8], buf: &mut [u8], plaintext_len: usize) -> Result<usize, Error> {
        let mut ctx = self.aes.context(Direction::Seal)?;
        ctx.encrypt_init(None, None, Some(iv))
            .map_err(|e| backend_error("EVP_EncryptInit_ex (IV)", &e))?;
        let written = ctx
            .cipher_update_inplace(buf, plaintext_len)
            .map_err(|e| backend_error("EVP_EncryptUpdate", &e))?;
        let rest = ctx
            .cipher_final(&mut buf[written..])
            .map_err(|e| backend_error("EVP_EncryptFinal_ex", &e))?;
        Ok(written + rest)
    }

    /// Decrypts and unpads `buf[..ct_len]` in place (after the MAC was verified);
    /// `buf` has a block of room past the ciphertext. Returns the plaintext length.
    fn decrypt(&self, iv: &[u8], buf: &mut [u8], ct_len: usize) -> Result<usize, Error> {
        let mut ctx = self.aes.context(Direction::Open)?;
        ctx.decrypt_init(None, None, Some(iv))
            .map_err(|e| backend_error("EVP_DecryptInit_ex (IV)", &e))?;
        let written = ctx
            .cipher_update_inplace(buf, ct_len)
            .map_err(|_| Error::Decrypt)?;
        let rest = ctx
            .cipher_final(&mut buf[written..])
            .map_err(|_| Error::Decrypt)?;
        Ok(written + rest)
    }
}

/// Randomized form: the caller's nonce is the IV; sealed = `ciphertext || MAC`.
pub(crate) struct Randomized(Keys);

impl Aead for Randomized {
    fn algorithm(&self) -> Algorithm {
        ALGORITHM
    }

    fn backend(&self) -> &'static str {
        BACKEND
    }

    fn seal_in_place_detached(
        &self,
        _: &[u8],
        _: &[u8],
        _: &mut [u8],
        _: &mut [u8],
    ) -> Result<(), Error> {
        Err(Error::NotLengthPreserving {
            algorithm: ALGORITHM,
        })
    }

    fn open_in_place_detached(
        &self,
        _: &[u8],
        _: &[u8],
        _: &mut [u8],
        _: &[u8],
    ) -> Result<(), Error> {
        Err(Error::NotLengthPreserving {
            algorithm: ALGORITHM,
        })
    }

    fn seal_in_place(&self, nonce: &[u8], aad: &[u8], buf: &mut Vec<u8>) -> Result<(), Error> {
        Error::check_nonce(ALGORITHM, nonce.len())?;
        let plaintext_len = buf.len();
        Keys::check_len(plaintext_len)?;
        let ct_len = ALGORITHM.ciphertext_len(plaintext_len);
        buf.resize(ct_len + BLOCK_LEN, 0);
        let sealed = self
            .0
            .encrypt(nonce, buf, plaintext_len)
            .and_then(|written| {
                if written == ct_len {
                    Ok(())
                } else {
                    Err(Error::Backend(format!(
                        "AES-256-CBC wrote {written} bytes, expected {ct_len}"
                    )))
                }
            });
        if let Err(e) = sealed {
            buf.fill(0);
            buf.clear();
            return Err(e);
        }
        buf.truncate(ct_len);
        let tag = self.0.mac(nonce, buf, aad)?;
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
        // Encrypt-then-MAC: verify (constant time) before touching the ciphertext.
        let expected = self.0.mac(nonce, &buf[..ct_len], aad)?;
        if !openssl::memcmp::eq(&expected, &buf[ct_len..]) {
            return Err(Error::Decrypt);
        }
        // The MAC's 32 bytes give OpenSSL the block of room it wants past the input.
        let len = self.0.decrypt(nonce, buf, ct_len)?;
        Ok(&mut buf[..len])
    }
}

/// Deterministic form: IV = first 16 bytes of HMAC-SHA-256(iv_key, plaintext); sealed =
/// the Always Encrypted cell `version || MAC || IV || ciphertext`.
pub(crate) struct Deterministic(Keys);

impl DeterministicAead for Deterministic {
    fn algorithm(&self) -> Algorithm {
        ALGORITHM
    }

    fn backend(&self) -> &'static str {
        BACKEND
    }

    fn seal(&self, aad: &[u8], plaintext: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        out.clear();
        Keys::check_len(plaintext.len())?;
        let iv_full = hmac(&self.0.iv, &[plaintext])?;
        let iv = &iv_full[..BLOCK_LEN];
        let ct_len = ALGORITHM.ciphertext_len(plaintext.len());
        out.resize(CELL_CIPHERTEXT_AT, 0);
        out[0] = ae::VERSION;
        out[CELL_IV_AT..CELL_CIPHERTEXT_AT].copy_from_slice(iv);
        out.extend_from_slice(plaintext);
        out.resize(CELL_CIPHERTEXT_AT + ct_len + BLOCK_LEN, 0);
        let written = self
            .0
            .encrypt(iv, &mut out[CELL_CIPHERTEXT_AT..], plaintext.len());
        if !matches!(written, Ok(n) if n == ct_len) {
            out.fill(0);
            out.clear();
            return Err(written.err().unwrap_or_else(|| {
                Error::Backend("AES-256-CBC wrote an unexpected length".to_owned())
            }));
        }
        out.truncate(CELL_CIPHERTEXT_AT + ct_len);
        let tag = self.0.mac(iv, &out[CELL_CIPHERTEXT_AT..], aad)?;
        out[1..CELL_IV_AT].copy_from_slice(&tag);
        Ok(())
    }

    fn open(&self, aad: &[u8], sealed: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        out.clear();
        if sealed.len() < MIN_CELL_LEN
            || sealed[0] != ae::VERSION
            || (sealed.len() - CELL_CIPHERTEXT_AT) % BLOCK_LEN != 0
        {
            return Err(Error::Decrypt);
        }
        let iv = &sealed[CELL_IV_AT..CELL_CIPHERTEXT_AT];
        let ct = &sealed[CELL_CIPHERTEXT_AT..];
        let expected = self.0.mac(iv, ct, aad)?;
        if !openssl::memcmp::eq(&expected, &sealed[1..CELL_IV_AT]) {
            return Err(Error::Decrypt);
        }
        out.extend_from_slice(ct);
        out.resize(ct.len() + BLOCK_LEN, 0);
        match self.0.decrypt(iv, out, ct.len()) {
            Ok(len) => {
                out.truncate(len);
                Ok(())
            }
            Err(e) => {
                out.fill(0);
                out.clear();
                Err(e)
            }
        }
    }
}

impl fmt::Debug for Randomized {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Randomized(AEAD_AES_256_CBC_HMAC_SHA_256 { keys: <redacted> })")
    }
}

impl fmt::Debug for Deterministic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Deterministic(AEAD_AES_256_CBC_HMAC_SHA_256 { keys: <redacted> })")
    }
}
