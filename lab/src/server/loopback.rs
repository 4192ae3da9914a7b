//! Which port of this machine's loopback a server URL names: how a command given a
//! `--mysql-url` or `--pgsql-url` finds out that it names a private server (by its port).
//! The lab holds no database client: a `mysql://` URL is read with the `url` crate (as
//! oltp's MySQL driver reads it), a `postgres://` one by [`pg_port`] (as its PostgreSQL
//! driver does).

use url::Url;

/// The host names that are this machine's loopback in a URL the lab recognises (those
/// of the URLs it prints, and `localhost`).
const LOOPBACK: [&str; 2] = ["127.0.0.1", "localhost"];

/// MySQL's default TCP port, of a `mysql://` URL without one.
const MYSQL_DEFAULT_PORT: u16 = 3306;

/// PostgreSQL's default TCP port, of a `postgres://` URL without one.
const PG_DEFAULT_PORT: u16 = 5432;

/// The loopback TCP port a `mysql://USER:PASS@HOST:PORT/...` URL names (3306 without
/// one), read as oltp's MySQL driver reads it (the same `url` crate): `None` when it is no
/// `mysql://` URL with a host, or its host is not `127.0.0.1` or `localhost`.
pub(super) fn mysql_port(url: &str) -> Option<u16> {
    let url = Url::parse(url).ok()?;
    if url.scheme() != "mysql" || url.cannot_be_a_base() || !url.has_host() {
        return None;
    }
    LOOPBACK
        .contains(&url.host_str()?)
        .then(|| url.port().unwrap_or(MYSQL_DEFAULT_PORT))
}

/// The loopback TCP port a `postgres://` or `postgresql://` URL names, read with
/// tokio-postgres' syntax (its own, not the `url` crate's: an authority may list several
/// `HOST[:PORT]`, and `host` and `port` parameters add more): every host must be
/// `127.0.0.1` or `localhost`, and the port is the first one (5432 where none is given).
/// `None` for other text, other hosts and a Unix socket directory as host. Other
/// parameters are not checked: a URL the driver refuses fails when it connects.
pub(super) fn pg_port(url: &str) -> Option<u16> {
    let rest = url
        .strip_prefix("postgres://")
        .or_else(|| url.strip_prefix("postgresql://"))?;
    // USER:PASS ends at the first '@' of the text.
    let rest = rest.split_once('@').map_or(rest, |(_, r)| r);
    let (authority, rest) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    let mut loopback = true;
    let mut ports = Vec::new();
    if !authority.is_empty() {
        for chunk in authority.split(',') {
            let (host, port) = match chunk.strip_prefix('[') {
                Some(v6) => {
                    let (host, after) = v6.split_once(']')?;
                    match after {
                        "" => (host, None),
                        a => (host, Some(a.strip_prefix(':')?)),
                    }
                }
                None => chunk
                    .split_once(':')
                    .map_or((chunk, None), |(h, p)| (h, Some(p))),
            };
            loopback &= is_loopback(host)?;
            pg_ports(&decode(port.unwrap_or(""))?, &mut ports)?;
        }
    }
    // The database name ends at '?'; then KEY=VALUE pairs joined by '&'.
    if let Some((_, query)) = rest.split_once('?') {
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=')?;
            match &*decode(key)? {
                "host" => loopback &= is_loopback(value)?,
                "port" => pg_ports(&decode(value)?, &mut ports)?,
                _ => {}
            }
        }
    }
    loopback.then(|| ports.first().copied().unwrap_or(PG_DEFAULT_PORT))
}

/// Whether the percent-encoded `host` is `127.0.0.1` or `localhost`; `None` when it is
/// no UTF-8 (and no socket directory, which is no loopback name either).
fn is_loopback(host: &str) -> Option<bool> {
    let bytes: Vec<u8> = percent_encoding::percent_decode_str(host).collect();
    if bytes.first() == Some(&b'/') {
        return Some(false);
    }
    Some(LOOPBACK.contains(&std::str::from_utf8(&bytes).ok()?))
}

/// Appends the comma-separated `ports` (an empty one is 5432); `None` when one is no
/// port number.
fn pg_ports(ports: &str, out: &mut Vec<u16>) -> Option<()> {
    for port in ports.split(',') {
        out.push(match port {
            "" => PG_DEFAULT_PORT,
            p => p.parse().ok()?,
        });
    }
    Some(())
}

/// `text` percent-decoded, if that is UTF-8.
fn decode(text: &str) -> Option<std::borrow::Cow<'_, str>> {
    percent_encoding::percent_decode_str(text)
        .decode_utf8()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mysql_url_names_a_loopback_port() {
        // What `PrivateServer::url` prints, and the same by hand.
        assert_eq!(
            mysql_port("mysql://encbench:pw@127.0.0.1:33061/"),
            Some(33061)
        );
        assert_eq!(
            mysql_port("mysql://u@localhost:4000/sbtest?prefer_socket=false"),
            Some(4000)
        );
        assert_eq!(mysql_port("mysql://u@127.0.0.1"), Some(3306));
        // Not the loopback, not MySQL, not a URL.
        assert_eq!(mysql_port("mysql://u@db.example:3306/"), None);
        assert_eq!(mysql_port("mysql://u@10.0.0.1:3306/"), None);
        assert_eq!(mysql_port("mysql://u@[::1]:3306/"), None);
        assert_eq!(mysql_port("postgres://u@127.0.0.1:3306/"), None);
        assert_eq!(mysql_port("mysql:///db"), None);
        assert_eq!(mysql_port("127.0.0.1:3306"), None);
        assert_eq!(mysql_port("mysql://u@127.0.0.1:notaport/"), None);
    }

    #[test]
    fn a_postgres_url_names_a_loopback_port() {
        // What `PgServer::url` prints, and the same by hand.
        assert_eq!(
            pg_port("postgres://encbench:pw@127.0.0.1:54321/postgres"),
            Some(54321)
        );
        assert_eq!(pg_port("postgresql://u@localhost/db"), Some(5432));
        assert_eq!(pg_port("postgres://u@127.0.0.1:5433"), Some(5433));
        // Hosts and ports from the parameters, as tokio-postgres reads them.
        assert_eq!(
            pg_port("postgres:///db?host=localhost&port=5434"),
            Some(5434)
        );
        assert_eq!(
            pg_port("postgres://u@127.0.0.1:5433/db?port=5434"),
            Some(5433)
        );
        assert_eq!(
            pg_port("postgres://u@127.0.0.1:5433/db?host=db.example"),
            None
        );
        assert_eq!(
            pg_port("postgres:///db?host=%2Fvar%2Frun%2Fpostgresql"),
            None
        );
        // Not the loopback, not PostgreSQL, not a URL.
        assert_eq!(pg_port("postgres://u@db.example:5432/db"), None);
        assert_eq!(
            pg_port("postgres://u@127.0.0.1:5432,db.example:5432/db"),
            None
        );
        // Several loopback hosts: the first one's port.
        assert_eq!(
            pg_port("postgres://u@127.0.0.1,localhost:5433/db"),
            Some(5432)
        );
        assert_eq!(pg_port("postgres://u@127.0.0.1:5434,[::1]:5433/db"), None);
        assert_eq!(
            pg_port("postgres://u@localhost:5434,127.0.0.1:5433/db"),
            Some(5434)
        );
        assert_eq!(pg_port("mysql://u@127.0.0.1:5432/"), None);
        assert_eq!(pg_port("host=127.0.0.1 port=5432"), None);
        assert_eq!(pg_port("postgres://u@127.0.0.1:x/db"), None);
    }
}
