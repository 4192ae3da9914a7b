//! SQL Server Always Encrypted's `AEAD_AES_256_CBC_HMAC_SHA_256` built on the `aes`
//! block cipher, `cbc` (PKCS#7), `hmac` and `sha2`: randomized (the [`Aead`] trait, the
//! IV is the nonce) and deterministic (the [`DeterministicAead`] trait, IV from an HMAC
//! of the plaintext). Constants and layout: [`encbench_crypto::always_encrypted`].

use std::fmt;

use aes::Aes256;
use aes::cipher::block_padding::Pkcs7;
use aes::cipher::{BlockDecryptMut, BlockEncryptMut, InnerIvInit, KeyInit};
use encbench_crypto::always_encrypted::{
    self as ae, BLOCK_LEN, CELL_CIPHERTEXT_AT, CELL_IV_AT, MAC_LEN, MIN_CELL_LEN,
};
use encbench_crypto::{
    Aead, Algorithm, Descriptor, DeterministicAead, DeterministicDescriptor, Error,
};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use zeroize::Zeroizing;

use crate::aead::BACKEND;

type HmacSha256 = Hmac<Sha256>;

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

/// The three derived keys, set up once: AES round keys, and HMAC states keyed
/// (inner and outer pads hashed) so each message costs only its own blocks.
struct Keys {
    aes: Aes256,
    mac: HmacSha256,
    iv: HmacSha256,
}

/// HMAC-SHA-256 keyed with `key`.
fn hmac(key: &[u8]) -> Result<HmacSha256, Error> {
    <HmacSha256 as Mac>::new_from_slice(key)
        .map_err(|_| Error::Backend(format!("{BACKEND}: HMAC-SHA-256 refused the key")))
}

impl Keys {
    /// Derives encryption, MAC and IV keys from the column encryption key.
    fn derive(cek: &[u8]) -> Result<Keys, Error> {
        Error::check_key(ALGORITHM, cek.len())?;
        let derive = |salt: &str| -> Result<Zeroizing<[u8; 32]>, Error> {
            let mut m = hmac(cek)?;
            m.update(&ae::utf16le(salt));
            Ok(Zeroizing::new(m.finalize().into_bytes().into()))
        };
        let enc_key = derive(ae::ENCRYPTION_KEY_SALT)?;
        let mac_key = derive(ae::MAC_KEY_SALT)?;
        let iv_key = derive(ae::IV_KEY_SALT)?;
        Ok(Keys {
            aes: Aes256::new_from_slice(&enc_key[..])
                .map_err(|_| Error::Backend(format!("{BACKEND}: AES-256 refused the key")))?,
            mac: hmac(&mac_key[..])?,
            iv: hmac(&iv_key[..])?,
        })
    }

    /// The MAC over version, IV, ciphertext and the trailer for `aad`.
    fn mac(&self, iv: &[u8], ciphertext: &[u8], aad: &[u8]) -> HmacSha256 {
        let mut m = self.mac.clone();
        m.update(&[ae::VERSION]);
        m.update(iv);
        m.update(ciphertext);
        ae::mac_trailer(aad, |piece| m.update(piece));
        m
    }

    /// Pads and encrypts `buf[..plaintext_len]` in place; `buf` has room for the padding.
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

    /// Decrypts and unpads in place (after the MAC was verified); returns the plaintext length.
    fn decrypt(&self, iv: &[u8], buf: &mut [u8]) -> Result<usize, Error> {
        let dec = cbc::Decryptor::<Aes256>::inner_iv_slice_init(self.aes.clone(), iv)
            .map_err(|_| Error::Decrypt)?;
        dec.decrypt_padded_mut::<Pkcs7>(buf)
            .map(<[u8]>::len)
            .map_err(|_| Error::Decrypt)
    }

    fn check_len(len: usize) -> Result<(), Error> {
        let max = ALGORITHM.max_plaintext_len();
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
        buf.resize(ct_len, 0);
        self.0.encrypt(nonce, buf, plaintext_len)?;
        let tag = self.0.mac(nonce, buf, aad).finalize().into_bytes();
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
        let (ct, tag) = buf.split_at_mut(ct_len);
        // Encrypt-then-MAC: verify (constant time) before touching the ciphertext.
        self.0
            .mac(nonce, ct, aad)
            .verify_slice(tag)
            .map_err(|_| Error::Decrypt)?;
        let len = self.0.decrypt(nonce, ct)?;
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
        let mut iv_mac = self.0.iv.clone();
        iv_mac.update(plaintext);
        let iv_full = iv_mac.finalize().into_bytes();
        let iv = &iv_full[..BLOCK_LEN];
        out.resize(CELL_CIPHERTEXT_AT, 0);
        out[0] = ae::VERSION;
        out[CELL_IV_AT..CELL_CIPHERTEXT_AT].copy_from_slice(iv);
        out.extend_from_slice(plaintext);
        out.resize(
            CELL_CIPHERTEXT_AT + ALGORITHM.ciphertext_len(plaintext.len()),
            0,
        );
        self.0
            .encrypt(iv, &mut out[CELL_CIPHERTEXT_AT..], plaintext.len())?;
        let tag = self
            .0
            .mac(iv, &out[CELL_CIPHERTEXT_AT..], aad)
            .finalize()
            .into_bytes();
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
        self.0
            .mac(iv, ct, aad)
            .verify_slice(&sealed[1..CELL_IV_AT])
            .map_err(|_| Error::Decrypt)?;
        out.extend_from_slice(ct);
        match self.0.decrypt(iv, out) {
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
