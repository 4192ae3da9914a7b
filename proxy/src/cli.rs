//! The command line: `encbench-proxy --listen ADDR --backend mysql://HOST:PORT --mode forward`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, ValueEnum};

/// What the proxy does to the traffic it carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Every command and every reply packet forwarded verbatim after a header peek (the hop
    /// alone, no decode of rows).
    Forward,
}

/// The backend a proxy connects each client to: `mysql://HOST[:PORT][/]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backend {
    /// Host name or address.
    pub host: String,
    /// TCP port (3306 when the URL gives none).
    pub port: u16,
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.host, self.port)
    }
}

/// Parses `--backend`: `mysql://HOST[:PORT][/]`, without user or password (the proxy relays
/// the client's own login).
///
/// # Errors
/// A one-line message naming the problem and the expected form.
pub fn parse_backend(s: &str) -> Result<Backend, String> {
    let form = "expected mysql://HOST:PORT";
    let url = url::Url::parse(s).map_err(|e| format!("not a URL ({e}); {form}"))?;
    if url.scheme() != "mysql" {
        return Err(format!("scheme {:?} is not mysql; {form}", url.scheme()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!(
            "the proxy relays each client's own login: leave the user and password out; {form}"
        ));
    }
    if !matches!(url.path(), "" | "/") || url.query().is_some() {
        return Err(format!(
            "no database or options here (clients choose theirs); {form}"
        ));
    }
    let host = url
        .host_str()
        .ok_or_else(|| format!("no host; {form}"))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    Ok(Backend {
        host,
        port: url.port().unwrap_or(3306),
    })
}

fn parse_interval(s: &str) -> Result<Duration, String> {
    let secs: f64 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds"))?;
    if !(secs.is_finite() && secs > 0.0) {
        return Err(format!("{s:?}: give a number of seconds above 0"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// `encbench-proxy`'s flags.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "encbench-proxy",
    version,
    about = "A MySQL-protocol proxy: stock sysbench, the mariadb CLI and oltp run through it"
)]
pub struct Cli {
    /// Address to accept clients on, e.g. 127.0.0.1:3307 (port 0: any free port; the
    /// address chosen is printed on standard error).
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: SocketAddr,

    /// The MariaDB/MySQL server, mysql://HOST:PORT (no user or password: each client's
    /// own login is relayed).
    #[arg(long, value_name = "URL", value_parser = parse_backend)]
    pub backend: Backend,

    /// What to do with the traffic.
    #[arg(long, value_enum, default_value_t = Mode::Forward)]
    pub mode: Mode,

    /// Print a line every SECONDS seconds (QPS, connections, errors, proxy CPU), as
    /// sysbench's --report-interval.
    #[arg(long, value_name = "SECONDS", value_parser = parse_interval)]
    pub report_interval: Option<Duration>,

    /// Write a JSON summary to FILE at exit (queries, QPS, connections, errors, CPU seconds).
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,

    /// TLS on the client leg: the proxy's certificate chain (PEM, leaf first); offered to
    /// clients, which then talk TLS to the proxy (the backend leg stays plain).
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// The private key of --tls-cert (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// TLS on the backend leg: the backend's certificate must chain to --backend-tls-ca and
    /// name the --backend host (MySQL's VERIFY_IDENTITY, as oltp's --tls on).
    #[arg(long, requires = "backend_tls_ca")]
    pub backend_tls: bool,

    /// The CA (PEM) that --backend-tls verifies the backend against (a private server's:
    /// <base>/mariadb/tls/ca.pem).
    #[arg(long, value_name = "FILE", requires = "backend_tls")]
    pub backend_tls_ca: Option<PathBuf>,

    /// Runtime worker threads (1: one thread serves every connection, the cheapest on a
    /// loaded machine).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: u16,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_urls() {
        assert_eq!(
            parse_backend("mysql://127.0.0.1:3306/"),
            Ok(Backend {
                host: "127.0.0.1".into(),
                port: 3306
            })
        );
        assert_eq!(parse_backend("mysql://db").map(|b| b.port), Ok(3306));
        assert_eq!(
            parse_backend("mysql://[::1]:4000").map(|b| b.host),
            Ok("::1".into())
        );
        let e = parse_backend("mysql://u:secret@h:1/").expect_err("credentials");
        assert!(
            e.contains("leave the user and password out") && !e.contains("secret"),
            "{e}"
        );
        assert!(parse_backend("postgres://h:1").is_err());
        assert!(parse_backend("mysql://h:1/db").is_err());
    }

    #[test]
    fn intervals() {
        assert_eq!(parse_interval("0.5"), Ok(Duration::from_millis(500)));
        assert!(parse_interval("0").is_err());
        assert!(parse_interval("x").is_err());
    }
}
