//! `--encrypt`: a column-encryption choice.

use std::fmt;

use encbench_crypto::{Algorithm, Descriptor};

use crate::{Error, Result};

/// A column-encryption choice: `none`, or a backend and algorithm from the registry.
#[derive(Clone, Copy)]
pub enum Encrypt {
    /// Plaintext columns (sysbench's schema).
    None,
    /// `c` and `pad` stored as envelopes sealed with this backend and algorithm.
    Aead(&'static Descriptor),
}

impl Encrypt {
    /// Parses `none` or `BACKEND:ALGORITHM` (see `encbench_registry::names`).
    ///
    /// # Errors
    /// [`Error::UnknownEncrypt`]: an unknown or not-compiled-in name; the
    /// message lists the valid names.
    pub fn parse(text: &str) -> Result<Encrypt> {
        if text.eq_ignore_ascii_case("none") || text.eq_ignore_ascii_case("plaintext") {
            return Ok(Encrypt::None);
        }
        let d =
            encbench_registry::lookup(text).map_err(|reason| Error::UnknownEncrypt { reason })?;
        Ok(Encrypt::Aead(d))
    }

    /// `none` or `BACKEND:ALGORITHM`.
    pub fn name(&self) -> String {
        match self {
            Encrypt::None => "none".to_string(),
            Encrypt::Aead(d) => d.name(),
        }
    }

    /// The algorithm, when encrypting.
    pub fn algorithm(&self) -> Option<Algorithm> {
        match self {
            Encrypt::None => None,
            Encrypt::Aead(d) => Some(d.algorithm),
        }
    }
}

impl fmt::Debug for Encrypt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl fmt::Display for Encrypt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}
