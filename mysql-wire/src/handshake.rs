//! The connection phase as a relaying proxy sees it: the backend's greeting parsed with
//! mysql_common and re-serialized with the capabilities masked to what the proxy
//! implements ([`crate::capabilities`]); the client's login (`SslRequest` or
//! `HandshakeResponse`) parsed and re-serialized with its capabilities masked the same way,
//! MariaDB extended capabilities included. The scramble and the client's auth reply pass
//! unchanged: the client answers the backend's own scramble.

use mysql_common::constants::{CapabilityFlags, MariadbCapabilities};
use mysql_common::io::ParseBuf;
use mysql_common::packets::{HandshakePacket, HandshakeResponse, SslRequest};
use mysql_common::proto::{MyDeserialize as _, MySerialize as _};

use crate::capabilities::{FORWARDED_MARIADB, backend_leg, client_leg};

/// A packet of the connection phase that does not parse.
#[derive(Debug, thiserror::Error)]
#[error("malformed {what}: {source}")]
pub struct MalformedPacket {
    /// Which packet (e.g. "server greeting").
    pub what: &'static str,
    /// mysql_common's parse error.
    #[source]
    pub source: std::io::Error,
}

fn malformed(what: &'static str) -> impl FnOnce(std::io::Error) -> MalformedPacket {
    move |source| MalformedPacket { what, source }
}

/// The backend's greeting as relayed to the client.
#[derive(Debug, Clone)]
pub struct Greeting {
    /// The greeting to send to the client (payload only, sequence id 0).
    pub payload: Vec<u8>,
    /// The capabilities the backend offered.
    pub server_capabilities: CapabilityFlags,
    /// The capabilities offered to the client (the effective set of both legs, `CLIENT_SSL`
    /// aside).
    pub capabilities: CapabilityFlags,
    /// The server version (major, minor, patch), MariaDB's real one when it sends both.
    pub server_version: (u16, u16, u16),
}

/// Parses the backend's greeting `payload` and re-serializes it with its capabilities
/// masked ([`client_leg`]; `CLIENT_SSL` offered when the proxy terminates TLS, `tls`) and
/// its MariaDB extended capabilities masked to [`FORWARDED_MARIADB`].
///
/// # Errors
/// The payload is not a protocol-10 greeting.
pub fn mask_greeting(payload: &[u8], tls: bool) -> Result<Greeting, MalformedPacket> {
    let g = HandshakePacket::deserialize((), &mut ParseBuf(payload))
        .map_err(malformed("server greeting"))?;
    let server_capabilities = g.capabilities();
    let capabilities = client_leg(server_capabilities, tls);
    let mut scramble_1 = [0u8; 8];
    scramble_1.copy_from_slice(g.scramble_1_ref());
    let masked = HandshakePacket::new(
        g.protocol_version(),
        g.server_version_ref(),
        g.connection_id(),
        scramble_1,
        g.scramble_2_ref(),
        capabilities,
        g.default_collation(),
        g.status_flags(),
        g.auth_plugin_name_ref(),
    )
    .with_mariadb_ext_capabilities(g.mariadb_ext_capabilities() & FORWARDED_MARIADB);
    let mut out = Vec::with_capacity(payload.len());
    masked.serialize(&mut out);
    let server_version = g
        .maria_db_server_version_parsed()
        .or_else(|| g.server_version_parsed())
        .unwrap_or((0, 0, 0));
    Ok(Greeting {
        payload: out,
        server_capabilities,
        capabilities,
        server_version,
    })
}

/// What a client sends after the greeting.
#[derive(Debug)]
pub enum Login<'a> {
    /// A request to switch to TLS (32 bytes, `CLIENT_SSL` set); the `HandshakeResponse`
    /// follows inside TLS.
    SslRequest(SslRequest),
    /// The login itself.
    Response(HandshakeResponse<'a>),
}

/// The bytes of an `SslRequest`: capabilities, max packet size, collation, 23 reserved.
const SSL_REQUEST_LEN: usize = 32;

/// Parses a client's login packet.
///
/// # Errors
/// The payload is neither an `SslRequest` nor a `HandshakeResponse41`.
pub fn parse_login(payload: &[u8]) -> Result<Login<'_>, MalformedPacket> {
    if payload.len() == SSL_REQUEST_LEN {
        let r = SslRequest::deserialize((), &mut ParseBuf(payload))
            .map_err(malformed("client SSL request"))?;
        if r.capabilities().contains(CapabilityFlags::CLIENT_SSL) {
            return Ok(Login::SslRequest(r));
        }
    }
    HandshakeResponse::deserialize((), &mut ParseBuf(payload))
        .map(Login::Response)
        .map_err(malformed("client handshake response"))
}

/// The MariaDB extended capabilities of a login packet, read from bytes 28..32 (mysql_common
/// has no getter on `SslRequest`).
fn mariadb_capabilities(payload: &[u8]) -> MariadbCapabilities {
    payload
        .get(28..32)
        .and_then(|b| b.try_into().ok())
        .map_or(MariadbCapabilities::empty(), |b| {
            MariadbCapabilities::from_bits_truncate(u32::from_le_bytes(b))
        })
}

/// Re-serializes the client's `SslRequest` for the backend with masked capabilities
/// (`CLIENT_SSL` kept: the backend leg runs TLS too).
pub fn mask_ssl_request(request: &SslRequest, payload: &[u8]) -> Vec<u8> {
    let masked = SslRequest::new(
        backend_leg(request.capabilities(), true),
        request.max_packet_size(),
        request.character_set(),
    )
    .with_mariadb_capabilities(mariadb_capabilities(payload) & FORWARDED_MARIADB);
    let mut out = Vec::with_capacity(SSL_REQUEST_LEN);
    masked.serialize(&mut out);
    out
}

/// The `SslRequest` a proxy sends a backend before its own TLS, from the client's
/// `response` (`payload`): the client's capabilities masked with `CLIENT_SSL` set, its max
/// packet size and collation, its MariaDB extended capabilities masked.
pub fn ssl_request_for(response: &HandshakeResponse<'_>, payload: &[u8]) -> Vec<u8> {
    let max_packet_size = payload
        .get(4..8)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u32::from_le_bytes);
    let request = SslRequest::new(
        backend_leg(response.capabilities(), true),
        max_packet_size,
        response.collation(),
    )
    .with_mariadb_capabilities(response.mariadb_ext_capabilities() & FORWARDED_MARIADB);
    let mut out = Vec::with_capacity(SSL_REQUEST_LEN);
    request.serialize(&mut out);
    out
}

/// Re-serializes the client's `HandshakeResponse` (`payload`, parsed as `response`) for the
/// backend with masked capabilities ([`backend_leg`]; `CLIENT_SSL` as the backend leg runs,
/// `backend_tls`) and MariaDB extended capabilities; user, auth reply, database, auth plugin
/// and connection attributes unchanged. mysql_common's constructor takes neither the max
/// packet size nor the collation, so both are copied from the client's bytes.
pub fn mask_response(
    response: &HandshakeResponse<'_>,
    payload: &[u8],
    server_version: (u16, u16, u16),
    backend_tls: bool,
) -> Vec<u8> {
    let masked = HandshakeResponse::new(
        Some(response.scramble_buf()),
        server_version,
        Some(response.user()),
        response.db_name(),
        response.auth_plugin().cloned(),
        backend_leg(response.capabilities(), backend_tls),
        response.connect_attributes(),
        0,
    )
    .with_mariadb_ext_capabilities(response.mariadb_ext_capabilities() & FORWARDED_MARIADB);
    let mut out = Vec::with_capacity(payload.len());
    masked.serialize(&mut out);
    // Max packet size (bytes 4..8) and collation (byte 8) as the client sent them.
    out[4..9].copy_from_slice(&payload[4..9]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A MariaDB 10.11 greeting as the server sends it (captured from the private server:
    /// `CLIENT_MYSQL` cleared, extended capabilities 0x1d, mysql_native_password).
    fn greeting(caps: CapabilityFlags, ext: MariadbCapabilities) -> Vec<u8> {
        let g = HandshakePacket::new(
            10,
            &b"5.5.5-10.11.6-MariaDB-0+deb12u1"[..],
            42,
            *b"abcdefgh",
            Some(&b"ijklmnopqrst\0"[..]),
            caps,
            45,
            mysql_common::constants::StatusFlags::SERVER_STATUS_AUTOCOMMIT,
            Some(&b"mysql_native_password"[..]),
        )
        .with_mariadb_ext_capabilities(ext);
        let mut out = Vec::new();
        g.serialize(&mut out);
        out
    }

    #[test]
    fn greeting_keeps_everything_but_the_masked_capabilities() {
        let caps = CapabilityFlags::all() - CapabilityFlags::CLIENT_LONG_PASSWORD;
        let raw = greeting(caps, MariadbCapabilities::all());
        let g = mask_greeting(&raw, false).expect("greeting");
        assert_eq!(g.server_capabilities, caps);
        assert_eq!(g.server_version, (10, 11, 6));
        assert!(!g.capabilities.contains(CapabilityFlags::CLIENT_COMPRESS));
        assert!(
            !g.capabilities
                .contains(CapabilityFlags::CLIENT_DEPRECATE_EOF)
        );
        assert!(!g.capabilities.contains(CapabilityFlags::CLIENT_SSL));
        // Same bytes as a greeting built with the masked set: scramble, version, plugin kept.
        assert_eq!(
            g.payload,
            greeting(g.capabilities, MariadbCapabilities::empty())
        );
        let again = HandshakePacket::deserialize((), &mut ParseBuf(&g.payload)).expect("parse");
        assert_eq!(again.nonce(), b"abcdefghijklmnopqrst");
        assert_eq!(
            again.mariadb_ext_capabilities(),
            MariadbCapabilities::empty()
        );
    }

    #[test]
    fn greeting_with_nothing_to_mask_is_unchanged() {
        let caps = crate::capabilities::FORWARDED - CapabilityFlags::CLIENT_LONG_PASSWORD;
        let raw = greeting(caps, MariadbCapabilities::empty());
        assert_eq!(mask_greeting(&raw, false).expect("greeting").payload, raw);
    }

    #[test]
    fn a_truncated_greeting_is_malformed() {
        let raw = greeting(CapabilityFlags::all(), MariadbCapabilities::empty());
        let e = mask_greeting(&raw[..20], false).expect_err("truncated");
        assert!(
            e.to_string().starts_with("malformed server greeting"),
            "{e}"
        );
    }

    fn response(caps: CapabilityFlags, ext: MariadbCapabilities, collation: u8) -> Vec<u8> {
        let r = HandshakeResponse::new(
            Some(&[7u8; 20][..]),
            (10, 11, 6),
            Some(&b"sbtest"[..]),
            Some(&b"sbtest"[..]),
            Some(mysql_common::packets::AuthPlugin::MysqlNativePassword),
            caps,
            Some([("_client_name".to_string(), "libmariadb".to_string())].into()),
            1 << 24,
        )
        .with_mariadb_ext_capabilities(ext);
        let mut out = Vec::new();
        r.serialize(&mut out);
        out[8] = collation;
        out
    }

    #[test]
    fn response_masks_capabilities_and_keeps_collation_and_auth() {
        // What libmariadb 3.3 (sysbench) sends, plus COMPRESS and CACHE_METADATA.
        let caps = CapabilityFlags::CLIENT_LONG_FLAG
            | CapabilityFlags::CLIENT_TRANSACTIONS
            | CapabilityFlags::CLIENT_SECURE_CONNECTION
            | CapabilityFlags::CLIENT_MULTI_STATEMENTS
            | CapabilityFlags::CLIENT_MULTI_RESULTS
            | CapabilityFlags::CLIENT_PS_MULTI_RESULTS
            | CapabilityFlags::CLIENT_PROTOCOL_41
            | CapabilityFlags::CLIENT_PLUGIN_AUTH
            | CapabilityFlags::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
            | CapabilityFlags::CLIENT_SESSION_TRACK
            | CapabilityFlags::CLIENT_CONNECT_ATTRS
            | CapabilityFlags::CLIENT_CONNECT_WITH_DB;
        let ext = MariadbCapabilities::MARIADB_CLIENT_CACHE_METADATA
            | MariadbCapabilities::MARIADB_CLIENT_PROGRESS;
        let raw = response(caps | CapabilityFlags::CLIENT_COMPRESS, ext, 8);
        let Login::Response(r) = parse_login(&raw).expect("login") else {
            panic!("not a handshake response");
        };
        let out = mask_response(&r, &raw, (10, 11, 6), false);
        assert_eq!(out, response(caps, MariadbCapabilities::empty(), 8));
        let Login::Response(back) = parse_login(&out).expect("login") else {
            panic!("not a handshake response");
        };
        assert_eq!(back.scramble_buf(), &[7u8; 20]);
        assert_eq!(back.user(), b"sbtest");
        assert_eq!(back.collation(), 8);
    }

    #[test]
    fn ssl_request_for_a_backend_keeps_the_clients_collation_and_packet_size() {
        let caps = CapabilityFlags::CLIENT_PROTOCOL_41
            | CapabilityFlags::CLIENT_SECURE_CONNECTION
            | CapabilityFlags::CLIENT_COMPRESS;
        let raw = response(caps, MariadbCapabilities::MARIADB_CLIENT_CACHE_METADATA, 8);
        let Login::Response(r) = parse_login(&raw).expect("login") else {
            panic!("not a handshake response");
        };
        let out = ssl_request_for(&r, &raw);
        let Login::SslRequest(req) = parse_login(&out).expect("login") else {
            panic!("not an SSL request");
        };
        assert_eq!(req.capabilities(), backend_leg(r.capabilities(), true));
        assert!(req.capabilities().contains(CapabilityFlags::CLIENT_SSL));
        assert_eq!((req.max_packet_size(), req.character_set()), (1 << 24, 8));
        assert_eq!(out[28..32], [0, 0, 0, 0]);
    }

    #[test]
    fn ssl_request_is_recognised_and_masked() {
        let caps = CapabilityFlags::CLIENT_SSL
            | CapabilityFlags::CLIENT_PROTOCOL_41
            | CapabilityFlags::CLIENT_COMPRESS;
        let mut raw = Vec::new();
        SslRequest::new(caps, 1 << 24, 45)
            .with_mariadb_capabilities(MariadbCapabilities::MARIADB_CLIENT_CACHE_METADATA)
            .serialize(&mut raw);
        let Login::SslRequest(r) = parse_login(&raw).expect("login") else {
            panic!("not an SSL request");
        };
        let out = mask_ssl_request(&r, &raw);
        let mut want = Vec::new();
        SslRequest::new(
            CapabilityFlags::CLIENT_SSL | CapabilityFlags::CLIENT_PROTOCOL_41,
            1 << 24,
            45,
        )
        .serialize(&mut want);
        assert_eq!(out, want);
    }
}
