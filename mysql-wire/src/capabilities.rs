//! The capability flags a proxy lets through: both legs (client and backend) run with the
//! same effective set, the backend's greeting masked to what the proxy implements and the
//! client's login masked the same way.

use mysql_common::constants::{CapabilityFlags, MariadbCapabilities};

/// The protocol capabilities the proxy implements and lets through when the server offers
/// them. Left out: `CLIENT_COMPRESS` and `CLIENT_ZSTD_COMPRESSION_ALGORITHM` (packets are
/// followed by their plain headers), `CLIENT_SSL` (the proxy's own, per leg: see
/// [`client_leg`]), `CLIENT_LOCAL_FILES` (a reply that asks the client for a file),
/// `CLIENT_DEPRECATE_EOF` and `CLIENT_OPTIONAL_RESULTSET_METADATA` (one reply grammar: EOF
/// after column definitions and rows, definitions always sent), `CLIENT_PROGRESS_OBSOLETE`
/// (progress reports inside a reply), `CLIENT_QUERY_ATTRIBUTES` (another command layout).
///
/// `CLIENT_LONG_PASSWORD` is bit 0, which MariaDB clears to say "MariaDB extended
/// capabilities follow" (`CLIENT_MYSQL`): kept as the server sends it.
pub const FORWARDED: CapabilityFlags = CapabilityFlags::CLIENT_LONG_PASSWORD
    .union(CapabilityFlags::CLIENT_FOUND_ROWS)
    .union(CapabilityFlags::CLIENT_LONG_FLAG)
    .union(CapabilityFlags::CLIENT_CONNECT_WITH_DB)
    .union(CapabilityFlags::CLIENT_NO_SCHEMA)
    .union(CapabilityFlags::CLIENT_ODBC)
    .union(CapabilityFlags::CLIENT_IGNORE_SPACE)
    .union(CapabilityFlags::CLIENT_PROTOCOL_41)
    .union(CapabilityFlags::CLIENT_INTERACTIVE)
    .union(CapabilityFlags::CLIENT_IGNORE_SIGPIPE)
    .union(CapabilityFlags::CLIENT_TRANSACTIONS)
    .union(CapabilityFlags::CLIENT_RESERVED)
    .union(CapabilityFlags::CLIENT_SECURE_CONNECTION)
    .union(CapabilityFlags::CLIENT_MULTI_STATEMENTS)
    .union(CapabilityFlags::CLIENT_MULTI_RESULTS)
    .union(CapabilityFlags::CLIENT_PS_MULTI_RESULTS)
    .union(CapabilityFlags::CLIENT_PLUGIN_AUTH)
    .union(CapabilityFlags::CLIENT_CONNECT_ATTRS)
    .union(CapabilityFlags::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA)
    .union(CapabilityFlags::CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS)
    .union(CapabilityFlags::CLIENT_SESSION_TRACK)
    .union(CapabilityFlags::CLIENT_SSL_VERIFY_SERVER_CERT)
    .union(CapabilityFlags::CLIENT_REMEMBER_OPTIONS);

/// The MariaDB extended capabilities the proxy lets through: none. `CACHE_METADATA` lets
/// the server omit column definitions of `COM_STMT_EXECUTE` replies, `PROGRESS` adds
/// progress reports, `STMT_BULK_OPERATIONS` adds a command, `EXTENDED_METADATA` changes
/// column definitions: none is needed by sysbench, the `mariadb` CLI or oltp.
pub const FORWARDED_MARIADB: MariadbCapabilities = MariadbCapabilities::empty();

/// The capabilities the client leg runs with, given the server's `server` set:
/// `server ∩ FORWARDED`, plus `CLIENT_SSL` when the proxy terminates TLS itself (`tls`).
pub fn client_leg(server: CapabilityFlags, tls: bool) -> CapabilityFlags {
    let mut caps = server & FORWARDED;
    caps.set(CapabilityFlags::CLIENT_SSL, tls);
    caps
}

/// A client's `requested` capabilities as sent to the backend: `requested ∩ FORWARDED`,
/// plus `CLIENT_SSL` when the backend leg runs TLS (`backend_tls`).
pub fn backend_leg(requested: CapabilityFlags, backend_tls: bool) -> CapabilityFlags {
    let mut caps = requested & FORWARDED;
    caps.set(CapabilityFlags::CLIENT_SSL, backend_tls);
    caps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compression_tls_local_files_and_deprecate_eof_never_pass() {
        let all = CapabilityFlags::all();
        let c = client_leg(all, false);
        for f in [
            CapabilityFlags::CLIENT_COMPRESS,
            CapabilityFlags::CLIENT_ZSTD_COMPRESSION_ALGORITHM,
            CapabilityFlags::CLIENT_SSL,
            CapabilityFlags::CLIENT_LOCAL_FILES,
            CapabilityFlags::CLIENT_DEPRECATE_EOF,
            CapabilityFlags::CLIENT_OPTIONAL_RESULTSET_METADATA,
            CapabilityFlags::CLIENT_PROGRESS_OBSOLETE,
            CapabilityFlags::CLIENT_QUERY_ATTRIBUTES,
        ] {
            assert!(!c.contains(f), "{f:?} passed");
        }
        assert!(client_leg(all, true).contains(CapabilityFlags::CLIENT_SSL));
        assert!(!backend_leg(all, false).contains(CapabilityFlags::CLIENT_SSL));
    }

    #[test]
    fn mariadbs_cleared_bit_0_stays_cleared() {
        let server = CapabilityFlags::CLIENT_PROTOCOL_41 | CapabilityFlags::CLIENT_PLUGIN_AUTH;
        assert!(!client_leg(server, false).contains(CapabilityFlags::CLIENT_LONG_PASSWORD));
    }
}
