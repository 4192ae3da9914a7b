//! Errors of one query or transaction, and how a worker treats them.

use encbench_crypto::envelope::EnvelopeError;

use crate::columns::Column;
use crate::driver::{DbError, ErrorKind};

/// Errors of one query or transaction.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The driver or server failed.
    #[error(transparent)]
    Db(#[from] DbError),
    /// A stored value did not open.
    #[error("{table}.{column} id={id}: {source}")]
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

impl QueryError {
    /// A server error that sysbench ignores by default (the event is restarted).
    pub fn is_ignorable(&self) -> bool {
        matches!(self, QueryError::Db(e) if e.kind().is_ignorable())
    }

    /// A stored value failed authentication (wrong key, another row's value,
    /// a changed byte): counted as a decryption failure.
    pub fn is_decrypt_failure(&self) -> bool {
        matches!(self, QueryError::Open { .. })
    }

    /// The connection is gone: reconnect.
    pub fn is_connection_lost(&self) -> bool {
        matches!(self, QueryError::Db(e) if e.kind() == ErrorKind::ConnectionLost)
    }
}
