//! TLS of the private PostgreSQL: the certificate files (generated as the private MariaDB's
//! are, [`ensure_tls_files`], with a CA named `encbench private PostgreSQL CA`), owned by
//! the server's user, and the `ssl` settings in `postgresql.conf`. Both are checked at every
//! start (not at reuse: a running server keeps its settings), so a data directory that
//! predates them gets them at its next start.
//!
//! TLS is offered, not required: `pg_hba.conf` (`init`) has a `hostssl` and a `hostnossl`
//! line, both scram-sha-256, so `oltp --tls off` still connects in plaintext; what makes a
//! plaintext fallback impossible is the client, which checks `pg_stat_ssl` on every TLS
//! connection (oltp's `driver::postgres`).

use std::fs::{self, OpenOptions};
use std::io::Write as _;

use super::error::{PgError, Result};
use super::layout::PgLayout;
use super::owner::Owner;
use crate::server::ensure_tls_files;

/// The first line of the block [`ensure_tls`] appends to `postgresql.conf`; its presence
/// means the block is there.
const MARKER: &str = "# encbench TLS";

/// The settings block for certificate `cert` and key `key` (absolute paths, quoted as
/// `postgresql.conf` quotes). TLS 1.2 at least, as rustls (the client) speaks no older.
fn settings(cert: &str, key: &str) -> String {
    let q = |s: &str| s.replace('\'', "''");
    format!(
        "{MARKER}: offered on every TCP connection, not required (pg_hba.conf accepts both)\n\
         ssl = on\n\
         ssl_cert_file = '{}'\n\
         ssl_key_file = '{}'\n\
         ssl_min_protocol_version = 'TLSv1.2'\n",
        q(cert),
        q(key)
    )
}

/// Creates the TLS files unless they exist, gives them to the server's user (the key stays
/// mode 0600: PostgreSQL refuses a key that others can read), and appends the `ssl`
/// settings to `data/postgresql.conf` unless it has them.
///
/// # Errors
/// [`PgError::Tls`] when the certificates cannot be generated or written, [`PgError::Io`]
/// when `postgresql.conf` cannot be read or written or a file cannot be given away.
pub(super) fn ensure_tls(layout: &PgLayout, owner: Owner) -> Result<()> {
    let files = layout.tls_files();
    ensure_tls_files(&files, "PostgreSQL").map_err(PgError::Tls)?;
    if let Some(dir) = files.ca.parent() {
        owner.take(dir)?;
    }
    for f in [&files.ca, &files.cert, &files.key] {
        owner.take(f)?;
    }
    let conf = layout.data().join("postgresql.conf");
    let text = fs::read_to_string(&conf).map_err(PgError::io("read", &conf))?;
    if text.lines().any(|l| l.starts_with(MARKER)) {
        return Ok(());
    }
    let mut f = OpenOptions::new()
        .append(true)
        .open(&conf)
        .map_err(PgError::io("open", &conf))?;
    let block = settings(
        &files.cert.display().to_string(),
        &files.key.display().to_string(),
    );
    let sep = if text.ends_with('\n') || text.is_empty() {
        ""
    } else {
        "\n"
    };
    write!(f, "{sep}{block}").map_err(PgError::io("write", &conf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_quote_the_paths_and_start_with_the_marker() {
        let s = settings("/b/it's/server-cert.pem", "/b/k.pem");
        assert!(s.starts_with(MARKER), "{s}");
        assert!(s.contains("ssl = on\n"), "{s}");
        assert!(
            s.contains("ssl_cert_file = '/b/it''s/server-cert.pem'\n"),
            "{s}"
        );
        assert!(s.contains("ssl_min_protocol_version = 'TLSv1.2'"), "{s}");
    }
}
