//! The one-line error of a connection with `--tls` that failed: what the TLS
//! library said, named, with the fix that fits it.

use super::{DbError, ErrorKind, TlsMode};

/// Why a TLS connection failed, named from the TLS library's error, with the
/// fix that fits it: the error of `run`'s TLS probe and of an administrative
/// connection with TLS (`schema::connect`).
pub(crate) fn tls_failure(
    e: &DbError,
    ca: Option<&std::path::Path>,
    mode: TlsMode,
    postgres: bool,
) -> anyhow::Error {
    if e.kind() == ErrorKind::Tls {
        return anyhow::anyhow!("{e}");
    }
    let text = e.to_string();
    let flag = match mode {
        TlsMode::VerifyIdentity => format!("--tls on ({})", mode.label(postgres)),
        other => format!("--tls {}", other.name()),
    };
    let against = ca.map_or("the built-in web PKI roots".to_string(), |p| {
        p.display().to_string()
    });
    let why = if text.contains("does not have this capability") {
        "the server does not offer TLS (have_ssl is not YES): give it ssl_cert and ssl_key, or run with --tls off".to_string()
    } else if text.contains("server does not support TLS") {
        // tokio-postgres: the server answered the SSLRequest with 'N'.
        "the PostgreSQL server does not offer TLS (ssl = off): set ssl = on, ssl_cert_file and ssl_key_file in its postgresql.conf and reload it (the private server has them from its next start: oltp server stop --db-driver pgsql, then run again), or run with --tls off".to_string()
    } else if text.contains("UnsupportedCertVersion") {
        "the server's certificate is X.509 v1, which rustls (oltp's TLS library) cannot use at any --tls level, --tls required included (the handshake's signature check parses the certificate): re-issue it as X.509 v3, e.g. openssl x509 -req ... -extfile with subjectAltName = IP:HOST".to_string()
    } else if text.contains("UnknownIssuer") || text.contains("BadSignature") {
        match ca {
            Some(p) => format!(
                "the server's certificate is not signed by the CA in {}: give the CA that signed it with --tls-ca, or --tls required to skip the check",
                p.display()
            ),
            None => "the server's certificate does not chain to the built-in web PKI roots: pass --tls-ca FILE with its CA, or --tls required to skip the check".to_string(),
        }
    } else if text.contains("NotValidForName") {
        "the server's certificate does not name the URL's host: use the host it names in the URL, or --tls verify-ca (chain checked, host not)".to_string()
    } else if text.contains("Expired") || text.contains("NotValidYet") {
        "the server's certificate is outside its validity dates: renew it, or --tls required to skip the check".to_string()
    } else {
        let ca_hint = if ca.is_some() {
            String::new()
        } else {
            ": pass --tls-ca FILE".to_string()
        };
        format!(
            "the server must have TLS enabled and a certificate for its host signed by the CA in {against}{ca_hint}"
        )
    };
    anyhow::anyhow!("{flag}: no TLS connection to the server ({text}); {why}")
}
