//! Prepared statements, server side: the parameters a COM_STMT_PREPARE reply announces, the
//! COM_STMT_EXECUTE parser over a borrowed packet and its re-writer.
//!
//! COM_STMT_EXECUTE's payload (MySQL's `COM_STMT_EXECUTE`, MariaDB's `mysql_stmt_execute`):
//! `0x17`, u32 statement id, u8 flags (cursor type), u32 iterations (always 1), then, when
//! the statement has n > 0 parameters: a NULL bitmap of `(n + 7) / 8` bytes at bit offset 0,
//! u8 `new_params_bound`, when it is 1 n x (u8 type, u8 flags; `0x80` = unsigned), then the
//! non-NULL values in the encoding of their type ([`BinaryEncoding`]). Clients send the types
//! only on the first execute after a bind (libmariadb), so a [`StmtParams`] per prepared
//! statement keeps them. The capability `CLIENT_QUERY_ATTRIBUTES` (MySQL 8's parameter count
//! and names) is not parsed: a proxy must not advertise it. MariaDB's direct execution
//! (statement id `0xFFFFFFFF`: the statement prepared just before, in the same write) is
//! the caller's to map to that statement's [`StmtParams`].

use mysql_common::constants::ColumnType;
use mysql_common::io::ParseBuf;
use mysql_common::packets::{NullBitmap, StmtPacket};
use mysql_common::value::ClientSide;

use crate::rows::{
    BinaryEncoding, HEADER_LEN, MAX_PAYLOAD, Redacted, framed_payload, write_header,
};

/// The command byte of COM_STMT_EXECUTE.
pub const COM_STMT_EXECUTE: u8 = 0x17;

/// Bytes before the NULL bitmap: command, statement id, flags, iterations.
const FIXED_LEN: usize = 1 + 4 + 1 + 4;

/// The type a parameter is sent as: a column type and its flags byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamType {
    /// The type (`MYSQL_TYPE_*`).
    pub column_type: ColumnType,
    /// The flags byte sent with it: `0x80` for an unsigned integer.
    pub flags: u8,
}

impl ParamType {
    /// The flag of an unsigned integer parameter.
    pub const UNSIGNED: u8 = 0x80;

    /// The type sealed column values are sent as: `MYSQL_TYPE_BLOB`, which the server takes
    /// as a binary string (charset `binary`, no conversion from the connection's character
    /// set), stored byte for byte in a `VARBINARY` column (oltp's encrypted columns).
    pub const SEALED: ParamType = ParamType {
        column_type: ColumnType::MYSQL_TYPE_BLOB,
        flags: 0,
    };

    /// Whether the parameter is an unsigned integer.
    pub fn unsigned(self) -> bool {
        self.flags & Self::UNSIGNED != 0
    }
}

/// What a COM_STMT_PREPARE reply (its first packet, parsed with `mysql_common`'s
/// [`StmtPacket`]) says of a statement: its id and column count; with the parameter types
/// the first execute brings, what every COM_STMT_EXECUTE of it needs parsing. Keep one per
/// prepared statement; the parser also keeps its per-execute value offsets here, so parsing
/// allocates nothing once the first execute has been seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StmtParams {
    statement_id: u32,
    columns: u16,
    count: usize,
    types: Vec<ParamType>,
    bound: bool,
    /// Per parameter of the last execute parsed: (head, start, end) offsets of its value
    /// (length prefix, content, end), `None` for NULL.
    values: Vec<Option<(usize, usize, usize)>>,
}

impl StmtParams {
    /// The parameters of statement `statement_id`, which has `count` of them and `columns`
    /// result columns; types unknown until an execute sends them.
    pub fn new(statement_id: u32, count: u16, columns: u16) -> StmtParams {
        let count = usize::from(count);
        StmtParams {
            statement_id,
            columns,
            count,
            types: Vec::with_capacity(count),
            bound: false,
            values: Vec::with_capacity(count),
        }
    }

    /// The parameters announced by the prepare-OK `packet` (header and payload), the first
    /// packet of a successful COM_STMT_PREPARE reply.
    ///
    /// # Errors
    /// [`ExecuteError::Framing`] when the packet's length disagrees with its size,
    /// [`ExecuteError::NotPrepareOk`] when it is not a prepare OK.
    pub fn from_prepare_ok(packet: &[u8]) -> Result<StmtParams, ExecuteError> {
        let payload = framed_payload(packet).ok_or(ExecuteError::Framing)?;
        let ok: StmtPacket = ParseBuf(payload)
            .parse(())
            .map_err(|_| ExecuteError::NotPrepareOk)?;
        Ok(StmtParams::new(
            ok.statement_id(),
            ok.num_params(),
            ok.num_columns(),
        ))
    }

    /// The statement id the server gave.
    pub fn statement_id(&self) -> u32 {
        self.statement_id
    }

    /// Result columns of the statement (0 for statements without a result set).
    pub fn columns(&self) -> u16 {
        self.columns
    }

    /// Parameters (placeholders) of the statement.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The parameter types of the last execute that sent them, `None` before the first.
    pub fn types(&self) -> Option<&[ParamType]> {
        self.bound.then_some(&self.types[..])
    }

    /// Parses the COM_STMT_EXECUTE `packet` (header and payload) of this statement; types
    /// it sends replace the kept ones.
    ///
    /// # Errors
    /// [`ExecuteError`] for a packet that is not a whole COM_STMT_EXECUTE of this statement:
    /// framing, another command or statement id, truncated header, a NULL bitmap shorter
    /// than the parameters need, `new_params_bound` other than 0 or 1, no types sent nor
    /// kept, an unknown or unsupported type, a value truncated or with a malformed length,
    /// bytes after the last value. The kept types are unchanged when the types are bad.
    pub fn parse<'p>(&mut self, packet: &'p [u8]) -> Result<StmtExecute<'p, '_>, ExecuteError> {
        let payload = framed_payload(packet)
            .filter(|p| p.len() < MAX_PAYLOAD)
            .ok_or(ExecuteError::Framing)?;
        let mut buf = ParseBuf(payload);
        let command = buf.checked_eat_u8().ok_or(ExecuteError::Truncated)?;
        if command != COM_STMT_EXECUTE {
            return Err(ExecuteError::NotExecute(command));
        }
        let statement_id = buf.checked_eat_u32_le().ok_or(ExecuteError::Truncated)?;
        let flags = buf.checked_eat_u8().ok_or(ExecuteError::Truncated)?;
        let iterations = buf.checked_eat_u32_le().ok_or(ExecuteError::Truncated)?;
        if statement_id != self.statement_id {
            return Err(ExecuteError::Statement {
                expected: self.statement_id,
                got: statement_id,
            });
        }
        self.values.clear();
        let mut new_params_bound = false;
        let mut bitmap_len = 0;
        if self.count > 0 {
            bitmap_len = NullBitmap::<ClientSide, &[u8]>::bitmap_len(self.count);
            if !buf.checked_skip(bitmap_len) {
                return Err(ExecuteError::BitmapShort {
                    needed: bitmap_len,
                    params: self.count,
                });
            }
            new_params_bound = match buf.checked_eat_u8().ok_or(ExecuteError::Truncated)? {
                0 => false,
                1 => true,
                other => return Err(ExecuteError::NewParamsBound(other)),
            };
            if new_params_bound {
                self.read_types(&mut buf)?;
            } else if !self.bound {
                return Err(ExecuteError::TypesMissing);
            }
            let bitmap = NullBitmap::<ClientSide, &[u8]>::from_bytes(
                &payload[FIXED_LEN..FIXED_LEN + bitmap_len],
            );
            for (param, ty) in self.types.iter().enumerate() {
                if bitmap.is_null(param) {
                    self.values.push(None);
                    continue;
                }
                let base = HEADER_LEN + payload.len() - buf.len();
                let encoding =
                    BinaryEncoding::of(ty.column_type).ok_or(ExecuteError::UnknownType {
                        param,
                        type_byte: ty.column_type as u8,
                    })?;
                let range = encoding
                    .read(&mut buf, base)
                    .ok_or(ExecuteError::ValueTruncated { param })?;
                self.values.push(Some((base, range.start, range.end)));
            }
        }
        if !buf.is_empty() {
            return Err(ExecuteError::TrailingBytes { extra: buf.len() });
        }
        Ok(StmtExecute {
            packet,
            statement_id,
            flags,
            iterations,
            new_params_bound,
            bitmap_len,
            params: self,
        })
    }

    /// Reads n (type, flags) pairs into the kept types, leaving them as they were on error.
    fn read_types(&mut self, buf: &mut ParseBuf<'_>) -> Result<(), ExecuteError> {
        let raw = buf
            .checked_eat(2 * self.count)
            .ok_or(ExecuteError::Truncated)?;
        for (param, pair) in raw.chunks_exact(2).enumerate() {
            let ok = ColumnType::try_from(pair[0])
                .ok()
                .and_then(BinaryEncoding::of)
                .is_some();
            if !ok {
                return Err(ExecuteError::UnknownType {
                    param,
                    type_byte: pair[0],
                });
            }
        }
        self.types.clear();
        for pair in raw.chunks_exact(2) {
            if let Ok(column_type) = ColumnType::try_from(pair[0]) {
                self.types.push(ParamType {
                    column_type,
                    flags: pair[1],
                });
            }
        }
        self.bound = true;
        Ok(())
    }
}

/// The statement id of a COM_STMT_EXECUTE `packet` (header and payload), to find its
/// [`StmtParams`]; `None` when it is not a COM_STMT_EXECUTE long enough to hold one.
pub fn execute_statement_id(packet: &[u8]) -> Option<u32> {
    let payload = framed_payload(packet)?;
    match payload {
        [COM_STMT_EXECUTE, a, b, c, d, ..] => Some(u32::from_le_bytes([*a, *b, *c, *d])),
        _ => None,
    }
}

/// One parameter of an execute (its Debug output shows the value's length, not its bytes).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Param<'p> {
    /// The type it is sent as.
    pub param_type: ParamType,
    /// Its value's content (no length prefix; fixed-size types little-endian), `None` for
    /// NULL.
    pub value: Option<&'p [u8]>,
}

/// A parsed COM_STMT_EXECUTE, borrowing its packet and its statement's [`StmtParams`] (its
/// Debug output shows the header and the parameters' types and lengths, not their values).
pub struct StmtExecute<'p, 's> {
    packet: &'p [u8],
    statement_id: u32,
    flags: u8,
    iterations: u32,
    new_params_bound: bool,
    bitmap_len: usize,
    params: &'s StmtParams,
}

/// A new value for one parameter of an execute (its Debug output shows the value's length,
/// not its bytes).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ParamReplacement<'a> {
    /// The parameter index (0-based, in placeholder order).
    pub param: usize,
    /// The type to send it as ([`ParamType::SEALED`] for sealed column values).
    pub param_type: ParamType,
    /// Its content (no length prefix), written in the encoding of `param_type`; `None` for
    /// NULL.
    pub value: Option<&'a [u8]>,
}

impl std::fmt::Debug for Param<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Param")
            .field("param_type", &self.param_type)
            .field("value", &Redacted(self.value.map(<[u8]>::len)))
            .finish()
    }
}

impl std::fmt::Debug for ParamReplacement<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParamReplacement")
            .field("param", &self.param)
            .field("param_type", &self.param_type)
            .field("value", &Redacted(self.value.map(<[u8]>::len)))
            .finish()
    }
}

impl std::fmt::Debug for StmtExecute<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StmtExecute")
            .field("statement_id", &self.statement_id)
            .field("flags", &self.flags)
            .field("iterations", &self.iterations)
            .field("new_params_bound", &self.new_params_bound)
            .field("params", &self.params().collect::<Vec<_>>())
            .finish()
    }
}

impl<'p> StmtExecute<'p, '_> {
    /// The statement id.
    pub fn statement_id(&self) -> u32 {
        self.statement_id
    }

    /// The flags byte (cursor type: 0 = no cursor, 1 = read-only cursor...).
    pub fn flags(&self) -> u8 {
        self.flags
    }

    /// The iteration count (1 from every client in use).
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Whether this execute sent the parameter types (`new_params_bound = 1`).
    pub fn new_params_bound(&self) -> bool {
        self.new_params_bound
    }

    /// Parameters of the statement.
    pub fn param_count(&self) -> usize {
        self.params.count
    }

    /// Parameter `index`, `None` past the last.
    pub fn param(&self, index: usize) -> Option<Param<'p>> {
        let param_type = *self.params.types.get(index)?;
        let value = self
            .params
            .values
            .get(index)?
            .map(|(_, s, e)| &self.packet[s..e]);
        Some(Param { param_type, value })
    }

    /// The parameters, in placeholder order.
    pub fn params(&self) -> impl Iterator<Item = Param<'p>> + '_ {
        (0..self.params.count).filter_map(|i| self.param(i))
    }

    /// Writes this execute with `replacements` applied into `out` (cleared first; header
    /// and payload, the sequence id kept). The new packet always sends the types
    /// (`new_params_bound = 1`; replaced parameters with their new type), so the server
    /// never reads a value with a type it was not told. No allocation once `out` has the
    /// capacity.
    ///
    /// # Errors
    /// [`ExecuteError::Replacement`] for replacements out of order or out of range,
    /// [`ExecuteError::ReplacementEncoding`] for a value that does not fit its type,
    /// [`ExecuteError::TooLong`] when the packet would exceed one packet. `out` is then
    /// left empty.
    pub fn rewrite(
        &self,
        replacements: &[ParamReplacement<'_>],
        out: &mut Vec<u8>,
    ) -> Result<(), ExecuteError> {
        out.clear();
        let result = self.rewrite_into(replacements, out);
        if result.is_err() {
            out.clear();
        }
        result
    }

    fn rewrite_into(
        &self,
        replacements: &[ParamReplacement<'_>],
        out: &mut Vec<u8>,
    ) -> Result<(), ExecuteError> {
        let mut next = 0;
        for r in replacements {
            if r.param < next || r.param >= self.params.count {
                return Err(ExecuteError::Replacement { param: r.param });
            }
            next = r.param + 1;
        }
        let fixed_end = HEADER_LEN + FIXED_LEN;
        out.extend_from_slice(&self.packet[..fixed_end]);
        if self.params.count > 0 {
            let bitmap_start = out.len();
            out.extend_from_slice(&self.packet[fixed_end..fixed_end + self.bitmap_len]);
            out.push(1);
            let mut pending = replacements.iter().peekable();
            for (i, ty) in self.params.types.iter().enumerate() {
                let ty = pending
                    .next_if(|r| r.param == i)
                    .map_or(*ty, |r| r.param_type);
                out.extend_from_slice(&[ty.column_type as u8, ty.flags]);
            }
            let mut pending = replacements.iter().peekable();
            for i in 0..self.params.count {
                let replaced = pending.next_if(|r| r.param == i);
                let value = match replaced {
                    Some(r) => {
                        if let Some(v) = r.value {
                            BinaryEncoding::of(r.param_type.column_type)
                                .and_then(|e| e.write(v, out))
                                .ok_or(ExecuteError::ReplacementEncoding {
                                    param: i,
                                    column_type: r.param_type.column_type,
                                    len: v.len(),
                                })?;
                        }
                        r.value.is_none()
                    }
                    None => {
                        if let Some((head, _, end)) = self.params.values[i] {
                            out.extend_from_slice(&self.packet[head..end]);
                            false
                        } else {
                            true
                        }
                    }
                };
                let bitmap = &mut out[bitmap_start..bitmap_start + self.bitmap_len];
                NullBitmap::<ClientSide, &mut [u8]>::from_bytes(bitmap).set(i, value);
            }
        }
        let len = out.len() - HEADER_LEN;
        if len >= MAX_PAYLOAD {
            return Err(ExecuteError::TooLong { len });
        }
        write_header(out, self.packet[3]);
        Ok(())
    }
}

/// A COM_STMT_EXECUTE (or prepare OK) the parser cannot read, or a re-write it cannot make.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExecuteError {
    /// The packet is shorter than its 4-byte header, its length field disagrees with its
    /// size, or its payload is 2^24 - 1 bytes long (continued in the next packet: not
    /// parsed).
    #[error("COM_STMT_EXECUTE framing: not one whole packet")]
    Framing,
    /// The packet is not a prepare OK (`0x00`, 12 bytes).
    #[error("not a COM_STMT_PREPARE OK packet")]
    NotPrepareOk,
    /// The command byte is not COM_STMT_EXECUTE (`0x17`).
    #[error("not a COM_STMT_EXECUTE (command {0:#04x})")]
    NotExecute(u8),
    /// The packet is for another statement than the [`StmtParams`] it was parsed with.
    #[error("COM_STMT_EXECUTE of statement {got} parsed as statement {expected}")]
    Statement {
        /// The statement id of the [`StmtParams`].
        expected: u32,
        /// The statement id of the packet.
        got: u32,
    },
    /// The packet ends inside its fixed header or its parameter types.
    #[error("COM_STMT_EXECUTE truncated")]
    Truncated,
    /// The packet ends inside its NULL bitmap.
    #[error("COM_STMT_EXECUTE NULL bitmap short ({needed} bytes for {params} parameters)")]
    BitmapShort {
        /// Bytes of bitmap the parameters need.
        needed: usize,
        /// Parameters of the statement.
        params: usize,
    },
    /// `new_params_bound` is neither 0 nor 1.
    #[error("COM_STMT_EXECUTE new_params_bound is {0}, not 0 or 1")]
    NewParamsBound(u8),
    /// No types in the packet and none from an earlier execute of the statement.
    #[error("COM_STMT_EXECUTE without parameter types, and no earlier execute sent them")]
    TypesMissing,
    /// A parameter type that is unknown or never travels in the binary protocol.
    #[error("COM_STMT_EXECUTE parameter {param} has unknown type {type_byte:#04x}")]
    UnknownType {
        /// The parameter index.
        param: usize,
        /// The type byte sent.
        type_byte: u8,
    },
    /// The packet ends inside parameter `param`'s value, or its length prefix is malformed.
    #[error("COM_STMT_EXECUTE value of parameter {param} truncated or malformed")]
    ValueTruncated {
        /// The parameter index.
        param: usize,
    },
    /// Bytes remain after the last value.
    #[error("{extra} bytes after COM_STMT_EXECUTE's last value")]
    TrailingBytes {
        /// Bytes left over.
        extra: usize,
    },
    /// Replacements must name parameters in increasing order, each once, below the count.
    #[error("replacement for parameter {param} out of order or out of range")]
    Replacement {
        /// The parameter index at fault.
        param: usize,
    },
    /// A replacement value does not fit the encoding of its type.
    #[error("replacement for parameter {param} does not fit type {column_type:?} ({len} bytes)")]
    ReplacementEncoding {
        /// The parameter index.
        param: usize,
        /// The type asked for.
        column_type: ColumnType,
        /// The value's length in bytes.
        len: usize,
    },
    /// The re-written packet would not fit one packet (2^24 - 1 bytes of payload or more).
    #[error("re-written COM_STMT_EXECUTE of {len} bytes does not fit one packet")]
    TooLong {
        /// The new payload's length in bytes.
        len: usize,
    },
}
