//! Deterministic AES-256-SIV (RFC 5297, `AEAD_AES_SIV_CMAC_512` without a nonce): the
//! AAD is the only S2V header; sealed = `SIV (16 bytes) || ciphertext`. Built on
//! `aes_siv::siv::Aes256Siv`, keyed per call as the crate's own `SivAead` does (its
//! methods take `&mut self`).

use std::fmt;

use aes_siv::KeyInit;
use aes_siv::aead::generic_array::GenericArray;
use aes_siv::siv::Aes256Siv;
use encbench_crypto::{Algorithm, DeterministicAead, DeterministicDescriptor, Error};
use zeroize::Zeroizing;

use crate::BACKEND;

const ALGORITHM: Algorithm = Algorithm::Aes256Siv;

/// SIV length in bytes (RFC 5297: one AES block).
const SIV_LEN: usize = 16;

/// Deterministic AES-256-SIV.
pub(crate) const AES_256_SIV_DETERMINISTIC: DeterministicDescriptor =
    DeterministicDescriptor::new(BACKEND, ALGORITHM, new_key);

fn new_key(algorithm: Algorithm, key: &[u8]) -> Result<Box<dyn DeterministicAead>, Error> {
    Error::check_key(algorithm, key.len())?;
    Ok(Box::new(Siv {
        key: Zeroizing::new(key.to_vec()),
    }))
}

/// The 64-byte key (S2V key, then CTR key), zeroized on drop.
pub(crate) struct Siv {
    key: Zeroizing<Vec<u8>>,
}

impl Siv {
    fn cipher(&self) -> Aes256Siv {
        Aes256Siv::new(GenericArray::from_slice(&self.key))
    }
}

impl DeterministicAead for Siv {
    fn algorithm(&self) -> Algorithm {
        ALGORITHM
    }

    fn backend(&self) -> &'static str {
        BACKEND
    }

    fn seal(&self, aad: &[u8], plaintext: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        out.clear();
        out.resize(SIV_LEN, 0);
        out.extend_from_slice(plaintext);
        let (siv, body) = out.split_at_mut(SIV_LEN);
        match self.cipher().encrypt_in_place_detached([aad], body) {
            Ok(tag) => {
                siv.copy_from_slice(&tag);
                Ok(())
            }
            Err(_) => {
                out.fill(0);
                out.clear();
                Err(Error::Backend(format!(
                    "{BACKEND}: AES-SIV refused the input"
                )))
            }
        }
    }

    fn open(&self, aad: &[u8], sealed: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        out.clear();
        if sealed.len() < SIV_LEN {
            return Err(Error::Decrypt);
        }
        let (siv, body) = sealed.split_at(SIV_LEN);
        out.extend_from_slice(body);
        if self
            .cipher()
            .decrypt_in_place_detached([aad], out, GenericArray::from_slice(siv))
            .is_err()
        {
            out.fill(0);
            out.clear();
            return Err(Error::Decrypt);
        }
        Ok(())
    }
}

impl fmt::Debug for Siv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Siv(aes-256-siv { key: <redacted> })")
    }
}
