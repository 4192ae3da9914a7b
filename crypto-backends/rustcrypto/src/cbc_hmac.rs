//! SQL Server Always Encrypted's `AEAD_AES_256_CBC_HMAC_SHA_256` built on the `aes`
//! block cipher, `cbc` (PKCS#7), `hmac` and `sha2`. The algorithm (randomized and
//! deterministic forms, cell layout, MAC input) is written once in
//! [`encbench_crypto::always_encrypted`]; this file supplies the primitives.

use aes::Aes256;
use aes::cipher::block_padding::Pkcs7;
use aes::cipher::{BlockDecryptMut, BlockEncryptMut, InnerIvInit, KeyInit};
use encbench_crypto::always_encrypted::{
    CbcHmacPrimitives, DerivedKeys, Deterministic, MAC_LEN, Randomized,
};
use encbench_crypto::{Aead, Algorithm, DeterministicDescriptor, Error};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::BACKEND;

type HmacSha256 = Hmac<Sha256>;

const ALGORITHM: Algorithm = Algorithm::Aes256CbcHmacSha256;

/// Deterministic AEAD_AES_256_CBC_HMAC_SHA_256.
pub(crate) const AES_256_CBC_HMAC_SHA256_DETERMINISTIC: DeterministicDescriptor =
    DeterministicDescriptor::new(BACKEND, ALGORITHM, |_, key| {
        Ok(Box::new(Deterministic(Keys::derive(key)?)))
    });

/// Randomized AEAD_AES_256_CBC_HMAC_SHA_256 (the key setup of
/// `rustcrypto:aes-256-cbc-hmac-sha256`).
pub(crate) fn new_randomized(key: &[u8]) -> Result<Box<dyn Aead>, Error> {
    Ok(Box::new(Randomized(Keys::derive(key)?)))
}

/// HMAC-SHA-256 keyed with `key`.
fn hmac(key: &[u8]) -> Result<HmacSha256, Error> {
    <HmacSha256 as Mac>::new_from_slice(key)
        .map_err(|_| Error::Backend(format!("{BACKEND}: HMAC-SHA-256 refused the key")))
}

/// The derived keys, set up once: AES round keys, and HMAC states keyed (inner and
/// outer pads hashed) so each message costs only its own blocks.
pub(crate) struct Keys {
    aes: Aes256,
    mac: HmacSha256,
    iv: HmacSha256,
}

impl Keys {
    fn derive(cek: &[u8]) -> Result<Keys, Error> {
        let keys = DerivedKeys::derive(cek, |key, message| {
            let mut m = hmac(key)?;
            m.update(message);
            Ok(m.finalize().into_bytes().into())
        })?;
        Ok(Keys {
            aes: Aes256::new_from_slice(&keys.encryption[..])
                .map_err(|_| Error::Backend(format!("{BACKEND}: AES-256 refused the key")))?,
            mac: hmac(&keys.mac[..])?,
            iv: hmac(&keys.iv[..])?,
        })
    }

    fn keyed_mac(&self, pieces: &[&[u8]]) -> HmacSha256 {
        let mut m = self.mac.clone();
        for piece in pieces {
            m.update(piece);
        }
        m
    }
}

impl CbcHmacPrimitives for Keys {
    fn backend(&self) -> &'static str {
        BACKEND
    }

    fn max_len(&self) -> u64 {
        ALGORITHM.max_plaintext_len()
    }

    fn mac(&self, pieces: &[&[u8]]) -> Result<[u8; MAC_LEN], Error> {
        Ok(self.keyed_mac(pieces).finalize().into_bytes().into())
    }

    fn verify_mac(&self, pieces: &[&[u8]], tag: &[u8]) -> Result<bool, Error> {
        // `verify_slice` compares in constant time.
        Ok(self.keyed_mac(pieces).verify_slice(tag).is_ok())
    }

    fn iv_mac(&self, plaintext: &[u8]) -> Result<[u8; MAC_LEN], Error> {
        let mut m = self.iv.clone();
        m.update(plaintext);
        Ok(m.finalize().into_bytes().into())
    }

    fn encrypt(&self, iv: &[u8], buf: &mut [u8], plaintext_len: usize) -> Result<usize, Error> {
        let enc =
            cbc::Encryptor::<Aes256>::inner_iv_slice_init(self.aes.clone(), iv).map_err(|_| {
                Error::Backend(format!("{BACKEND}: CBC refused a {}-byte IV", iv.len()))
            })?;
        let len = enc
            .encrypt_padded_mut::<Pkcs7>(buf, plaintext_len)
            .map_err(|_| Error::Backend(format!("{BACKEND}: CBC padding buffer too small")))?
            .len();
        Ok(len)
    }

    fn decrypt(&self, iv: &[u8], buf: &mut [u8], ciphertext_len: usize) -> Result<usize, Error> {
        let dec = cbc::Decryptor::<Aes256>::inner_iv_slice_init(self.aes.clone(), iv)
            .map_err(|_| Error::Decrypt)?;
        dec.decrypt_padded_mut::<Pkcs7>(&mut buf[..ciphertext_len])
            .map(<[u8]>::len)
            .map_err(|_| Error::Decrypt)
    }
}
