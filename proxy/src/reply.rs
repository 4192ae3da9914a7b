//! Where a reply ends: a small state machine fed each reply packet's payload (its first
//! bytes and, for OK/EOF, its status flags), as MaxScale's backend protocol follows a
//! reply. The grammar is the one without `CLIENT_DEPRECATE_EOF` (the proxy never lets it
//! through): EOF after column definitions and after rows; `SERVER_MORE_RESULTS_EXISTS`
//! on the final OK/EOF starts another result.

use encbench_mysql_wire::mysql_common::constants::StatusFlags;
use encbench_mysql_wire::mysql_common::io::ParseBuf;
use encbench_mysql_wire::ok_eof::{ERR_HEADER, OK_HEADER, eof_status, is_eof, ok_status};

/// Command bytes the proxy looks at (MariaDB's "COM_*" numbering).
pub mod command {
    /// COM_QUIT: no reply, the server closes.
    pub const QUIT: u8 = 0x01;
    /// COM_FIELD_LIST: column definitions then EOF.
    pub const FIELD_LIST: u8 = 0x04;
    /// COM_STATISTICS: one text packet.
    pub const STATISTICS: u8 = 0x09;
    /// COM_CHANGE_USER: a new authentication exchange (not relayed).
    pub const CHANGE_USER: u8 = 0x11;
    /// COM_BINLOG_DUMP: a replication stream (not relayed).
    pub const BINLOG_DUMP: u8 = 0x12;
    /// COM_REGISTER_SLAVE (not relayed).
    pub const REGISTER_SLAVE: u8 = 0x15;
    /// COM_STMT_PREPARE: prepare OK, parameter and column definitions.
    pub const STMT_PREPARE: u8 = 0x16;
    /// COM_STMT_SEND_LONG_DATA: no reply.
    pub const STMT_SEND_LONG_DATA: u8 = 0x18;
    /// COM_STMT_CLOSE: no reply.
    pub const STMT_CLOSE: u8 = 0x19;
    /// COM_STMT_FETCH: rows of an open cursor then EOF (no column count, no definitions).
    pub const STMT_FETCH: u8 = 0x1c;
    /// COM_BINLOG_DUMP_GTID (not relayed).
    pub const BINLOG_DUMP_GTID: u8 = 0x1e;
    /// COM_STMT_BULK_EXECUTE (MariaDB; its capability is not let through).
    pub const STMT_BULK_EXECUTE: u8 = 0xfa;
}

/// What a command gets back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// No reply (COM_STMT_CLOSE, COM_STMT_SEND_LONG_DATA).
    Nothing,
    /// A reply the tracker follows to its end.
    Reply,
    /// A command the proxy does not relay: it answers ERR itself.
    Refused,
}

/// What `command` (the first payload byte of a command packet) gets back.
pub fn expect(command: u8) -> Expect {
    match command {
        command::STMT_CLOSE | command::STMT_SEND_LONG_DATA => Expect::Nothing,
        command::CHANGE_USER
        | command::BINLOG_DUMP
        | command::BINLOG_DUMP_GTID
        | command::REGISTER_SLAVE
        | command::STMT_BULK_EXECUTE => Expect::Refused,
        _ => Expect::Reply,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The first packet of a (next) result: OK, ERR, EOF or a column count.
    First,
    /// Column definitions of a result set still to come.
    Columns(u64),
    /// The EOF after the column definitions.
    ColumnsEof,
    /// Rows, until EOF or ERR.
    Rows,
    /// After a prepare OK: parameter definitions still to come, then `columns`.
    Params { left: u64, columns: u64 },
    /// The EOF after the parameter definitions, then `columns` definitions.
    ParamsEof { columns: u64 },
    /// After a prepare OK: column definitions still to come.
    PreparedColumns(u64),
    /// The EOF after a prepared statement's column definitions.
    PreparedColumnsEof,
    /// COM_FIELD_LIST: definitions until EOF.
    FieldList,
    /// The reply is complete.
    Done,
}

/// How a reply ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// Not yet.
    Open,
    /// Complete, the last result fine.
    Ok,
    /// Complete, with an ERR packet.
    Err,
}

/// Follows one reply, packet by packet.
#[derive(Debug)]
pub struct ReplyTracker {
    state: State,
    prepare: bool,
    statistics: bool,
    /// The next frame continues a packet of 2^24 - 1 bytes.
    continuation: bool,
}

impl ReplyTracker {
    /// A tracker of the reply to `command`.
    pub fn new(command: u8) -> ReplyTracker {
        ReplyTracker {
            state: match command {
                command::FIELD_LIST => State::FieldList,
                command::STMT_FETCH => State::Rows,
                _ => State::First,
            },
            prepare: command == command::STMT_PREPARE,
            statistics: command == command::STATISTICS,
            continuation: false,
        }
    }

    /// Feeds one frame's payload; returns whether the reply is complete with it.
    pub fn feed(&mut self, payload: &[u8]) -> End {
        let continuation = self.continuation;
        self.continuation = payload.len() == encbench_mysql_wire::packet::MAX_PAYLOAD;
        if continuation {
            return End::Open;
        }
        let first = payload.first().copied();
        let end_of = |status: Option<StatusFlags>, state: &mut State| {
            if status.is_some_and(|s| s.contains(StatusFlags::SERVER_MORE_RESULTS_EXISTS)) {
                *state = State::First;
                End::Open
            } else {
                *state = State::Done;
                End::Ok
            }
        };
        if first == Some(ERR_HEADER) && self.state != State::Done {
            self.state = State::Done;
            return End::Err;
        }
        match self.state {
            State::First if self.statistics => {
                self.state = State::Done;
                End::Ok
            }
            State::First if self.prepare && first == Some(OK_HEADER) => {
                let mut p = ParseBuf(payload.get(5..).unwrap_or_default());
                let columns = u64::from(p.checked_eat_u16_le().unwrap_or(0));
                let params = u64::from(p.checked_eat_u16_le().unwrap_or(0));
                if params > 0 {
                    self.state = State::Params {
                        left: params,
                        columns,
                    };
                    End::Open
                } else {
                    self.prepared_columns(columns)
                }
            }
            State::First if first == Some(OK_HEADER) => end_of(ok_status(payload), &mut self.state),
            State::First if is_eof(payload) => end_of(eof_status(payload), &mut self.state),
            State::First => {
                let n = ParseBuf(payload).checked_eat_lenenc_int().unwrap_or(0);
                self.state = State::Columns(n);
                if n == 0 {
                    self.state = State::ColumnsEof;
                }
                End::Open
            }
            State::Columns(n) => {
                self.state = if n > 1 {
                    State::Columns(n - 1)
                } else {
                    State::ColumnsEof
                };
                End::Open
            }
            State::ColumnsEof => {
                // A cursor opened by COM_STMT_EXECUTE: no rows now (COM_STMT_FETCH reads them).
                let status = eof_status(payload);
                if status.is_some_and(|s| s.contains(StatusFlags::SERVER_STATUS_CURSOR_EXISTS)) {
                    self.state = State::Done;
                    return End::Ok;
                }
                self.state = State::Rows;
                End::Open
            }
            State::Rows if is_eof(payload) => end_of(eof_status(payload), &mut self.state),
            State::Rows => End::Open,
            State::Params { left, columns } => {
                self.state = if left > 1 {
                    State::Params {
                        left: left - 1,
                        columns,
                    }
                } else {
                    State::ParamsEof { columns }
                };
                End::Open
            }
            State::ParamsEof { columns } => self.prepared_columns(columns),
            State::PreparedColumns(n) => {
                self.state = if n > 1 {
                    State::PreparedColumns(n - 1)
                } else {
                    State::PreparedColumnsEof
                };
                End::Open
            }
            State::PreparedColumnsEof => {
                self.state = State::Done;
                End::Ok
            }
            State::FieldList if is_eof(payload) => {
                self.state = State::Done;
                End::Ok
            }
            State::FieldList => End::Open,
            State::Done => End::Ok,
        }
    }

    /// `columns` definitions (and their EOF) of a prepared statement, or the end.
    fn prepared_columns(&mut self, columns: u64) -> End {
        if columns > 0 {
            self.state = State::PreparedColumns(columns);
            End::Open
        } else {
            self.state = State::Done;
            End::Ok
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use encbench_mysql_wire::ok_eof::{put_eof, put_err, put_ok};

    fn ok(status: StatusFlags) -> Vec<u8> {
        let mut p = Vec::new();
        put_ok(&mut p, 1, 0, status, 0);
        p
    }

    fn eof(status: StatusFlags) -> Vec<u8> {
        let mut p = Vec::new();
        put_eof(&mut p, 0, status);
        p
    }

    fn err() -> Vec<u8> {
        let mut p = Vec::new();
        put_err(&mut p, 1064, *b"42000", "syntax");
        p
    }

    /// Feeds `packets`; the end after each.
    fn ends(command: u8, packets: &[Vec<u8>]) -> Vec<End> {
        let mut t = ReplyTracker::new(command);
        packets.iter().map(|p| t.feed(p)).collect()
    }

    const QUERY: u8 = 0x03;
    const EXECUTE: u8 = 0x17;
    const NONE: StatusFlags = StatusFlags::empty();

    #[test]
    fn ok_and_err_end_a_reply() {
        assert_eq!(ends(QUERY, &[ok(NONE)]), [End::Ok]);
        assert_eq!(ends(QUERY, &[err()]), [End::Err]);
    }

    #[test]
    fn a_result_set_ends_at_the_eof_after_its_rows() {
        let rows = [
            vec![2],
            b"\x03def-col-1".to_vec(),
            b"\x03def-col-2".to_vec(),
            eof(NONE),
            b"\x011\x012".to_vec(),
            // A row whose first value is 2^24 bytes long starts with 0xFE: not an EOF.
            [&[0xFE][..], &[0; 10]].concat(),
            eof(NONE),
        ];
        let want = [[End::Open; 6].as_slice(), &[End::Ok]].concat();
        assert_eq!(ends(QUERY, &rows), want);
    }

    #[test]
    fn more_results_continue_the_reply() {
        let more = StatusFlags::SERVER_MORE_RESULTS_EXISTS;
        let packets = [
            vec![1],
            b"\x03def".to_vec(),
            eof(NONE),
            vec![0, 1],
            eof(more),
            ok(NONE),
        ];
        let want = [[End::Open; 5].as_slice(), &[End::Ok]].concat();
        assert_eq!(ends(QUERY, &packets), want);
        assert_eq!(ends(QUERY, &[ok(more), err()]), [End::Open, End::Err]);
    }

    #[test]
    fn an_error_inside_rows_ends_the_reply() {
        let packets = [vec![1], b"\x03def".to_vec(), eof(NONE), vec![0, 1], err()];
        assert_eq!(ends(EXECUTE, &packets).last(), Some(&End::Err));
    }

    #[test]
    fn a_cursor_has_no_rows_yet() {
        let cursor = StatusFlags::SERVER_STATUS_CURSOR_EXISTS;
        assert_eq!(
            ends(EXECUTE, &[vec![1], b"\x03def".to_vec(), eof(cursor)]),
            [End::Open, End::Open, End::Ok]
        );
    }

    #[test]
    fn a_fetch_is_rows_then_eof() {
        // A binary row starts with 0x00: not an OK here.
        let packets = [vec![0, 0, 1, 0, 0, 0], vec![0, 0, 2, 0, 0, 0], eof(NONE)];
        assert_eq!(
            ends(command::STMT_FETCH, &packets),
            [End::Open, End::Open, End::Ok]
        );
    }

    /// A prepare OK: statement id 1, `columns`, `params`.
    fn prepare_ok(columns: u16, params: u16) -> Vec<u8> {
        let mut p = vec![0, 1, 0, 0, 0];
        p.extend_from_slice(&columns.to_le_bytes());
        p.extend_from_slice(&params.to_le_bytes());
        p.extend_from_slice(&[0, 0, 0]);
        p
    }

    #[test]
    fn prepare_replies() {
        let def = b"\x03def".to_vec();
        let p = command::STMT_PREPARE;
        assert_eq!(ends(p, &[prepare_ok(0, 0)]), [End::Ok]);
        assert_eq!(
            ends(p, &[prepare_ok(0, 1), def.clone(), eof(NONE)]),
            [End::Open, End::Open, End::Ok]
        );
        assert_eq!(
            ends(p, &[prepare_ok(1, 0), def.clone(), eof(NONE)]),
            [End::Open, End::Open, End::Ok]
        );
        let both = [
            prepare_ok(2, 1),
            def.clone(),
            eof(NONE),
            def.clone(),
            def,
            eof(NONE),
        ];
        let want = [[End::Open; 5].as_slice(), &[End::Ok]].concat();
        assert_eq!(ends(p, &both), want);
        assert_eq!(ends(p, &[err()]), [End::Err]);
    }

    #[test]
    fn field_list_and_statistics() {
        assert_eq!(
            ends(command::FIELD_LIST, &[b"\x03def".to_vec(), eof(NONE)]),
            [End::Open, End::Ok]
        );
        assert_eq!(
            ends(command::STATISTICS, &[b"Uptime: 5".to_vec()]),
            [End::Ok]
        );
    }

    #[test]
    fn a_16_mib_packet_continues_in_the_next_frame() {
        let big = vec![0xFE; encbench_mysql_wire::packet::MAX_PAYLOAD];
        // Its continuation frame is short and starts with 0xFE: still not an EOF.
        let packets = [
            vec![1],
            b"\x03def".to_vec(),
            eof(NONE),
            big,
            eof(NONE),
            eof(NONE),
        ];
        let want = [[End::Open; 5].as_slice(), &[End::Ok]].concat();
        assert_eq!(ends(QUERY, &packets), want);
    }

    #[test]
    fn commands_without_reply_and_refused_ones() {
        assert_eq!(expect(command::STMT_CLOSE), Expect::Nothing);
        assert_eq!(expect(command::CHANGE_USER), Expect::Refused);
        assert_eq!(expect(QUERY), Expect::Reply);
    }
}
