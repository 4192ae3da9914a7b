//! The two server-side encryption layers `oltp` measures besides column
//! encryption: TLS between client and server (`--tls`) and InnoDB encryption at
//! rest (`--at-rest`), for the private server and for any `--mysql-url`.
//!
//! - TLS: the private server always listens with a certificate chain generated
//!   at its first start (rcgen: an ECDSA P-256 CA and a server certificate for
//!   `127.0.0.1` and `localhost`, in `<server dir>/tls/`), so plaintext and TLS
//!   runs share one server. The client (mysql_async over rustls with the
//!   aws-lc-rs provider) verifies the server against that CA only, always over
//!   TCP, and every TLS connection checks that the server reports a non-empty
//!   `Ssl_cipher`: a silent plaintext fallback cannot pass. The certificates are made by
//!   [`crate::server::ensure_tls_files`].
//! - At rest: a separate private server (`<base-dir>/at-rest/mariadb/`) runs with
//!   the `file_key_management` plugin, a key file generated at its first start
//!   and `innodb_encrypt_tables`/`innodb_encrypt_log` on; before a run every
//!   `sbtest` tablespace must read `ENCRYPTION_SCHEME = 1` in
//!   `information_schema.INNODB_TABLESPACES_ENCRYPTION`. The server's flags and key come
//!   from [`crate::server::server_config`].

use std::path::Path;

use anyhow::{Context, Result, bail};
use mysql_async::prelude::*;
use mysql_async::{Conn, Opts, OptsBuilder, SslOpts};

/// The private server's side of both layers (its certificates, its at-rest key, its
/// `--profile`) lives in [`crate::server`]; re-exported here for the paths that named them
/// `security::`.
pub use crate::server::{
    Profile, TlsFiles, ensure_at_rest_key, ensure_tls_files, server_base, server_config, tls_files,
};

/// `opts` with TLS: verified against `ca` (PEM) only when given, else against
/// the built-in web PKI roots (for cloud servers). Installs rustls's aws-lc-rs
/// provider for the process first (a no-op when one is installed).
pub fn with_tls(opts: Opts, ca: Option<&Path>) -> Opts {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let mut ssl = SslOpts::default();
    if let Some(ca) = ca {
        ssl = ssl
            .with_root_certs(vec![ca.to_path_buf().into()])
            .with_disable_built_in_roots(true);
    }
    OptsBuilder::from_opts(opts).ssl_opts(ssl).into()
}

/// What a TLS session negotiated.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TlsSession {
    /// `Ssl_version`, e.g. `TLSv1.3`.
    pub version: String,
    /// `Ssl_cipher`, e.g. `TLS_AES_256_GCM_SHA384`.
    pub cipher: String,
}

/// Reads the session's `Ssl_version` and `Ssl_cipher`; an empty cipher (the
/// connection is not encrypted) is an error.
///
/// # Errors
/// Query failures, or no TLS on this connection.
pub async fn check_tls(conn: &mut Conn) -> std::result::Result<TlsSession, TlsCheckError> {
    let rows: Vec<(String, String)> = conn
        .query("SHOW SESSION STATUS WHERE Variable_name IN ('Ssl_version', 'Ssl_cipher')")
        .await?;
    let get = |k: &str| {
        rows.iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(k))
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let s = TlsSession {
        version: get("Ssl_version"),
        cipher: get("Ssl_cipher"),
    };
    if s.cipher.is_empty() {
        return Err(TlsCheckError::NotEncrypted);
    }
    Ok(s)
}

/// Why [`check_tls`] failed.
#[derive(Debug, thiserror::Error)]
pub enum TlsCheckError {
    /// The query failed.
    #[error(transparent)]
    Db(#[from] mysql_async::Error),
    /// The session is not encrypted.
    #[error(
        "--tls on, but the server reports an empty Ssl_cipher for this connection: it is not encrypted"
    )]
    NotEncrypted,
}

/// Checks that every `sbtest` table of `db` is encrypted at rest
/// (`ENCRYPTION_SCHEME = 1` in `information_schema.INNODB_TABLESPACES_ENCRYPTION`).
///
/// # Errors
/// The server has no at-rest encryption, or a table is not (yet) encrypted.
pub async fn check_at_rest(conn: &mut Conn, db: &str, tables: u32) -> Result<()> {
    let enabled: Option<String> = conn
        .query_first("SELECT @@innodb_encrypt_tables")
        .await
        .context("cannot read @@innodb_encrypt_tables")?;
    let enabled = enabled.unwrap_or_default();
    if !matches!(enabled.to_ascii_uppercase().as_str(), "ON" | "FORCE" | "1") {
        bail!(
            "--at-rest: the server has innodb_encrypt_tables={enabled}: start it with file_key_management and innodb_encrypt_tables=ON (the private server does this with --at-rest)"
        );
    }
    let rows: Vec<(String, u32)> = conn
        .exec(
            "SELECT NAME, ENCRYPTION_SCHEME FROM information_schema.INNODB_TABLESPACES_ENCRYPTION WHERE NAME LIKE ?",
            (format!("{db}/sbtest%"),),
        )
        .await?;
    for n in 1..=tables {
        let name = format!("{db}/sbtest{n}");
        match rows.iter().find(|(t, _)| *t == name) {
            Some((_, 1)) => {}
            Some(_) => bail!(
                "--at-rest: {name} is not encrypted yet (background encryption threads are working on it): wait and run again"
            ),
            None => bail!(
                "--at-rest: {name} is not listed in INNODB_TABLESPACES_ENCRYPTION: it is not encrypted at rest"
            ),
        }
    }
    Ok(())
}
