//! The reply state machine: which packet of a server's reply is which.
//!
//! MaxScale's backend protocol in small: fed each packet of a reply as it comes (header and
//! payload), it says what the packet is from its first byte, its length and where the reply
//! stands: an OK or ERR, a result set's column count, column definitions, the EOF after
//! them, rows, the end of the result set (EOF, or OK with `CLIENT_DEPRECATE_EOF`), another
//! result set after it (`SERVER_MORE_RESULTS_EXISTS`), an ERR in the middle of rows, a
//! COM_STMT_PREPARE reply's parameter and column definitions, a COM_FIELD_LIST's column
//! definitions, a COM_STMT_FETCH's rows, COM_STATISTICS' one string. The caller forwards packets
//! and parses only those it needs (column definitions with `mysql_common`'s `Column`).
//! OK, EOF and prepare-OK packets are parsed with `mysql_common` for their status flags.

use mysql_common::constants::{CapabilityFlags, StatusFlags};
use mysql_common::io::ParseBuf;
use mysql_common::packets::{
    CommonOkPacket, OkPacketDeserializer, OldEofPacket, ResultSetTerminator, StmtPacket,
};

use crate::rows::{MAX_PAYLOAD, RowFormat, framed_payload, lenenc_int};

/// The command a reply answers, as far as its grammar goes. Commands the server does not
/// answer (COM_QUIT, COM_STMT_CLOSE, COM_STMT_SEND_LONG_DATA) take no [`Reply`]; those
/// answered otherwise (COM_BINLOG_DUMP's stream, COM_CHANGE_USER's authentication) are not
/// covered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplyKind {
    /// COM_QUERY (text rows), and every command answered by one OK, EOF or ERR (COM_PING,
    /// COM_INIT_DB, COM_STMT_RESET; COM_SET_OPTION and COM_DEBUG answer EOF).
    Query,
    /// COM_STMT_EXECUTE: binary rows; with a cursor, column definitions and no rows (a
    /// cursor is seen in the EOF after the definitions, so only without
    /// `CLIENT_DEPRECATE_EOF`).
    Execute,
    /// COM_STMT_PREPARE: prepare OK, parameter definitions, column definitions.
    Prepare,
    /// COM_FIELD_LIST: column definitions, then EOF (or OK with `CLIENT_DEPRECATE_EOF`).
    FieldList,
    /// COM_STMT_FETCH: binary rows of an open cursor, then EOF (no column count, no
    /// definitions).
    Fetch,
    /// COM_STATISTICS: one packet of human-readable text (or ERR).
    Statistics,
}

/// What a packet of a reply is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplyPacket {
    /// An OK packet ending a command or, with `more_results`, one of several results (also
    /// the EOF that answers COM_SET_OPTION or COM_DEBUG).
    Ok {
        /// `SERVER_MORE_RESULTS_EXIST`: another result follows.
        more_results: bool,
    },
    /// An ERR packet: the reply ends (also in the middle of rows).
    Err,
    /// A LOCAL INFILE request (`0xFB`): the client must send a file; the reply continues
    /// with the server's OK or ERR after it.
    LocalInfile,
    /// The column count opening a result set.
    ColumnCount(u64),
    /// Column definition `index` (0-based) of a result set.
    ColumnDefinition {
        /// The column index.
        index: u64,
    },
    /// The EOF after a result set's column definitions (not sent with
    /// `CLIENT_DEPRECATE_EOF`).
    ColumnsEof,
    /// A row, in the given protocol.
    Row(RowFormat),
    /// The EOF or OK ending a result set's rows (or a COM_FIELD_LIST's definitions).
    ResultEnd {
        /// `SERVER_MORE_RESULTS_EXIST`: another result follows.
        more_results: bool,
    },
    /// A COM_STMT_PREPARE's OK: the statement's id, parameter and column counts.
    PrepareOk {
        /// The statement id.
        statement_id: u32,
        /// Parameters of the statement.
        params: u16,
        /// Result columns of the statement.
        columns: u16,
    },
    /// Parameter definition `index` of a prepare reply.
    ParamDefinition {
        /// The parameter index.
        index: u16,
    },
    /// The EOF after a prepare reply's parameter definitions.
    ParamsEof,
    /// Column definition `index` of a prepare reply.
    PrepareColumnDefinition {
        /// The column index.
        index: u16,
    },
    /// The EOF after a prepare reply's column definitions.
    PrepareColumnsEof,
    /// The rest of the previous packet, whose payload was 2^24 - 1 bytes long.
    Continuation,
    /// COM_STATISTICS' text, the whole reply.
    Statistics,
}

/// A packet the reply's grammar does not allow where it came.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplyError {
    /// The packet is shorter than its 4-byte header or its length field disagrees with its
    /// size.
    #[error("reply packet framing: the 3-byte length disagrees with the packet's size")]
    Framing,
    /// A packet after the reply's end.
    #[error("packet after the end of the reply")]
    AfterEnd,
    /// An empty payload, or a first packet that is no OK, ERR, LOCAL INFILE or column count.
    #[error("unexpected packet (first byte {first:#04x}) in the reply's {state}")]
    Unexpected {
        /// The packet's first payload byte (0 for an empty payload).
        first: u8,
        /// Where the reply stood.
        state: &'static str,
    },
    /// An OK, EOF or prepare OK that `mysql_common` cannot parse.
    #[error("malformed {0} packet")]
    Malformed(&'static str),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Awaiting a result: OK, ERR, LOCAL INFILE or a column count (or a prepare OK).
    Start,
    /// Awaiting column definitions `next..count`.
    Columns { next: u64, count: u64 },
    /// Awaiting the EOF after column definitions.
    ColumnsEof,
    /// Awaiting rows or the result set's end.
    Rows,
    /// COM_FIELD_LIST: awaiting column definition `next` or the end.
    FieldList { next: u64 },
    /// Prepare: awaiting parameter definitions `next..params`.
    Params {
        next: u16,
        params: u16,
        columns: u16,
    },
    /// Prepare: awaiting the EOF after the parameter definitions.
    ParamsEof { columns: u16 },
    /// Prepare: awaiting column definitions `next..columns`.
    PrepareColumns { next: u16, columns: u16 },
    /// Prepare: awaiting the EOF after the column definitions.
    PrepareColumnsEof,
    /// The reply is complete.
    Done,
}

impl State {
    fn name(self) -> &'static str {
        match self {
            State::Start => "start",
            State::Columns { .. } => "column definitions",
            State::ColumnsEof => "EOF after column definitions",
            State::Rows => "rows",
            State::FieldList { .. } => "field list",
            State::Params { .. } => "parameter definitions",
            State::ParamsEof { .. } => "EOF after parameter definitions",
            State::PrepareColumns { .. } => "prepare column definitions",
            State::PrepareColumnsEof => "EOF after prepare column definitions",
            State::Done => "end",
        }
    }
}

/// One reply followed packet by packet. Create one per command sent ([`Reply::new`]), feed
/// it every packet the server sends until [`Reply::is_done`].
#[derive(Clone, Debug)]
pub struct Reply {
    kind: ReplyKind,
    capabilities: CapabilityFlags,
    state: State,
    continued: bool,
}

impl Reply {
    /// A reply of `kind` on a connection with the effective `capabilities` (the ones both
    /// legs agreed on: `CLIENT_DEPRECATE_EOF` and `CLIENT_SESSION_TRACK` change the
    /// grammar).
    pub fn new(kind: ReplyKind, capabilities: CapabilityFlags) -> Reply {
        Reply {
            kind,
            capabilities,
            state: match kind {
                ReplyKind::FieldList => State::FieldList { next: 0 },
                ReplyKind::Fetch => State::Rows,
                _ => State::Start,
            },
            continued: false,
        }
    }

    /// Whether the reply is complete: the next packet belongs to the next command's reply.
    pub fn is_done(&self) -> bool {
        self.state == State::Done && !self.continued
    }

    /// Whether the reply is inside a result set's rows (the next packet is a row or the end).
    pub fn in_rows(&self) -> bool {
        self.state == State::Rows
    }

    /// Says what `packet` (header and payload), the next packet of the reply, is, and moves
    /// past it.
    ///
    /// # Errors
    /// [`ReplyError`] when the packet does not fit where the reply stands; the reply is then
    /// lost (the connection must be closed).
    pub fn feed(&mut self, packet: &[u8]) -> Result<ReplyPacket, ReplyError> {
        let payload = framed_payload(packet).ok_or(ReplyError::Framing)?;
        let continued = std::mem::replace(&mut self.continued, payload.len() == MAX_PAYLOAD);
        if continued {
            return Ok(ReplyPacket::Continuation);
        }
        let first = payload.first().copied();
        let unexpected = |state: State| ReplyError::Unexpected {
            first: first.unwrap_or(0),
            state: state.name(),
        };
        let deprecate_eof = self
            .capabilities
            .contains(CapabilityFlags::CLIENT_DEPRECATE_EOF);
        let (packet, next) = match (self.state, first) {
            (State::Done, _) => return Err(ReplyError::AfterEnd),
            (state, None) => return Err(unexpected(state)),
            (State::Start, Some(0xFF)) => (ReplyPacket::Err, State::Done),
            (State::Start, Some(_)) if self.kind == ReplyKind::Statistics => {
                (ReplyPacket::Statistics, State::Done)
            }
            (State::Start, Some(0x00)) if self.kind == ReplyKind::Prepare => {
                let ok: StmtPacket = ParseBuf(payload)
                    .parse(())
                    .map_err(|_| ReplyError::Malformed("prepare OK"))?;
                let (params, columns) = (ok.num_params(), ok.num_columns());
                let next = match (params, columns) {
                    (0, 0) => State::Done,
                    (0, _) => State::PrepareColumns { next: 0, columns },
                    _ => State::Params {
                        next: 0,
                        params,
                        columns,
                    },
                };
                let packet = ReplyPacket::PrepareOk {
                    statement_id: ok.statement_id(),
                    params,
                    columns,
                };
                (packet, next)
            }
            (State::Start, _) if self.kind == ReplyKind::Prepare => {
                return Err(unexpected(self.state));
            }
            (State::Start, Some(0x00)) => {
                let more_results = self.ok_status::<CommonOkPacket>(payload, "OK")?;
                let next = if more_results {
                    State::Start
                } else {
                    State::Done
                };
                (ReplyPacket::Ok { more_results }, next)
            }
            (State::Start, Some(0xFB)) => (ReplyPacket::LocalInfile, State::Start),
            // COM_SET_OPTION and COM_DEBUG answer with an EOF (an OK without
            // `CLIENT_DEPRECATE_EOF`); a column count starting 0xFE is 9 bytes long.
            (State::Start, Some(0xFE)) if payload.len() < 9 => {
                let more_results = if deprecate_eof {
                    self.ok_status::<ResultSetTerminator>(payload, "OK")?
                } else {
                    self.eof_status(payload)?
                        .contains(StatusFlags::SERVER_MORE_RESULTS_EXISTS)
                };
                let next = if more_results {
                    State::Start
                } else {
                    State::Done
                };
                (ReplyPacket::Ok { more_results }, next)
            }
            (State::Start, Some(_)) => {
                let mut buf = ParseBuf(payload);
                let count = lenenc_int(&mut buf)
                    .filter(|&n| n > 0 && buf.is_empty())
                    .ok_or(unexpected(self.state))?;
                (
                    ReplyPacket::ColumnCount(count),
                    State::Columns { next: 0, count },
                )
            }
            (State::Columns { next, count }, Some(_)) => {
                let state = match (next + 1 < count, deprecate_eof) {
                    (true, _) => State::Columns {
                        next: next + 1,
                        count,
                    },
                    (false, false) => State::ColumnsEof,
                    (false, true) => State::Rows,
                };
                (ReplyPacket::ColumnDefinition { index: next }, state)
            }
            (State::ColumnsEof, Some(0xFE)) if payload.len() < 9 => {
                let status = self.eof_status(payload)?;
                // With a cursor the server sends no rows: they come with COM_STMT_FETCH.
                let next = if status.contains(StatusFlags::SERVER_STATUS_CURSOR_EXISTS) {
                    State::Done
                } else {
                    State::Rows
                };
                (ReplyPacket::ColumnsEof, next)
            }
            (State::ColumnsEof, Some(_)) => return Err(unexpected(self.state)),
            (State::Rows, Some(0xFF)) => (ReplyPacket::Err, State::Done),
            (State::Rows, Some(0xFE)) if is_end(payload.len(), deprecate_eof) => {
                let more_results = if deprecate_eof {
                    self.ok_status::<ResultSetTerminator>(payload, "OK")?
                } else {
                    self.eof_status(payload)?
                        .contains(StatusFlags::SERVER_MORE_RESULTS_EXISTS)
                };
                let next = if more_results {
                    State::Start
                } else {
                    State::Done
                };
                (ReplyPacket::ResultEnd { more_results }, next)
            }
            (State::Rows, Some(_)) => {
                let format = match self.kind {
                    ReplyKind::Execute | ReplyKind::Fetch => RowFormat::Binary,
                    _ => RowFormat::Text,
                };
                (ReplyPacket::Row(format), State::Rows)
            }
            (State::FieldList { .. }, Some(0xFF)) => (ReplyPacket::Err, State::Done),
            (State::FieldList { .. }, Some(0xFE)) if is_end(payload.len(), deprecate_eof) => {
                if deprecate_eof {
                    self.ok_status::<ResultSetTerminator>(payload, "OK")?;
                } else {
                    self.eof_status(payload)?;
                }
                let packet = ReplyPacket::ResultEnd {
                    more_results: false,
                };
                (packet, State::Done)
            }
            (State::FieldList { next }, Some(_)) => (
                ReplyPacket::ColumnDefinition { index: next },
                State::FieldList { next: next + 1 },
            ),
            (
                State::Params {
                    next,
                    params,
                    columns,
                },
                Some(_),
            ) => {
                let state = match (next + 1 < params, deprecate_eof, columns) {
                    (true, _, _) => State::Params {
                        next: next + 1,
                        params,
                        columns,
                    },
                    (false, false, _) => State::ParamsEof { columns },
                    (false, true, 0) => State::Done,
                    (false, true, _) => State::PrepareColumns { next: 0, columns },
                };
                (ReplyPacket::ParamDefinition { index: next }, state)
            }
            (State::ParamsEof { columns }, Some(0xFE)) if payload.len() < 9 => {
                self.eof_status(payload)?;
                let state = match columns {
                    0 => State::Done,
                    _ => State::PrepareColumns { next: 0, columns },
                };
                (ReplyPacket::ParamsEof, state)
            }
            (State::PrepareColumns { next, columns }, Some(_)) => {
                let state = match (next + 1 < columns, deprecate_eof) {
                    (true, _) => State::PrepareColumns {
                        next: next + 1,
                        columns,
                    },
                    (false, false) => State::PrepareColumnsEof,
                    (false, true) => State::Done,
                };
                (ReplyPacket::PrepareColumnDefinition { index: next }, state)
            }
            (State::PrepareColumnsEof, Some(0xFE)) if payload.len() < 9 => {
                self.eof_status(payload)?;
                (ReplyPacket::PrepareColumnsEof, State::Done)
            }
            (State::ParamsEof { .. } | State::PrepareColumnsEof, Some(_)) => {
                return Err(unexpected(self.state));
            }
        };
        self.state = next;
        // A packet that continues in the next one is only legal for rows and definitions.
        if self.continued && !matches!(packet, ReplyPacket::Row(_)) {
            self.continued = false;
            return Err(ReplyError::Unexpected {
                first: first.unwrap_or(0),
                state: "a packet continued past 16 MiB",
            });
        }
        Ok(packet)
    }

    /// The status flags of an old-style EOF packet.
    fn eof_status(&self, payload: &[u8]) -> Result<StatusFlags, ReplyError> {
        let ok: OkPacketDeserializer<'_, OldEofPacket> = ParseBuf(payload)
            .parse(self.capabilities)
            .map_err(|_| ReplyError::Malformed("EOF"))?;
        Ok(ok.into_inner().status_flags())
    }

    /// Whether an OK packet of kind `K` says more results follow.
    fn ok_status<K: mysql_common::packets::OkPacketKind>(
        &self,
        payload: &[u8],
        what: &'static str,
    ) -> Result<bool, ReplyError> {
        let ok: OkPacketDeserializer<'_, K> = ParseBuf(payload)
            .parse(self.capabilities)
            .map_err(|_| ReplyError::Malformed(what))?;
        Ok(ok
            .into_inner()
            .status_flags()
            .contains(StatusFlags::SERVER_MORE_RESULTS_EXISTS))
    }
}

/// Whether a packet starting with `0xFE` in the rows ends them: an EOF is under 9 bytes; with
/// `CLIENT_DEPRECATE_EOF` the OK that replaces it is any packet under 2^24 - 1 bytes (a text
/// row starting with `0xFE` holds a value of at least 2^24 bytes, so fills its packet).
fn is_end(payload_len: usize, deprecate_eof: bool) -> bool {
    if deprecate_eof {
        payload_len < MAX_PAYLOAD
    } else {
        payload_len < 9
    }
}
