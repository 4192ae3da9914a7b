//! The errors of the column-bench library. Every message is one line that names
//! the flag, file or value at fault and, where there is one, the fix; the
//! underlying error (I/O, MySQL, backend) is its `source`.

/// What can go wrong in a column-bench run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A flag, a file named by a flag, or a value in it is invalid.
    #[error("{0}")]
    Invalid(String),
    /// A file could not be read or written.
    #[error("{context}")]
    Io {
        /// What was being done, with the flag and path.
        context: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// `--from-mysql`: the server could not be reached or queried. The driver's
    /// error is part of the message (its own Display already includes its
    /// causes), then the fix.
    #[error("{context}: {error}{fix}")]
    Mysql {
        /// What was being done.
        context: String,
        /// The driver's error.
        error: mysql_async::Error,
        /// `: ` and what to do, or empty.
        fix: String,
    },
    /// A backend could not set a key up, seal or open.
    #[error("{context}")]
    Crypto {
        /// `BACKEND:ALGORITHM` and what was being done.
        context: String,
        /// The backend's error.
        #[source]
        source: encbench_registry::Error,
    },
    /// The column codec could not set its keys up.
    #[error("{context}")]
    Codec {
        /// `BACKEND:ALGORITHM` and what was being done.
        context: String,
        /// The codec's error.
        #[source]
        source: encbench_columns::Error,
    },
    /// An envelope did not seal or open.
    #[error("{context}")]
    Envelope {
        /// `BACKEND:ALGORITHM` and what was being done.
        context: String,
        /// The envelope's error.
        #[source]
        source: encbench_registry::EnvelopeError,
    },
    /// Encoding an output format failed.
    #[error("cannot encode the {format} output: {detail}")]
    Output {
        /// `json`, `csv` or `svg`.
        format: &'static str,
        /// What the encoder reported.
        detail: String,
    },
    /// An output file (`--svg`) cannot be written; the message names the flag and the fix.
    #[error(transparent)]
    File(#[from] encbench_common::OutputError),
    /// A measurement thread panicked (a bug: please report it).
    #[error("a measurement thread panicked")]
    ThreadPanicked,
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// Returns `Err(Error::Invalid(format!(...)))` from the enclosing function.
macro_rules! invalid {
    ($($arg:tt)*) => {
        return Err($crate::error::Error::Invalid(format!($($arg)*)))
    };
}
pub(crate) use invalid;

/// `Error::Invalid(format!(...))`, as an expression.
macro_rules! invalid_err {
    ($($arg:tt)*) => {
        $crate::error::Error::Invalid(format!($($arg)*))
    };
}
pub(crate) use invalid_err;
