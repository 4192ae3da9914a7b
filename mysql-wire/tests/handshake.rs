//! The handshake pieces against the real private MariaDB: its greeting masked and
//! re-serialized, a login re-serialized with masked capabilities is accepted (and a wrong
//! password refused with the server's own 1045), then a command gets its OK.

use encbench_mysql_wire::handshake::{Login, mask_greeting, mask_response, parse_login};
use encbench_mysql_wire::mysql_common::constants::CapabilityFlags;
use encbench_mysql_wire::mysql_common::io::ParseBuf;
use encbench_mysql_wire::mysql_common::packets::{AuthPlugin, HandshakePacket, HandshakeResponse};
use encbench_mysql_wire::mysql_common::proto::{MyDeserialize as _, MySerialize as _};
use encbench_mysql_wire::mysql_common::scramble::scramble_native;
use encbench_mysql_wire::ok_eof::{ERR_HEADER, OK_HEADER, ok_status};
use encbench_mysql_wire::packet::{PacketReader, write_packet};
use tokio::net::TcpStream;

/// Logs in to the shared server with `password` through the masking functions; returns the
/// server's reply to the login (payload) and the open stream.
async fn login(password: &str) -> (Vec<u8>, TcpStream, PacketReader) {
    let shared = encbench_test_support::default_server();
    let server = shared.server();
    let mut s = TcpStream::connect(("127.0.0.1", server.port()))
        .await
        .expect("connect");
    let mut r = PacketReader::new(4096);
    let mut p = Vec::new();
    let seq = r.read_packet(&mut s, &mut p).await.expect("greeting");
    assert_eq!(seq, Some(0));
    let g = mask_greeting(&p, false).expect("a greeting");
    assert!(!g.capabilities.contains(CapabilityFlags::CLIENT_COMPRESS));
    assert!(g.server_version >= (10, 0, 0), "{:?}", g.server_version);
    let reply = scramble_native(&nonce(&g.payload), password.as_bytes()).expect("scramble");
    // The client's login as a client would build it, with more than the proxy lets through.
    let mut raw = Vec::new();
    HandshakeResponse::new(
        Some(&reply[..]),
        g.server_version,
        Some(&b"encbench"[..]),
        None::<&[u8]>,
        Some(AuthPlugin::MysqlNativePassword),
        g.server_capabilities | CapabilityFlags::CLIENT_PROTOCOL_41,
        None,
        1 << 24,
    )
    .serialize(&mut raw);
    let Login::Response(resp) = parse_login(&raw).expect("login") else {
        panic!("not a handshake response");
    };
    let masked = mask_response(&resp, &raw, g.server_version, false);
    let mut scratch = Vec::new();
    write_packet(&mut s, 1, &masked, &mut scratch)
        .await
        .expect("send login");
    let seq = r.read_packet(&mut s, &mut p).await.expect("login reply");
    assert_eq!(seq, Some(2));
    (p, s, r)
}

/// The scramble of a (masked) greeting, read back with mysql_common.
fn nonce(greeting: &[u8]) -> Vec<u8> {
    HandshakePacket::deserialize((), &mut ParseBuf(greeting))
        .expect("greeting")
        .nonce()
}

#[tokio::test]
async fn masked_login_is_accepted_and_a_command_answered() {
    let password = encbench_test_support::default_server()
        .server()
        .password()
        .to_string();
    let (reply, mut s, mut r) = login(&password).await;
    assert_eq!(
        reply.first(),
        Some(&OK_HEADER),
        "login refused: {:?}",
        String::from_utf8_lossy(&reply)
    );
    // COM_PING: an OK with the autocommit status.
    let mut scratch = Vec::new();
    write_packet(&mut s, 0, &[0x0e], &mut scratch)
        .await
        .expect("ping");
    let mut p = Vec::new();
    assert_eq!(r.read_packet(&mut s, &mut p).await.expect("OK"), Some(1));
    assert_eq!(p[0], OK_HEADER);
    assert!(ok_status(&p).is_some());
}

#[tokio::test]
async fn wrong_password_is_refused_with_1045() {
    let (reply, _s, _r) = login("not-the-password").await;
    assert_eq!(reply.first(), Some(&ERR_HEADER));
    assert_eq!(u16::from_le_bytes([reply[1], reply[2]]), 1045);
}
