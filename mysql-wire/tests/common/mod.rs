//! A minimal blocking MySQL client for the tests: `mysql_common`'s handshake packets and
//! `scramble_native`, raw packets in and out, each reply followed by [`Reply`].

#![allow(dead_code)]

use std::io::{Read as _, Write as _};
use std::net::TcpStream;

use encbench_mysql_wire::reply::{Reply, ReplyKind, ReplyPacket};
use mysql_common::constants::CapabilityFlags;
use mysql_common::io::ParseBuf;
use mysql_common::packets::{AuthPlugin, AuthSwitchRequest, HandshakePacket, HandshakeResponse};
use mysql_common::proto::MySerialize as _;
use mysql_common::scramble::scramble_native;

/// One connection to the shared MariaDB, logged in as the bench user.
pub struct Conn {
    stream: TcpStream,
    /// The effective capabilities (ours, masked by the server's).
    pub capabilities: CapabilityFlags,
}

/// The capabilities sysbench 1.0.20 (libmariadb 3.3) asks for, TLS, compression and
/// connect attributes left out; `CLIENT_DEPRECATE_EOF` when `deprecate_eof`.
fn client_capabilities(deprecate_eof: bool) -> CapabilityFlags {
    let mut c = CapabilityFlags::CLIENT_LONG_PASSWORD
        | CapabilityFlags::CLIENT_LONG_FLAG
        | CapabilityFlags::CLIENT_TRANSACTIONS
        | CapabilityFlags::CLIENT_SECURE_CONNECTION
        | CapabilityFlags::CLIENT_MULTI_STATEMENTS
        | CapabilityFlags::CLIENT_MULTI_RESULTS
        | CapabilityFlags::CLIENT_PS_MULTI_RESULTS
        | CapabilityFlags::CLIENT_PROTOCOL_41
        | CapabilityFlags::CLIENT_PLUGIN_AUTH
        | CapabilityFlags::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
        | CapabilityFlags::CLIENT_SESSION_TRACK;
    if deprecate_eof {
        c |= CapabilityFlags::CLIENT_DEPRECATE_EOF;
    }
    c
}

impl Conn {
    /// Connects to the shared server and logs in (database `db`, created first).
    pub fn open(db: &str, deprecate_eof: bool) -> Conn {
        let shared = encbench_test_support::default_server();
        let server = shared.server();
        let mut stream = TcpStream::connect(("127.0.0.1", server.port())).expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        let greeting = read_packet(&mut stream);
        let hs: HandshakePacket<'_> = ParseBuf(&greeting[4..]).parse(()).expect("greeting");
        let capabilities = client_capabilities(deprecate_eof) & hs.capabilities();
        let password = server.password().as_bytes();
        let auth = scramble_native(&hs.nonce(), password).expect("scramble");
        let resp = HandshakeResponse::new(
            Some(&auth[..]),
            (10, 11, 0),
            Some(encbench_lab::server::BENCH_USER.as_bytes()),
            None::<&[u8]>,
            Some(AuthPlugin::MysqlNativePassword),
            capabilities,
            None,
            16 * 1024 * 1024,
        );
        let mut payload = Vec::new();
        resp.serialize(&mut payload);
        write_packet(&mut stream, 1, &payload);
        let mut reply = read_packet(&mut stream);
        if reply[4] == 0xFE {
            let switch: AuthSwitchRequest<'_> =
                ParseBuf(&reply[4..]).parse(()).expect("auth switch");
            let auth = scramble_native(switch.plugin_data(), password).expect("scramble");
            write_packet(&mut stream, reply[3].wrapping_add(1), &auth);
            reply = read_packet(&mut stream);
        }
        assert_eq!(
            reply[4],
            0x00,
            "login must succeed: {:?}",
            String::from_utf8_lossy(&reply)
        );
        let mut conn = Conn {
            stream,
            capabilities,
        };
        conn.query_ok(&format!("CREATE DATABASE IF NOT EXISTS {db}"));
        conn.query_ok(&format!("USE {db}"));
        conn
    }

    /// Sends a command payload (sequence id 0).
    pub fn send(&mut self, payload: &[u8]) {
        write_packet(&mut self.stream, 0, payload);
    }

    /// Sends an already framed packet.
    pub fn send_framed(&mut self, packet: &[u8]) {
        self.stream.write_all(packet).expect("write");
    }

    /// Reads a reply of `kind` to its end: each packet (framed) with what [`Reply`] says it is.
    pub fn reply(&mut self, kind: ReplyKind) -> Vec<(ReplyPacket, Vec<u8>)> {
        let mut reply = Reply::new(kind, self.capabilities);
        let mut packets = Vec::new();
        while !reply.is_done() {
            let packet = read_packet(&mut self.stream);
            let what = reply
                .feed(&packet)
                .expect("a reply packet the state machine knows");
            packets.push((what, packet));
        }
        packets
    }

    /// COM_QUERY `sql`, its reply followed to the end.
    pub fn query(&mut self, sql: &str) -> Vec<(ReplyPacket, Vec<u8>)> {
        let mut payload = vec![0x03];
        payload.extend_from_slice(sql.as_bytes());
        self.send(&payload);
        self.reply(ReplyKind::Query)
    }

    /// COM_QUERY `sql`, which must answer one OK.
    pub fn query_ok(&mut self, sql: &str) {
        let reply = self.query(sql);
        assert!(
            matches!(
                reply[..],
                [(
                    ReplyPacket::Ok {
                        more_results: false
                    },
                    _
                )]
            ),
            "{sql}: {reply:?}"
        );
    }

    /// COM_STMT_PREPARE `sql`, its reply followed to the end.
    pub fn prepare(&mut self, sql: &str) -> Vec<(ReplyPacket, Vec<u8>)> {
        let mut payload = vec![0x16];
        payload.extend_from_slice(sql.as_bytes());
        self.send(&payload);
        self.reply(ReplyKind::Prepare)
    }
}

/// Reads one packet, header included.
pub fn read_packet(stream: &mut TcpStream) -> Vec<u8> {
    let mut packet = vec![0; 4];
    stream.read_exact(&mut packet).expect("read header");
    let len = usize::from(packet[0]) | usize::from(packet[1]) << 8 | usize::from(packet[2]) << 16;
    packet.resize(4 + len, 0);
    stream.read_exact(&mut packet[4..]).expect("read payload");
    packet
}

/// Frames `payload` with sequence id `seq`.
pub fn frame(seq: u8, payload: &[u8]) -> Vec<u8> {
    let len = payload.len();
    let mut packet = vec![len as u8, (len >> 8) as u8, (len >> 16) as u8, seq];
    packet.extend_from_slice(payload);
    packet
}

fn write_packet(stream: &mut TcpStream, seq: u8, payload: &[u8]) {
    stream.write_all(&frame(seq, payload)).expect("write");
}
