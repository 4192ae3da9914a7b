//! Errors of one query or transaction, and how a worker treats them.

use encbench_crypto::envelope::{DETERMINISTIC_VERSION, EnvelopeError, VERSION};

use crate::columns::Column;
use crate::driver::{DbError, ErrorKind};

/// Errors of one query or transaction.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The driver or server failed.
    #[error(transparent)]
    Db(#[from] DbError),
    /// A stored value did not open. The run checked the column's layout
    /// against `encbench_meta` before it began, so an envelope of the other
    /// kind is named a changed value, not a `--deterministic` to give.
    #[error("{table}.{column} id={id}: {source}{}", changed_after_prepare(source))]
    Open {
        /// Table name.
        table: String,
        /// Column.
        column: Column,
        /// Primary key.
        id: i64,
        /// Why.
        source: EnvelopeError,
    },
    /// An encrypted column holds NULL: no envelope to open, so the value is
    /// missing or was written around oltp (a column altered to allow NULL).
    /// An integrity failure like [`QueryError::Open`], never a row to skip.
    #[error(
        "{table}.{column} id={id}: NULL in an encrypted column, where an envelope must be (written around oltp, or the column altered to allow NULL): run oltp cleanup and prepare again"
    )]
    Null {
        /// Table name.
        table: String,
        /// Column.
        column: Column,
        /// Primary key.
        id: i64,
    },
    /// A new value could not be sealed.
    #[error("sealing {table}.{column} id={id}: {source}")]
    Seal {
        /// Table name.
        table: String,
        /// Column.
        column: Column,
        /// Primary key.
        id: i64,
        /// Why.
        source: EnvelopeError,
    },
    /// The connection was lost and reconnecting failed for the whole window.
    #[error(
        "lost the connection to the server and could not reconnect within {secs} s ({source}): check that the server is up"
    )]
    ConnectionLost {
        /// The reconnect window, s.
        secs: u64,
        /// The last reconnect error.
        source: DbError,
    },
    /// The server returned something the workload does not expect.
    #[error("unexpected result: {0}")]
    Protocol(String),
}

/// What an envelope of the other kind means in a run: the layout matched
/// `encbench_meta`, so the value was changed; empty for other failures.
fn changed_after_prepare(e: &EnvelopeError) -> &'static str {
    match e {
        EnvelopeError::Version(VERSION | DETERMINISTIC_VERSION) => {
            "; encbench_meta records the column's envelopes as this run reads them, so the stored value was changed after prepare (a changed byte, or written around oltp)"
        }
        _ => "",
    }
}

impl QueryError {
    /// A server error that sysbench ignores by default (the event is restarted).
    pub fn is_ignorable(&self) -> bool {
        matches!(self, QueryError::Db(e) if e.kind().is_ignorable())
    }

    /// A stored value failed authentication (wrong key, another row's value,
    /// a changed byte) or an encrypted value is NULL: counted as a decryption
    /// failure.
    pub fn is_decrypt_failure(&self) -> bool {
        matches!(self, QueryError::Open { .. } | QueryError::Null { .. })
    }

    /// The connection is gone: reconnect.
    pub fn is_connection_lost(&self) -> bool {
        matches!(self, QueryError::Db(e) if e.kind() == ErrorKind::ConnectionLost)
    }
}
