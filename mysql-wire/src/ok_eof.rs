//! OK, EOF and ERR packets: the writers mysql_common lacks (OK, EOF), ERR through its
//! `ErrPacket`, and the few reads a reply tracker needs (is this an EOF, its status flags).
//! Layouts are the `CLIENT_PROTOCOL_41` ones (MariaDB's "OK_Packet", "EOF_Packet").

use mysql_common::constants::StatusFlags;
use mysql_common::io::{BufMutExt as _, ParseBuf};
use mysql_common::packets::{ErrPacket, ServerError, SqlState};
use mysql_common::proto::MySerialize as _;

/// First byte of an OK packet.
pub const OK_HEADER: u8 = 0x00;
/// First byte of an EOF packet (payload shorter than 9 bytes) or of an auth switch request.
pub const EOF_HEADER: u8 = 0xFE;
/// First byte of an ERR packet.
pub const ERR_HEADER: u8 = 0xFF;

/// Appends an OK payload: header, affected rows and last insert id (length-encoded),
/// status flags, warnings; no info text, no session state.
pub fn put_ok(
    out: &mut Vec<u8>,
    affected_rows: u64,
    last_insert_id: u64,
    status: StatusFlags,
    warnings: u16,
) {
    out.push(OK_HEADER);
    out.put_lenenc_int(affected_rows);
    out.put_lenenc_int(last_insert_id);
    out.extend_from_slice(&status.bits().to_le_bytes());
    out.extend_from_slice(&warnings.to_le_bytes());
}

/// Appends an EOF payload (5 bytes): header, warnings, status flags.
pub fn put_eof(out: &mut Vec<u8>, warnings: u16, status: StatusFlags) {
    out.push(EOF_HEADER);
    out.extend_from_slice(&warnings.to_le_bytes());
    out.extend_from_slice(&status.bits().to_le_bytes());
}

/// Appends an ERR payload: `code`, SQL state `state` (5 ASCII bytes, e.g. `*b"HY000"`) and
/// `message`, through mysql_common's `ErrPacket`.
pub fn put_err(out: &mut Vec<u8>, code: u16, state: [u8; 5], message: &str) {
    ErrPacket::Error(ServerError::new(
        code,
        Some(SqlState::new(state)),
        message.as_bytes(),
    ))
    .serialize(out);
}

/// Whether `payload` is an EOF packet (0xFE and shorter than 9 bytes: a longer one is a
/// row or a length-encoded integer).
pub fn is_eof(payload: &[u8]) -> bool {
    payload.first() == Some(&EOF_HEADER) && payload.len() < 9
}

/// The status flags of an EOF payload; `None` when it has none (pre-4.1 layout).
pub fn eof_status(payload: &[u8]) -> Option<StatusFlags> {
    let b = payload.get(3..5)?;
    Some(StatusFlags::from_bits_truncate(u16::from_le_bytes([
        b[0], b[1],
    ])))
}

/// The status flags of an OK payload (after its two length-encoded integers); `None` when
/// the payload is too short.
pub fn ok_status(payload: &[u8]) -> Option<StatusFlags> {
    let mut p = ParseBuf(payload.get(1..)?);
    p.checked_eat_lenenc_int()?;
    p.checked_eat_lenenc_int()?;
    p.checked_eat_u16_le().map(StatusFlags::from_bits_truncate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mysql_common::constants::CapabilityFlags;
    use mysql_common::packets::{OkPacketDeserializer, OldEofPacket};
    use mysql_common::proto::MyDeserialize as _;

    #[test]
    fn ok_is_read_back_by_mysql_common() {
        let mut p = Vec::new();
        let status =
            StatusFlags::SERVER_STATUS_AUTOCOMMIT | StatusFlags::SERVER_MORE_RESULTS_EXISTS;
        put_ok(&mut p, 300, 70000, status, 2);
        assert_eq!(ok_status(&p), Some(status));
        let ok = OkPacketDeserializer::<mysql_common::packets::CommonOkPacket>::deserialize(
            CapabilityFlags::CLIENT_PROTOCOL_41,
            &mut ParseBuf(&p),
        )
        .expect("OK")
        .into_inner();
        assert_eq!(ok.affected_rows(), 300);
        assert_eq!(ok.last_insert_id(), Some(70000));
        assert_eq!(ok.status_flags(), status);
        assert_eq!(ok.warnings(), 2);
    }

    #[test]
    fn eof_is_read_back_by_mysql_common() {
        let mut p = Vec::new();
        put_eof(&mut p, 1, StatusFlags::SERVER_STATUS_IN_TRANS);
        assert_eq!(p, [0xFE, 1, 0, 1, 0]);
        assert!(is_eof(&p));
        assert_eq!(eof_status(&p), Some(StatusFlags::SERVER_STATUS_IN_TRANS));
        let ok = OkPacketDeserializer::<OldEofPacket>::deserialize(
            CapabilityFlags::CLIENT_PROTOCOL_41,
            &mut ParseBuf(&p),
        )
        .expect("EOF")
        .into_inner();
        assert_eq!(ok.status_flags(), StatusFlags::SERVER_STATUS_IN_TRANS);
    }

    #[test]
    fn a_row_starting_with_0xfe_is_not_an_eof() {
        let mut row = vec![0xFE];
        row.extend_from_slice(&[0; 8]);
        assert!(!is_eof(&row));
    }

    #[test]
    fn err_layout() {
        let mut p = Vec::new();
        put_err(&mut p, 1045, *b"28000", "denied");
        assert_eq!(p, b"\xff\x15\x04#28000denied");
    }
}
