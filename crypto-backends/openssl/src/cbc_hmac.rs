//! SQL Server Always Encrypted's `AEAD_AES_256_CBC_HMAC_SHA_256` through OpenSSL:
//! `AES-256-CBC` (PKCS#7 padding, per-thread contexts keyed once, IV set per message)
//! and HMAC-SHA-256 (`EVP_DigestSign` with an HMAC key, one `EVP_MD_CTX` per message).
//! The algorithm (randomized and deterministic forms, cell layout, MAC input) is
//! written once in [`encbench_crypto::always_encrypted`]; this file supplies the
//! primitives.

use encbench_crypto::always_encrypted::{
    BLOCK_LEN, CbcHmacPrimitives, DerivedKeys, Deterministic, MAC_LEN, Randomized,
};
use encbench_crypto::{Aead, Algorithm, DeterministicDescriptor, Error};
use openssl::hash::MessageDigest;
use openssl::pkey::{PKey, Private};
use openssl::sign::Signer;

use crate::aead::{BACKEND, Direction, MAX_UPDATE, OpensslAead, backend_error};

const ALGORITHM: Algorithm = Algorithm::Aes256CbcHmacSha256;

/// Deterministic AEAD_AES_256_CBC_HMAC_SHA_256.
pub(crate) const AES_256_CBC_HMAC_SHA256_DETERMINISTIC: DeterministicDescriptor =
    DeterministicDescriptor::new(BACKEND, ALGORITHM, |_, key| {
        Ok(Box::new(Deterministic(Keys::derive(key)?)))
    });

/// Randomized AEAD_AES_256_CBC_HMAC_SHA_256 (the key setup of
/// `openssl:aes-256-cbc-hmac-sha256`).
pub(crate) fn new_randomized(key: &[u8]) -> Result<Box<dyn Aead>, Error> {
    Ok(Box::new(Randomized(Keys::derive(key)?)))
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
pub(crate) struct Keys {
    aes: OpensslAead,
    mac: PKey<Private>,
    iv: PKey<Private>,
}

impl Keys {
    fn derive(cek: &[u8]) -> Result<Keys, Error> {
        let keys = DerivedKeys::derive(cek, |key, message| hmac(&hmac_key(key)?, &[message]))?;
        Ok(Keys {
            aes: OpensslAead::keyed(
                ALGORITHM,
                "AES-256-CBC",
                &keys.encryption[..],
                32,
                BLOCK_LEN,
            )?,
            mac: hmac_key(&keys.mac[..])?,
            iv: hmac_key(&keys.iv[..])?,
        })
    }
}

impl CbcHmacPrimitives for Keys {
    fn backend(&self) -> &'static str {
        BACKEND
    }

    fn max_len(&self) -> u64 {
        ALGORITHM.max_plaintext_len().min(MAX_UPDATE as u64)
    }

    fn mac(&self, pieces: &[&[u8]]) -> Result<[u8; MAC_LEN], Error> {
        hmac(&self.mac, pieces)
    }

    fn verify_mac(&self, pieces: &[&[u8]], tag: &[u8]) -> Result<bool, Error> {
        let expected = hmac(&self.mac, pieces)?;
        Ok(tag.len() == MAC_LEN && openssl::memcmp::eq(&expected, tag))
    }

    fn iv_mac(&self, plaintext: &[u8]) -> Result<[u8; MAC_LEN], Error> {
        hmac(&self.iv, &[plaintext])
    }

    fn encrypt(&self, iv: &[u8], buf: &mut [u8], plaintext_len: usize) -> Result<usize, Error> {
        let mut ctx = self.aes.context(Direction::Seal)?;
        Direction::Seal.init(&mut ctx, None, None, Some(iv), "IV")?;
        let written = ctx
            .cipher_update_inplace(buf, plaintext_len)
            .map_err(|e| backend_error("EVP_EncryptUpdate", &e))?;
        let rest = ctx
            .cipher_final(&mut buf[written..])
            .map_err(|e| backend_error("EVP_EncryptFinal_ex", &e))?;
        Ok(written + rest)
    }

    fn decrypt(&self, iv: &[u8], buf: &mut [u8], ciphertext_len: usize) -> Result<usize, Error> {
        let mut ctx = self.aes.context(Direction::Open)?;
        Direction::Open.init(&mut ctx, None, None, Some(iv), "IV")?;
        let written = ctx
            .cipher_update_inplace(buf, ciphertext_len)
            .map_err(|_| Error::Decrypt)?;
        let rest = ctx
            .cipher_final(&mut buf[written..])
            .map_err(|_| Error::Decrypt)?;
        Ok(written + rest)
    }
}
