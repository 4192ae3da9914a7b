//! [`IoFailure`]: a file operation or system call that failed, on a path: the one
//! `Io` variant of [`AtRestError`](crate::at_rest::AtRestError),
//! [`ServerError`](crate::server::ServerError) and the private PostgreSQL's error.

use std::io;
use std::path::{Path, PathBuf};

/// What was done to which path, and the operating system's error: one line,
/// `cannot {action} {path}: {source}` (the error names the fix, e.g. "Permission
/// denied", "No space left on device").
#[derive(Debug, thiserror::Error)]
#[error("cannot {action} {}: {source}", path.display())]
pub struct IoFailure {
    /// What was being done, e.g. `create directory`, `run`.
    pub action: &'static str,
    /// The file, directory or program.
    pub path: PathBuf,
    /// The operating system's error.
    #[source]
    pub source: io::Error,
}

impl IoFailure {
    /// An [`IoFailure`] for `action` on `path`, for `map_err` (wrapped in the
    /// caller's error by `wrap`, e.g. `ServerError::Io`).
    pub(crate) fn on<E>(
        action: &'static str,
        path: &Path,
        wrap: fn(IoFailure) -> E,
    ) -> impl FnOnce(io::Error) -> E + use<E> {
        let path = path.to_path_buf();
        move |source| {
            wrap(IoFailure {
                action,
                path,
                source,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::IoFailure;
    use crate::at_rest::AtRestError;
    use crate::server::ServerError;

    /// Each error's `Io` variant shows the one line and keeps the OS error as its source.
    #[test]
    fn every_io_variant_is_one_line_naming_the_path_with_the_os_error_as_source() {
        let path = Path::new("/nonexistent-encbench/keys");
        let fail = || std::fs::read(path).expect_err("no such file");
        let want = "cannot read /nonexistent-encbench/keys: No such file or directory (os error 2)";
        let at_rest = IoFailure::on("read", path, AtRestError::Io)(fail());
        let server = IoFailure::on("read", path, ServerError::Io)(fail());
        for e in [&at_rest as &dyn std::error::Error, &server] {
            assert_eq!(e.to_string(), want);
            let source = e.source().expect("the io::Error");
            assert!(
                source.downcast_ref::<std::io::Error>().is_some(),
                "{source}"
            );
        }
    }
}
