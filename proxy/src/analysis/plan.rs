//! What the proxy does with one statement, decided once (at COM_STMT_PREPARE,
//! or per COM_QUERY text) and run per execution without parsing again.

use std::fmt;
use std::fmt::Write as _;
use std::sync::Arc;

use encbench_columns::{ColumnMode, TableColumn};

use super::schema::PlainKind;

/// The plan of one statement.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Plan {
    /// Forward the statement and its replies untouched: it involves no
    /// encrypted column (BEGIN, COMMIT, DELETE by id, DROP, SET, SHOW...).
    PassThrough,
    /// A SELECT whose result holds encrypted columns, or whose WHERE seals values.
    Select(SelectPlan),
    /// INSERT, UPDATE or DELETE whose parameters or literals are sealed
    /// before the statement reaches the server.
    Write(WritePlan),
    /// `UPDATE t SET k = k + N WHERE ...` on an encrypted `k`: read, open,
    /// add, seal, write, inside the client's transaction.
    ReadModifyWrite(ReadModifyWritePlan),
    /// DDL sent rewritten (`CREATE TABLE` with encrypted columns as
    /// `VARBINARY` sized for the envelope); replies untouched.
    Rewrite(String),
}

/// An encrypted column as the proxy seals and opens it: its AAD prefix (built
/// once), its mode and what its plaintext is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncryptedColumn {
    /// Table and column, with the AAD prefix `Codec::seal_column` and
    /// `Codec::open_column_in_place` take.
    pub aad: TableColumn,
    /// Randomized (needs the row's id) or deterministic (does not).
    pub mode: ColumnMode,
    /// How a SQL value maps to the sealed plaintext.
    pub kind: PlainKind,
}

impl EncryptedColumn {
    /// Whether sealing or opening a value needs the row's id.
    pub fn needs_id(&self) -> bool {
        self.mode == ColumnMode::Randomized
    }
}

/// Where the id of a row (the AAD's primary key) comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdSource {
    /// Parameter `n` (0-based, in the statement's `?` order); the proxy reads
    /// it as an integer and refuses the execution if it is NULL, 0 or not an integer.
    Param(usize),
    /// An integer literal of the statement.
    Literal(i64),
    /// Result column `n` (0-based, in the server's reply).
    Column(usize),
}

/// A plaintext taken from the statement's text. Its Debug output shows only
/// its length: plaintext never reaches logs.
#[derive(Clone, PartialEq, Eq)]
pub struct Plaintext(pub Vec<u8>);

impl fmt::Debug for Plaintext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Plaintext({} bytes)", self.0.len())
    }
}

/// Which value of the statement is sealed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SealTarget {
    /// Parameter `n` (0-based): its bound value is replaced by the envelope
    /// (sent as a binary string).
    Param(usize),
    /// A literal: the statement's [`SqlTemplate`] slot `slot` receives the
    /// envelope of `plaintext` (already in the column's [`PlainKind`] form).
    Literal {
        /// Slot index in the template.
        slot: usize,
        /// What to seal.
        plaintext: Plaintext,
    },
}

/// One value to seal before the statement goes to the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seal {
    /// Which value.
    pub target: SealTarget,
    /// Under which column.
    pub column: Arc<EncryptedColumn>,
    /// The row's id for a randomized column (`None` for a deterministic one).
    pub id: Option<IdSource>,
}

/// A statement's text with slots where sealed literals go: `pieces[0]`, slot
/// 0, `pieces[1]`, ... (one piece more than slots).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqlTemplate {
    /// The text around the slots.
    pub pieces: Vec<String>,
}

impl SqlTemplate {
    /// A text without slots.
    pub fn plain(sql: String) -> SqlTemplate {
        SqlTemplate { pieces: vec![sql] }
    }

    /// Number of slots.
    pub fn slots(&self) -> usize {
        self.pieces.len() - 1
    }

    /// The SQL with slot `i` holding `values[i]` as a hex literal `X'..'`.
    ///
    /// # Panics
    /// When `values.len()` differs from [`slots`](Self::slots).
    pub fn render(&self, values: &[&[u8]]) -> String {
        assert_eq!(values.len(), self.slots(), "one value per slot");
        let len = self.pieces.iter().map(String::len).sum::<usize>()
            + values.iter().map(|v| 3 + 2 * v.len()).sum::<usize>();
        let mut out = String::with_capacity(len);
        for (i, piece) in self.pieces.iter().enumerate() {
            out.push_str(piece);
            if let Some(v) = values.get(i) {
                out.push_str("X'");
                for b in *v {
                    let _ = write!(out, "{b:02X}");
                }
                out.push('\'');
            }
        }
        out
    }
}

/// An encrypted column of a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultColumn {
    /// Position in the server's reply (0-based).
    pub position: usize,
    /// The column.
    pub column: Arc<EncryptedColumn>,
}

/// One key of a sort the proxy does after opening (MySQL's order for NULL:
/// first when ascending, last when descending). Values compare as integers
/// ([`PlainKind::Integer`]) or bytes (a binary collation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SortKey {
    /// Position in the server's reply (0-based).
    pub position: usize,
    /// Descending.
    pub descending: bool,
    /// How the opened values compare.
    pub kind: PlainKind,
}

/// A `SUM` over an encrypted integer column the proxy computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SumColumn {
    /// The reply's column name: the call as the client wrote it (`sum( k )`),
    /// or its alias.
    pub name: String,
    /// Position of the summed values in the server's reply.
    pub position: usize,
}

/// What the proxy does to a result after opening its encrypted columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PostProcess {
    /// Nothing: rows go out in the server's order.
    None,
    /// Sort the whole result by `keys` (ORDER BY taken out of the SQL), then
    /// drop rows equal to the one before over the visible columns when
    /// `distinct` (DISTINCT taken out of the SQL).
    Sort {
        /// The sort keys, most significant first (empty: no sort).
        keys: Vec<SortKey>,
        /// Deduplicate the visible columns (byte equality of the opened values).
        distinct: bool,
    },
    /// Reply one row, one column per sum, instead of the server's rows, as
    /// MariaDB 10.11 describes `SUM(k)` of an INTEGER `k` (checked with
    /// `mariadb --column-type-info`): type NEWDECIMAL (246), length 33, 0
    /// decimals, charset binary (63), flags BINARY and NUM, no table; the
    /// value the exact sum in decimal digits, NULL when no row matched.
    Sum(Vec<SumColumn>),
}

/// The plan of a SELECT touching encrypted columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectPlan {
    /// The SQL to send instead of the client's (prepare it instead, for a
    /// prepared statement: its parameters are the client's, in the same
    /// order); `None`: the client's SQL as is.
    pub sql: Option<SqlTemplate>,
    /// WHERE values sealed like stored values (equality with a deterministic column).
    pub seals: Vec<Seal>,
    /// The encrypted columns of the server's reply.
    pub columns: Vec<ResultColumn>,
    /// Where each row's id comes from, when a randomized column is opened.
    pub id: Option<IdSource>,
    /// Columns of the server's reply (the last ones) the proxy adds for itself
    /// (`id` for the AAD, a sort key) and strips before the client sees the row.
    pub hidden: usize,
    /// Sort, deduplicate or sum after opening.
    pub post: PostProcess,
}

/// The plan of an INSERT, UPDATE or DELETE that seals values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WritePlan {
    /// The SQL to send instead of the client's (literal slots); `None`: as is.
    pub sql: Option<SqlTemplate>,
    /// The values to seal.
    pub seals: Vec<Seal>,
}

/// The amount a read-modify-write adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delta {
    /// A literal (`k = k + 1`: 1; `k = k - 2`: -2).
    Literal(i64),
    /// Parameter `n`, added (`false`) or subtracted (`true`).
    Param(usize, bool),
}

/// `UPDATE t SET k = k + delta WHERE ...` on an encrypted integer `k`, run by
/// the proxy inside the client's transaction (MySQL runs a lone statement in
/// its own autocommit transaction: the proxy wraps the steps in BEGIN/COMMIT
/// when the client has none open):
/// 1. `select` (`SELECT id, k FROM t WHERE ... FOR UPDATE`, parameters
///    `select_params` of the client's statement, in order);
/// 2. per row: open `k` at its id, add `delta`, seal at the same id;
/// 3. `update` (`UPDATE t SET k = ? WHERE id = ?`: the envelope, the id) per row;
/// 4. reply OK with the number of rows updated as affected rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadModifyWritePlan {
    /// Step 1's SQL (with literal slots for sealed WHERE literals).
    pub select: SqlTemplate,
    /// The client's parameters step 1 binds, in order (0-based indexes).
    pub select_params: Vec<usize>,
    /// WHERE values of step 1 to seal (targets index the client's parameters).
    pub seals: Vec<Seal>,
    /// The column read, changed and written.
    pub column: Arc<EncryptedColumn>,
    /// What is added.
    pub delta: Delta,
    /// Step 3's SQL: two parameters, the envelope then the id.
    pub update: String,
}
