//! The MySQL client/server wire protocol, built on `mysql_common`'s packet types.
//!
//! `mysql_common` encodes and decodes the messages it knows (handshake, handshake response,
//! column definitions, ERR, statement packets, binary values); what it lacks for a server
//! side (OK/EOF writers, a `COM_STMT_EXECUTE` parser, the row splicer) lives here.

pub mod capabilities;
pub mod handshake;
pub mod ok_eof;
pub mod packet;
pub mod reply;
pub mod rows;
pub mod splice;
pub mod stmt;

pub use mysql_common;
