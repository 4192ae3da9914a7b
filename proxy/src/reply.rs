//! Which command gets which reply: none, one the proxy refuses to relay, or one whose
//! grammar ([`ReplyKind`]) `encbench_mysql_wire::reply::Reply` follows to its end.

use encbench_mysql_wire::reply::ReplyKind;

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
    /// COM_STMT_EXECUTE: OK, ERR or a result set of binary rows (none with a cursor).
    pub const STMT_EXECUTE: u8 = 0x17;
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
    /// A reply of this grammar, followed to its end.
    Reply(ReplyKind),
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
        command::STMT_PREPARE => Expect::Reply(ReplyKind::Prepare),
        command::STMT_EXECUTE => Expect::Reply(ReplyKind::Execute),
        command::STMT_FETCH => Expect::Reply(ReplyKind::Fetch),
        command::FIELD_LIST => Expect::Reply(ReplyKind::FieldList),
        command::STATISTICS => Expect::Reply(ReplyKind::Statistics),
        _ => Expect::Reply(ReplyKind::Query),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_command_gets_its_reply() {
        assert_eq!(expect(command::STMT_CLOSE), Expect::Nothing);
        assert_eq!(expect(command::STMT_SEND_LONG_DATA), Expect::Nothing);
        assert_eq!(expect(command::CHANGE_USER), Expect::Refused);
        assert_eq!(expect(command::STMT_BULK_EXECUTE), Expect::Refused);
        assert_eq!(expect(0x03), Expect::Reply(ReplyKind::Query));
        assert_eq!(
            expect(command::STMT_EXECUTE),
            Expect::Reply(ReplyKind::Execute)
        );
        assert_eq!(expect(command::STMT_FETCH), Expect::Reply(ReplyKind::Fetch));
        assert_eq!(
            expect(command::FIELD_LIST),
            Expect::Reply(ReplyKind::FieldList)
        );
    }
}
