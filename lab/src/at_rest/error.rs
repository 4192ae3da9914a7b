//! [`AtRestError`]: one line each, naming the problem and the fix; never a key.

use std::io;
use std::path::{Path, PathBuf};

use crate::io_failure::IoFailure;

/// Why an at-rest mode cannot be used, mounted or verified.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AtRestError {
    /// The machine (or the command line) cannot provide the mode: refused before anything
    /// starts.
    #[error("--at-rest {mode}: {reason}")]
    Refused {
        /// The mode's flag spelling.
        mode: &'static str,
        /// Why, and the fix.
        reason: String,
    },
    /// A program of the mechanism failed.
    #[error("--at-rest {mode}: {program} failed ({status}){detail}")]
    Program {
        /// The mode.
        mode: &'static str,
        /// The program and what it did, e.g. `gocryptfs -init`.
        program: String,
        /// Its exit status.
        status: String,
        /// `: ` and the last line of its output (never holds a key: keys go in files).
        detail: String,
    },
    /// A file operation or system call failed.
    #[error(transparent)]
    Io(IoFailure),
    /// The plaintext search found the known value in an encrypting mode's backing store.
    #[error(
        "--at-rest {mode}: a known plaintext value of sbtest1 was found on the host's disk in {}: the data is not encrypted at rest",
        path.display()
    )]
    PlaintextFound {
        /// The mode.
        mode: &'static str,
        /// The file that holds it.
        path: PathBuf,
    },
    /// A control's backing store does not hold the known value: the search proves nothing.
    #[error(
        "--at-rest {mode}: the known plaintext value of sbtest1 was not found in {}, although this control stores plaintext: the search is broken, so no mode can be verified",
        path.display()
    )]
    ControlNotFound {
        /// The mode.
        mode: &'static str,
        /// The backing store searched.
        path: PathBuf,
    },
}

/// An [`AtRestError::Io`] for `action` on `path`, for `map_err`.
pub(super) fn io(
    action: &'static str,
    path: &Path,
) -> impl FnOnce(io::Error) -> AtRestError + use<> {
    IoFailure::on(action, path, AtRestError::Io)
}
