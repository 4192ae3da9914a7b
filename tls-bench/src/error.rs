//! The one error type of the library: every message names the value or step at
//! fault and the fix.

use std::io;

/// What can go wrong in a tls-bench run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A transport, TLS version, certificate type, section or cipher name that does not exist.
    #[error("unknown {what} '{name}': use one of {known}")]
    UnknownName {
        /// Which kind of name (`transport`, `TLS version`, ...).
        what: &'static str,
        /// The name given.
        name: String,
        /// The accepted names, comma-separated.
        known: String,
    },
    /// A combination that the chosen library cannot run.
    #[error("{0}")]
    Unsupported(String),
    /// A network step did not finish within the step timeout.
    #[error(
        "{step} timed out after {secs} s: the peer did not answer (raise --timeout-secs or check the peer)"
    )]
    Timeout {
        /// The step (`connect`, `TLS handshake`, `read`, ...).
        step: &'static str,
        /// The timeout, seconds.
        secs: f64,
    },
    /// The listening address could not be bound.
    #[error("cannot listen on {addr}: {source} (choose a free port, or port 0 for any free one)")]
    Bind {
        /// The address asked for.
        addr: String,
        /// The operating system's error.
        source: io::Error,
    },
    /// The TLS handshake failed (certificate not trusted, peer closed, protocol error).
    #[error("TLS handshake failed ({transport}, {side}): {detail}")]
    Handshake {
        /// Transport name.
        transport: &'static str,
        /// `client` or `server`.
        side: &'static str,
        /// The library's reason, with a hint where one helps.
        detail: String,
    },
    /// An I/O error on an established connection or a file. (The OS error is part of
    /// the message, not a separate `source`, so `{:#}` prints it once.)
    #[error("{step}: {error}")]
    Io {
        /// What was being done.
        step: String,
        /// The operating system's or TLS library's error.
        error: io::Error,
    },
    /// Building a TLS configuration or a certificate failed.
    #[error("TLS setup ({what}): {detail}")]
    Setup {
        /// What was being built.
        what: String,
        /// The library's reason.
        detail: String,
    },
    /// The peer sent something other than what the protocol of the benchmark expects.
    #[error("protocol: {0}")]
    Protocol(String),
    /// A footprint program is missing or could not be measured.
    #[error("footprint: {0}")]
    Footprint(String),
    /// An output file (`--out`) cannot be written; the message names the flag and the fix.
    #[error(transparent)]
    File(#[from] encbench_common::OutputError),
    /// A flag's value refused before anything runs; the message names the
    /// flag and the fix.
    #[error("{0}")]
    Usage(String),
    /// A result did not meet its check (for example a resumption that did not resume).
    #[error("check failed: {0}")]
    Check(String),
}

/// Result with the library's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Wraps an I/O error with the step it happened in.
    pub fn io(step: impl Into<String>, source: io::Error) -> Self {
        Self::Io {
            step: step.into(),
            error: source,
        }
    }

    /// Wraps a setup failure.
    pub fn setup(what: impl Into<String>, detail: impl std::fmt::Display) -> Self {
        Self::Setup {
            what: what.into(),
            detail: detail.to_string(),
        }
    }
}
