//! The encryption configuration the analysis reads: which tables have which
//! encrypted columns, how each is stored, and the id column the AAD binds
//! randomized values to.

use encbench_columns::{Column, ColumnMode, Columns};

/// Which tables a [`TableRule`] covers: one name, or every name starting with
/// a prefix (written `sbtest%`, as SQL's `LIKE` spells it). Matched without
/// regard to ASCII case (a wider match only encrypts or refuses more, never less).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TablePattern {
    /// Exactly this table.
    Exact(String),
    /// Every table whose name starts with this prefix.
    Prefix(String),
}

impl TablePattern {
    /// `sbtest%` is a prefix, anything without a trailing `%` an exact name.
    pub fn parse(text: &str) -> TablePattern {
        match text.strip_suffix('%') {
            Some(prefix) => TablePattern::Prefix(prefix.to_string()),
            None => TablePattern::Exact(text.to_string()),
        }
    }

    /// Whether `table` (an unquoted table name, without its database) matches.
    pub fn matches(&self, table: &str) -> bool {
        match self {
            TablePattern::Exact(name) => name.eq_ignore_ascii_case(table),
            TablePattern::Prefix(prefix) => {
                table.len() >= prefix.len()
                    && table.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
            }
        }
    }

    /// The literal text every SQL naming a matching table contains.
    fn literal(&self) -> &str {
        match self {
            TablePattern::Exact(s) | TablePattern::Prefix(s) => s,
        }
    }
}

/// What an encrypted column holds before sealing: how a SQL value becomes the
/// plaintext the envelope seals, and back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlainKind {
    /// An INTEGER, sealed as its 4-byte big-endian two's complement
    /// ([`encbench_columns::k_plaintext`]; sysbench's `k`).
    Integer,
    /// The value's bytes as the client sent them (CHAR, VARCHAR, BINARY...).
    Bytes,
}

/// One encrypted column of a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnRule {
    /// The column's name (matched without regard to ASCII case, as MySQL does).
    pub name: String,
    /// Randomized (AEAD, bound to table, column and id) or deterministic
    /// (AES-SIV, bound to table and column: equality works on the server).
    /// Never [`ColumnMode::Plain`] (such a column is simply not listed).
    pub mode: ColumnMode,
    /// What the plaintext is.
    pub kind: PlainKind,
    /// The longest plaintext in bytes (sysbench: `k` 4, `c` 120, `pad` 60):
    /// `CREATE TABLE` gets `VARBINARY(max_len + envelope overhead)`.
    pub max_len: usize,
}

/// The encrypted columns of the tables one pattern names, and their id column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableRule {
    /// Which tables.
    pub pattern: TablePattern,
    /// The integer primary key a randomized envelope is bound to (sysbench: `id`).
    pub id_column: String,
    /// The encrypted columns (never the id column).
    pub columns: Vec<ColumnRule>,
}

impl TableRule {
    /// The rule of column `name`, if it is encrypted.
    pub fn column(&self, name: &str) -> Option<&ColumnRule> {
        self.columns
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name))
    }

    /// Whether `name` is the id column.
    pub fn is_id(&self, name: &str) -> bool {
        self.id_column.eq_ignore_ascii_case(name)
    }

    /// Whether any encrypted column is randomized (then rows need their id).
    pub fn any_randomized(&self) -> bool {
        self.columns
            .iter()
            .any(|c| c.mode == ColumnMode::Randomized)
    }
}

/// Which tables and columns the proxy encrypts (`--encrypt-columns`,
/// `--deterministic`), and the envelope sizes `CREATE TABLE` is sized with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncryptionSchema {
    /// The rules, first match wins.
    pub tables: Vec<TableRule>,
    /// Bytes a randomized envelope adds to its plaintext
    /// (`encbench_crypto::envelope::overhead(algorithm)`).
    pub randomized_overhead: usize,
    /// Bytes a deterministic envelope adds to its plaintext
    /// (`encbench_crypto::envelope::deterministic_overhead(algorithm)`).
    pub deterministic_overhead: usize,
}

/// The default envelope overhead in bytes when the caller does not set one:
/// version (1) + key id (4) + nonce (12) + tag (16) of AES-256-GCM, wider than
/// AES-SIV's version (1) + key id (4) + SIV (16).
const DEFAULT_OVERHEAD: usize = 33;

impl Default for EncryptionSchema {
    /// sysbench's tables `sbtest%` with `k`, `c` and `pad` randomized, `id` plaintext.
    fn default() -> Self {
        EncryptionSchema::sysbench(Columns {
            k: ColumnMode::Randomized,
            c: ColumnMode::Randomized,
            pad: ColumnMode::Randomized,
        })
    }
}

impl EncryptionSchema {
    /// sysbench's tables (`sbtest%`, id `id`) with the layout `columns` parsed
    /// from `--encrypt-columns` / `--deterministic` ([`Columns::parse`]).
    pub fn sysbench(columns: Columns) -> EncryptionSchema {
        let rules = Columns::ALL
            .into_iter()
            .filter(|&c| columns.mode(c) != ColumnMode::Plain)
            .map(|c| ColumnRule {
                name: c.name().to_string(),
                mode: columns.mode(c),
                kind: if c == Column::K {
                    PlainKind::Integer
                } else {
                    PlainKind::Bytes
                },
                // sysbench's schema: k INTEGER (4 bytes sealed), c CHAR(120), pad CHAR(60).
                max_len: match c {
                    Column::K => 4,
                    Column::C => 120,
                    Column::Pad => 60,
                },
            })
            .collect();
        EncryptionSchema {
            tables: vec![TableRule {
                pattern: TablePattern::Prefix("sbtest".to_string()),
                id_column: "id".to_string(),
                columns: rules,
            }],
            randomized_overhead: DEFAULT_OVERHEAD,
            deterministic_overhead: DEFAULT_OVERHEAD,
        }
    }

    /// The same schema with the envelope overheads (bytes) of the algorithm in use.
    pub fn with_overhead(mut self, randomized: usize, deterministic: usize) -> EncryptionSchema {
        self.randomized_overhead = randomized;
        self.deterministic_overhead = deterministic;
        self
    }

    /// The rule of `table` (unquoted, without its database) when it has an
    /// encrypted column.
    pub fn table(&self, table: &str) -> Option<&TableRule> {
        self.tables
            .iter()
            .find(|t| t.pattern.matches(table))
            .filter(|t| !t.columns.is_empty())
    }

    /// Whether `sql` may name a table with an encrypted column: false means
    /// it certainly does not (the pass-through fast path, no parsing).
    pub fn mentions(&self, sql: &str) -> bool {
        self.tables.iter().any(|t| {
            !t.columns.is_empty()
                && contains_ignore_ascii_case(sql.as_bytes(), t.pattern.literal().as_bytes())
        })
    }
}

fn contains_ignore_ascii_case(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty()
        || haystack
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
}
