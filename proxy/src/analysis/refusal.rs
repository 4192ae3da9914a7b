//! Statements the proxy cannot run over encrypted columns without returning
//! ciphertext or a wrong answer: an error the proxy sends as ERR, naming the
//! construct, the column and the fix where one exists. Never a value.

/// Why a statement is refused. Columns are written `table.column`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// An INSERT that lets the server assign the id (id absent, 0 or NULL)
    /// into a table with encrypted columns: the AAD binds each value to its id.
    #[error(
        "insert into {table} lets the server assign the id, but its encrypted columns are bound to the id: send explicit ids (sysbench --auto_inc=off)"
    )]
    ServerAssignedId {
        /// The table.
        table: String,
    },
    /// `<`, `>`, `<=`, `>=`, BETWEEN on an encrypted column.
    #[error(
        "range comparison ({construct}) on encrypted column {column}: ciphertext has no order; keep the column plaintext"
    )]
    Range {
        /// The operator.
        construct: String,
        /// The column.
        column: String,
    },
    /// LIKE, REGEXP and their kin on an encrypted column.
    #[error(
        "pattern match ({construct}) on encrypted column {column}: not possible on ciphertext; keep the column plaintext"
    )]
    Pattern {
        /// The operator.
        construct: String,
        /// The column.
        column: String,
    },
    /// `=`, `<>`, IN on a randomized column.
    #[error(
        "equality ({construct}) on randomized column {column}: encrypt it deterministically (--deterministic {name})"
    )]
    EqualityOnRandomized {
        /// The operator.
        construct: String,
        /// The column.
        column: String,
        /// The column's bare name, for the fix.
        name: String,
    },
    /// An aggregate other than SUM and COUNT over an encrypted column.
    #[error(
        "aggregate {function} over encrypted column {column}: only SUM and COUNT are computed by the proxy"
    )]
    Aggregate {
        /// The function.
        function: String,
        /// The column.
        column: String,
    },
    /// A function or operator (other than the ones above) over an encrypted column.
    #[error(
        "{construct} over encrypted column {column}: the server only sees ciphertext; select the column itself"
    )]
    Function {
        /// The function or operator.
        construct: String,
        /// The column.
        column: String,
    },
    /// ORDER BY or DISTINCT on an encrypted column with LIMIT: the proxy sorts
    /// after opening, so it would have to fetch every matching row.
    #[error(
        "{construct} on encrypted column {column} with LIMIT: the proxy sorts after decryption and would fetch every row; drop the LIMIT or order by a plaintext column"
    )]
    SortWithLimit {
        /// ORDER BY or DISTINCT.
        construct: String,
        /// The column.
        column: String,
    },
    /// Writing a randomized column of a row the statement does not name by id.
    #[error(
        "{construct} of randomized column {column} needs the row's id (WHERE {id} = ?): its envelope is bound to the id"
    )]
    NeedsId {
        /// UPDATE.
        construct: String,
        /// The column.
        column: String,
        /// The id column's name.
        id: String,
    },
    /// Anything else over a table with encrypted columns.
    #[error("{construct} on {table} is not supported with encrypted columns{fix}")]
    Unsupported {
        /// What was found.
        construct: String,
        /// The table (or tables).
        table: String,
        /// `: ` and the fix, or empty.
        fix: String,
    },
    /// The statement names a table with encrypted columns but does not parse.
    #[error("the proxy cannot parse this statement over encrypted table {table}: {reason}")]
    Parse {
        /// The table named.
        table: String,
        /// The parser's reason (positions and tokens, no values).
        reason: String,
    },
}

impl Refusal {
    /// The MySQL error code the proxy's ERR carries: ER_NOT_SUPPORTED_YET.
    pub const ERROR_CODE: u16 = 1235;
    /// The SQLSTATE the proxy's ERR carries (syntax error or access rule violation).
    pub const SQL_STATE: &'static str = "42000";

    pub(crate) fn unsupported(construct: impl Into<String>, table: impl Into<String>) -> Refusal {
        Refusal::Unsupported {
            construct: construct.into(),
            table: table.into(),
            fix: String::new(),
        }
    }

    pub(crate) fn unsupported_fix(
        construct: impl Into<String>,
        table: impl Into<String>,
        fix: &str,
    ) -> Refusal {
        Refusal::Unsupported {
            construct: construct.into(),
            table: table.into(),
            fix: format!(": {fix}"),
        }
    }
}
