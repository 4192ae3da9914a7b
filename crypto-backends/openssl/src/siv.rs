//! AES-256-SIV (RFC 5297) through OpenSSL 3's `AES-256-SIV` cipher: as a nonce-based
//! AEAD (S2V headers: the AAD, then the nonce, as RFC 5297 section 3 and RustCrypto's
//! `SivAead`) and as a deterministic AEAD (the AAD the only header; sealed =
//! `SIV || ciphertext`). Each `EVP_CipherUpdate` with no output buffer adds one S2V
//! header; the data must go in one call (SIV is two-pass). Per-thread contexts keyed
//! once, as the GCM path; OpenSSL's SIV context cannot start a second message without
//! being keyed again, so each message re-keys it (a key schedule per message, as
//! RustCrypto's `SivAead` does too).

use std::fmt;

use encbench_crypto::{
    Aead, Algorithm, DetachedAead, DeterministicAead, DeterministicDescriptor, Error,
};
use openssl::cipher_ctx::CipherCtx;

use crate::aead::{BACKEND, Direction, OpensslAead, backend_error};

const ALGORITHM: Algorithm = Algorithm::Aes256Siv;

/// SIV length in bytes (one AES block).
const SIV_LEN: usize = 16;

/// Deterministic AES-256-SIV.
pub(crate) const AES_256_SIV_DETERMINISTIC: DeterministicDescriptor =
    DeterministicDescriptor::new(BACKEND, ALGORITHM, |_, key| {
        Ok(Box::new(DeterministicSiv(keyed(key)?)))
    });

fn keyed(key: &[u8]) -> Result<OpensslAead, Error> {
    OpensslAead::keyed(ALGORITHM, "AES-256-SIV", key, ALGORITHM.key_len(), 0)
}

/// AES-256-SIV as a nonce-based AEAD (the key setup of `openssl:aes-256-siv`).
pub(crate) fn new_aead(key: &[u8]) -> Result<Box<dyn Aead>, Error> {
    Ok(Box::new(Siv(keyed(key)?)))
}

/// S2V headers as separate AAD updates (an empty header still counts, RFC 5297 S2V).
fn headers(ctx: &mut CipherCtx, headers: &[&[u8]]) -> Result<(), Error> {
    for header in headers {
        ctx.cipher_update(header, None)
            .map_err(|e| backend_error("EVP_CipherUpdate (S2V header)", &e))?;
    }
    Ok(())
}

/// OpenSSL 3.0's SIV provider returns early on a zero-length data update and then
/// fails the final call, so an empty plaintext cannot be sealed or opened through EVP.
pub(crate) const EMPTY_UNSUPPORTED: &str = "OpenSSL's AES-SIV cannot process an empty plaintext (its SIV provider skips zero-length data): use rustcrypto:aes-256-siv for empty values";

fn check_len(len: usize) -> Result<(), Error> {
    if len == 0 {
        return Err(Error::Backend(EMPTY_UNSUPPORTED.to_owned()));
    }
    let max = ALGORITHM.max_plaintext_len();
    let actual = u64::try_from(len).unwrap_or(u64::MAX);
    if actual > max || len > crate::aead::MAX_UPDATE {
        return Err(Error::TooLong {
            algorithm: ALGORITHM,
            max: max.min(crate::aead::MAX_UPDATE as u64),
            actual,
        });
    }
    Ok(())
}

/// Encrypts `in_out` in place under `hdrs`; writes the SIV to `siv`.
fn seal(
    aead: &OpensslAead,
    hdrs: &[&[u8]],
    in_out: &mut [u8],
    siv: &mut [u8],
) -> Result<(), Error> {
    check_len(in_out.len())?;
    let mut ctx = aead.context(Direction::Seal)?;
    aead.rekey(&mut ctx, Direction::Seal)?;
    headers(&mut ctx, hdrs)?;
    let len = in_out.len();
    let written = ctx
        .cipher_update_inplace(in_out, len)
        .map_err(|e| backend_error("EVP_EncryptUpdate", &e))?;
    if written != len {
        return Err(Error::Backend(format!(
            "EVP_EncryptUpdate wrote {written} of {len} bytes"
        )));
    }
    let mut rest = [0u8; 16];
    ctx.cipher_final(&mut rest)
        .map_err(|e| backend_error("EVP_EncryptFinal_ex", &e))?;
    ctx.tag(siv)
        .map_err(|e| backend_error("EVP_CIPHER_CTX_ctrl (get tag)", &e))
}

/// Authenticates and decrypts `in_out` in place; wipes it on failure.
fn open(aead: &OpensslAead, hdrs: &[&[u8]], in_out: &mut [u8], siv: &[u8]) -> Result<(), Error> {
    check_len(in_out.len())?;
    let opened = (|| {
        let mut ctx = aead.context(Direction::Open)?;
        aead.rekey(&mut ctx, Direction::Open)?;
        // SIV needs the tag before the data: the CTR IV is the SIV.
        ctx.set_tag(siv)
            .map_err(|e| backend_error("EVP_CIPHER_CTX_ctrl (set tag)", &e))?;
        headers(&mut ctx, hdrs)?;
        let len = in_out.len();
        // OpenSSL checks the SIV inside the data update (and in final): any failure
        // past this point is an authentication failure.
        let written = ctx
            .cipher_update_inplace(in_out, len)
            .map_err(|_| Error::Decrypt)?;
        let mut rest = [0u8; 16];
        ctx.cipher_final(&mut rest).map_err(|_| Error::Decrypt)?;
        if written == len {
            Ok(())
        } else {
            Err(Error::Decrypt)
        }
    })();
    if opened.is_err() {
        in_out.fill(0);
    }
    opened
}

/// Nonce-based AES-256-SIV.
pub(crate) struct Siv(OpensslAead);

impl DetachedAead for Siv {
    fn algorithm(&self) -> Algorithm {
        ALGORITHM
    }

    fn backend(&self) -> &'static str {
        BACKEND
    }

    fn seal_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), Error> {
        Error::check_nonce(ALGORITHM, nonce.len())?;
        Error::check_tag(ALGORITHM, tag.len())?;
        seal(&self.0, &[aad, nonce], in_out, tag)
    }

    fn open_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        Error::check_nonce(ALGORITHM, nonce.len())?;
        Error::check_tag(ALGORITHM, tag.len())?;
        open(&self.0, &[aad, nonce], in_out, tag)
    }
}

/// Deterministic AES-256-SIV.
pub(crate) struct DeterministicSiv(OpensslAead);

impl DeterministicAead for DeterministicSiv {
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
        let sealed = seal(&self.0, &[aad], body, siv);
        if sealed.is_err() {
            out.fill(0);
            out.clear();
        }
        sealed
    }

    fn open(&self, aad: &[u8], sealed: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        out.clear();
        if sealed.len() < SIV_LEN {
            return Err(Error::Decrypt);
        }
        let (siv, body) = sealed.split_at(SIV_LEN);
        out.extend_from_slice(body);
        let opened = open(&self.0, &[aad], out, siv);
        if opened.is_err() {
            out.clear();
        }
        opened
    }
}

impl fmt::Debug for Siv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Siv(aes-256-siv { key: <redacted> })")
    }
}

impl fmt::Debug for DeterministicSiv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DeterministicSiv(aes-256-siv { key: <redacted> })")
    }
}
