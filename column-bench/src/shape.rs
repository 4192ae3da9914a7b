//! Column shapes: which encrypted columns a row has and how long their values are.
//!
//! A shape comes from one of three places:
//!
//! - the default, sysbench's row: `c` = 119 characters, `pad` = 59 characters
//!   (sysbench 1.0 `oltp_common.lua`; `k` is an INTEGER and is not encrypted);
//! - `--columns c:119,pad:59` or a schema file with one `NAME:LENGTHS` per line,
//!   where `LENGTHS` is `N` (every value N bytes) or `MIN-MAX` (uniform in
//!   `[MIN, MAX]` bytes);
//! - `--from-mysql URL --table T`: the real value lengths of an existing table
//!   (see [`from_mysql`]).

use std::path::Path;
use std::time::Duration;

use crate::error::{Error, Result, invalid};
use encbench_common::password::ServerUrl;
use mysql_async::prelude::Queryable;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

/// sysbench's `c`: ten groups of 11 digits joined by `-`, in bytes.
pub const SYSBENCH_C_LEN: usize = 119;

/// sysbench's `pad`: five groups of 11 digits joined by `-`, in bytes.
pub const SYSBENCH_PAD_LEN: usize = 59;

/// Longest column name accepted, in bytes (a MySQL identifier is at most 64 characters).
pub const MAX_NAME_LEN: usize = 64;

/// Longest value accepted, in bytes (16 MiB: far beyond a proxy's per-row values,
/// small enough that a typo cannot exhaust memory).
pub const MAX_VALUE_LEN: usize = 16 << 20;

/// How long the values of one column are.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Lengths {
    /// Every value has this many bytes.
    Fixed {
        /// Value length, bytes.
        bytes: usize,
    },
    /// Uniformly distributed in `[min, max]` bytes.
    Uniform {
        /// Shortest value, bytes.
        min: usize,
        /// Longest value, bytes.
        max: usize,
    },
    /// Lengths read from a real table, drawn from in turn.
    Sampled {
        /// The lengths read, bytes (at least one).
        #[serde(skip)]
        lengths: Vec<usize>,
        /// How many lengths were read.
        rows: usize,
        /// Their mean, bytes.
        mean: f64,
    },
}

impl Lengths {
    /// Mean value length in bytes.
    pub fn mean(&self) -> f64 {
        match self {
            Lengths::Fixed { bytes } => *bytes as f64,
            Lengths::Uniform { min, max } => (*min + *max) as f64 / 2.0,
            Lengths::Sampled { mean, .. } => *mean,
        }
    }

    /// The length of the `i`-th generated value, bytes.
    fn draw(&self, i: usize, rng: &mut SmallRng) -> usize {
        match self {
            Lengths::Fixed { bytes } => *bytes,
            Lengths::Uniform { min, max } => rng.random_range(*min..=*max),
            Lengths::Sampled { lengths, .. } => lengths[i % lengths.len()],
        }
    }

    /// `119`, `100-200`, or `sampled(1000 rows, mean 118.4)`.
    pub fn describe(&self) -> String {
        match self {
            Lengths::Fixed { bytes } => bytes.to_string(),
            Lengths::Uniform { min, max } => format!("{min}-{max}"),
            Lengths::Sampled { rows, mean, .. } => format!("sampled({rows} rows, mean {mean:.1})"),
        }
    }
}

/// One encrypted column.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Column {
    /// Column name (bound into the AAD).
    pub name: String,
    /// Its value lengths.
    pub lengths: Lengths,
}

/// The encrypted columns of one row, in order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Shape {
    /// Table name bound into the AAD (`sbtest1` by default).
    pub table: String,
    /// The columns.
    pub columns: Vec<Column>,
}

impl Shape {
    /// sysbench's row: `c` (119 bytes) and `pad` (59 bytes) of table `sbtest1`.
    pub fn sysbench() -> Shape {
        Shape {
            table: "sbtest1".into(),
            columns: vec![
                Column {
                    name: "c".into(),
                    lengths: Lengths::Fixed {
                        bytes: SYSBENCH_C_LEN,
                    },
                },
                Column {
                    name: "pad".into(),
                    lengths: Lengths::Fixed {
                        bytes: SYSBENCH_PAD_LEN,
                    },
                },
            ],
        }
    }

    /// Parses `--columns`: `NAME:LENGTHS[,NAME:LENGTHS...]`, `LENGTHS` = `N` or `MIN-MAX` bytes.
    ///
    /// # Errors
    /// An empty list, a malformed entry, a zero-length or too-long name, a
    /// length above [`MAX_VALUE_LEN`], `MIN > MAX`, or a duplicate name.
    pub fn parse_columns(text: &str) -> Result<Shape> {
        let entries: Vec<&str> = text
            .split(',')
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .collect();
        Shape::from_entries(&entries, "--columns")
    }

    /// Reads a schema file: one `NAME:LENGTHS` per line, `#` comments and blank
    /// lines ignored.
    ///
    /// # Errors
    /// The file cannot be read, or an entry is malformed (as [`Shape::parse_columns`];
    /// the message names the file).
    pub fn from_schema_file(path: &Path) -> Result<Shape> {
        use encbench_common::files::{MAX_SCHEMA_FILE, read_capped};
        let what = "a schema file of NAME:LENGTHS lines";
        let bytes = read_capped(path, MAX_SCHEMA_FILE, what, "--schema-file")
            .map_err(|e| Error::Invalid(e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|_| {
            Error::Invalid(format!(
                "--schema-file {} is not UTF-8 text: give {what}",
                path.display()
            ))
        })?;
        Shape::parse_schema(&text, &format!("schema file {}", path.display()))
    }

    /// Parses the text of a schema file (one `NAME:LENGTHS` per line, `#`
    /// comments and blank lines ignored): the parsing entry point of
    /// [`Shape::from_schema_file`], also fuzzed (`fuzz/fuzz_targets/cli_parsers.rs`).
    /// `source` names the file in errors.
    ///
    /// # Errors
    /// As [`Shape::parse_columns`].
    pub fn parse_schema(text: &str, source: &str) -> Result<Shape> {
        let entries: Vec<&str> = text
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").trim())
            .filter(|l| !l.is_empty())
            .collect();
        Shape::from_entries(&entries, source)
    }

    fn from_entries(entries: &[&str], source: &str) -> Result<Shape> {
        const FORM: &str = "expected NAME:BYTES or NAME:MIN-MAX, comma separated (e.g. c:119,pad:59 or note:10-200)";
        if entries.is_empty() {
            invalid!("{source} lists no column: {FORM}");
        }
        let mut columns: Vec<Column> = Vec::new();
        for entry in entries {
            let Some((name, spec)) = entry.split_once(':') else {
                invalid!("{source}: {entry:?} has no ':': {FORM}");
            };
            let name = name.trim();
            check_name(name).map_err(|p| Error::Invalid(format!("{source}: {entry:?}: {p}")))?;
            let lengths = parse_lengths(spec.trim())
                .map_err(|p| Error::Invalid(format!("{source}: {entry:?}: {p}: {FORM}")))?;
            if columns.iter().any(|c| c.name == name) {
                invalid!("{source}: column {name:?} appears twice: give each column once");
            }
            columns.push(Column {
                name: name.to_string(),
                lengths,
            });
        }
        Ok(Shape {
            table: "sbtest1".into(),
            columns,
        })
    }

    /// The column called `name`, if the shape has it.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }
}

fn check_name(name: &str) -> std::result::Result<(), String> {
    if name.is_empty() {
        return Err("empty column name".into());
    }
    if name.len() > MAX_NAME_LEN {
        return Err(format!(
            "column name is {} bytes, at most {MAX_NAME_LEN} allowed",
            name.len()
        ));
    }
    Ok(())
}

fn parse_len(text: &str) -> std::result::Result<usize, String> {
    let n: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a byte count"))?;
    if n > MAX_VALUE_LEN {
        return Err(format!("{n} bytes is above the limit of {MAX_VALUE_LEN}"));
    }
    Ok(n)
}

fn parse_lengths(spec: &str) -> std::result::Result<Lengths, String> {
    match spec.split_once('-') {
        None => Ok(Lengths::Fixed {
            bytes: parse_len(spec)?,
        }),
        Some((lo, hi)) => {
            let (min, max) = (parse_len(lo)?, parse_len(hi)?);
            if min > max {
                return Err(format!("range {min}-{max} has MIN > MAX"));
            }
            Ok(Lengths::Uniform { min, max })
        }
    }
}

/// Generated values of one column: `rows` plaintexts with lengths drawn from
/// the column's distribution (digits and `-`, as sysbench's values; the content
/// does not change an AEAD's cost).
pub fn plaintexts(column: &Column, rows: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..rows)
        .map(|i| {
            let len = column.lengths.draw(i, &mut rng);
            (0..len)
                .map(|j| {
                    if j % 12 == 11 {
                        b'-'
                    } else {
                        b'0' + rng.random_range(0..10u8)
                    }
                })
                .collect()
        })
        .collect()
}

/// Where `--from-mysql` reads lengths from. `Debug` shows the URL without its password.
#[derive(Clone, Debug)]
pub struct MysqlSource {
    /// `mysql://user:password@host:port/database` (the password from the URL,
    /// `--password-file` or `MYSQL_PWD`: `encbench_common::password`).
    pub url: ServerUrl,
    /// Table name, or `database.table`.
    pub table: String,
    /// Columns to read; empty = every character or binary string column.
    pub columns: Vec<String>,
    /// Rows to read (`LIMIT`).
    pub rows: usize,
}

/// How long [`from_mysql`] waits for the server to accept a connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// String types whose value lengths are read (`information_schema.columns.data_type`).
const STRING_TYPES: [&str; 10] = [
    "char",
    "varchar",
    "binary",
    "varbinary",
    "tinytext",
    "text",
    "mediumtext",
    "tinyblob",
    "blob",
    "mediumblob",
];

fn check_identifier(what: &str, name: &str) -> Result<()> {
    if name.is_empty() || name.len() > MAX_NAME_LEN || name.contains('`') {
        invalid!(
            "{what} {name:?} is not a valid MySQL identifier (1 to 64 characters, no backquote)"
        );
    }
    Ok(())
}

/// Reads the value lengths (`LENGTH(col)`, bytes) of up to `src.rows` rows of an
/// existing table; the shape's table name is the table's.
///
/// The column list comes from `information_schema.columns` (character and
/// binary string types) unless `src.columns` names them. A table holding
/// encbench envelopes gives envelope lengths, not plaintext lengths.
///
/// # Errors
/// A malformed URL (an unescaped `@` in USER:PASS among them), a server that
/// cannot be reached within [`CONNECT_TIMEOUT`],
/// no database in the URL or the table name, a table without such columns,
/// or an empty table; each message says what to fix.
pub fn from_mysql(src: &MysqlSource) -> Result<Shape> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| Error::Io {
            context: "cannot start the tokio runtime".into(),
            source,
        })?;
    rt.block_on(from_mysql_async(src))
}

async fn from_mysql_async(src: &MysqlSource) -> Result<Shape> {
    // The rule of oltp's drivers: an '@' in USER:PASS percent-encoded.
    encbench_common::password::check_at_signs(&src.url)
        .map_err(|e| Error::Invalid(format!("--from-mysql: {e}")))?;
    let opts = mysql_async::Opts::from_url(&src.url).map_err(|e| {
        Error::Invalid(format!(
            "--from-mysql {:?} is not a MySQL URL ({e}): use mysql://USER@HOST:PORT/DATABASE, the password in --password-file F or $MYSQL_PWD",
            redact(&src.url)
        ))
    })?;
    let (db, table) = match src.table.split_once('.') {
        Some((db, t)) => (db.to_string(), t.to_string()),
        None => match opts.db_name() {
            Some(db) => (db.to_string(), src.table.clone()),
            None => invalid!(
                "--table {:?} names no database and the --from-mysql URL has none: use --table DB.TABLE or end the URL with /DATABASE",
                src.table
            ),
        },
    };
    check_identifier("database", &db)?;
    check_identifier("--table", &table)?;
    let where_ = redact(&src.url);
    let url_db = opts.db_name().map(str::to_string);
    let mut conn = match tokio::time::timeout(CONNECT_TIMEOUT, mysql_async::Conn::new(opts)).await {
        Ok(Ok(c)) => c,
        Ok(Err(error)) => {
            let fix = connect_fix(&error, url_db.as_deref());
            return Err(Error::Mysql {
                context: format!("cannot connect to --from-mysql {where_}"),
                error,
                fix,
            });
        }
        Err(_) => invalid!(
            "cannot connect to --from-mysql {where_}: no answer within {} s: check host and port",
            CONNECT_TIMEOUT.as_secs()
        ),
    };
    let result = read_lengths(&mut conn, &db, &table, src).await;
    let _ = conn.disconnect().await;
    result
}

/// MariaDB's and MySQL's `ER_BAD_DB_ERROR` (SQLSTATE 42000): the connection
/// names a database the server does not have.
const ER_BAD_DB_ERROR: u16 = 1049;

/// What to do about a refused connection (`error`) to a URL that names the
/// database `url_db`: `: ` and the fix.
fn connect_fix(error: &mysql_async::Error, url_db: Option<&str>) -> String {
    match (error, url_db) {
        (mysql_async::Error::Server(e), Some(db)) if e.code == ER_BAD_DB_ERROR => format!(
            ": the URL's database {db} does not exist on that server: end the URL with /DATABASE of an existing one (or create {db})"
        ),
        _ => ": start the server or fix host, port, user and password in the URL".to_string(),
    }
}

async fn read_lengths(
    conn: &mut mysql_async::Conn,
    db: &str,
    table: &str,
    src: &MysqlSource,
) -> Result<Shape> {
    let known: Vec<(String, String)> = conn
        .exec(
            "SELECT column_name, data_type FROM information_schema.columns \
             WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position",
            (db, table),
        )
        .await
        .map_err(|error| Error::Mysql {
            context: format!("cannot read the columns of {db}.{table}"),
            error,
            fix: String::new(),
        })?;
    if known.is_empty() {
        invalid!(
            "table {db}.{table} does not exist (or is not visible to this user): check --table"
        );
    }
    let names: Vec<String> = if src.columns.is_empty() {
        known
            .iter()
            .filter(|(_, t)| STRING_TYPES.contains(&t.to_ascii_lowercase().as_str()))
            .map(|(n, _)| n.clone())
            .collect()
    } else {
        for c in &src.columns {
            if !known.iter().any(|(n, _)| n.eq_ignore_ascii_case(c)) {
                let list: Vec<&str> = known.iter().map(|(n, _)| n.as_str()).collect();
                invalid!(
                    "--mysql-columns: {db}.{table} has no column {c:?}; its columns: {}",
                    list.join(", ")
                );
            }
        }
        src.columns.clone()
    };
    if names.is_empty() {
        invalid!(
            "{db}.{table} has no character or binary string column: name the columns with --mysql-columns"
        );
    }
    for n in &names {
        check_identifier("column", n)?;
    }
    let select: Vec<String> = names.iter().map(|n| format!("LENGTH(`{n}`)")).collect();
    let sql = format!(
        "SELECT {} FROM `{db}`.`{table}` LIMIT {}",
        select.join(", "),
        src.rows
    );
    let rows: Vec<mysql_async::Row> = conn.query(sql).await.map_err(|error| Error::Mysql {
        context: format!("cannot read value lengths from {db}.{table}"),
        error,
        fix: String::new(),
    })?;
    if rows.is_empty() {
        invalid!(
            "{db}.{table} is empty: load data first (e.g. `oltp prepare`) or choose another --table"
        );
    }
    let mut columns = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let lengths: Vec<usize> = rows
            .iter()
            .filter_map(|r| r.get::<Option<u64>, _>(i).flatten())
            .map(|n| n as usize)
            .collect();
        if lengths.is_empty() {
            invalid!(
                "column {name:?} of {db}.{table} is NULL in every row read: leave it out with --mysql-columns"
            );
        }
        let mean = lengths.iter().sum::<usize>() as f64 / lengths.len() as f64;
        columns.push(Column {
            name: name.clone(),
            lengths: Lengths::Sampled {
                rows: lengths.len(),
                mean,
                lengths,
            },
        });
    }
    Ok(Shape {
        table: table.to_string(),
        columns,
    })
}

/// The URL with its password replaced by `***`, for messages.
///
/// Text that holds `password` (a `password=` parameter, a key-value
/// connection string `host=h password=secret`), or is not a URL with an
/// authority (`SCHEME://...`) and could hold credentials (an `@` or a `:`, as
/// a mistyped `mysql:/u:secret@h`), is not echoed: `(not shown: not a
/// SCHEME://USER:PASSWORD@HOST URL)` instead (found by fuzz/fuzz_targets/cli_parsers.rs, input
/// `fuzz/regressions/cli_parsers/password-in-kv-string-redact`).
pub fn redact(url: &str) -> String {
    const HIDDEN: &str = "(not shown: not a SCHEME://USER:PASSWORD@HOST URL)";
    // A `password=` parameter (anywhere) is not masked piecewise: hidden whole.
    if url.to_ascii_lowercase().contains("password") {
        return HIDDEN.to_string();
    }
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            match creds.split_once(':') {
                Some((user, _)) => format!("{}{}:***{}", &url[..s + 3], user, &url[at..]),
                None => url.to_string(),
            }
        }
        (Some(_), _) => url.to_string(),
        _ if url.contains(['@', ':']) => HIDDEN.to_string(),
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_parse_fixed_and_ranges() {
        let s = Shape::parse_columns("c:119, pad:59,note:10-200").expect("valid");
        assert_eq!(s.columns.len(), 3);
        assert_eq!(s.columns[0].lengths, Lengths::Fixed { bytes: 119 });
        assert_eq!(s.columns[2].lengths, Lengths::Uniform { min: 10, max: 200 });
        assert_eq!(s.columns[2].lengths.mean(), 105.0);
        assert_eq!(
            Shape::parse_columns("c:119,pad:59").expect("valid"),
            Shape::sysbench()
        );
    }

    #[test]
    fn malformed_columns_are_one_line_errors_with_the_form() {
        for bad in [
            "",
            "c",
            "c:",
            "c:x",
            ":5",
            "c:9-3",
            "c:1,c:2",
            "c:99999999999",
        ] {
            let e = format!("{:#}", Shape::parse_columns(bad).expect_err(bad));
            assert!(e.contains("--columns"), "{bad}: {e}");
            assert!(!e.contains('\n'), "{bad}: {e}");
        }
        let e = format!("{:#}", Shape::parse_columns("c:x").expect_err("x"));
        assert!(e.contains("NAME:BYTES"), "{e}");
    }

    #[test]
    fn generated_values_follow_the_distribution() {
        let col = Column {
            name: "n".into(),
            lengths: Lengths::Uniform { min: 5, max: 9 },
        };
        let v = plaintexts(&col, 500, 1);
        assert!(v.iter().all(|x| (5..=9).contains(&x.len())));
        assert!(v.iter().any(|x| x.len() == 5) && v.iter().any(|x| x.len() == 9));
        let c = plaintexts(&Shape::sysbench().columns[0], 3, 1);
        assert!(c.iter().all(|x| x.len() == 119 && x[11] == b'-'));
    }

    #[test]
    fn redact_hides_the_password() {
        assert_eq!(
            redact("mysql://u:secret@127.0.0.1:3306/db"),
            "mysql://u:***@127.0.0.1:3306/db"
        );
        assert_eq!(redact("mysql://h/db"), "mysql://h/db");
    }

    /// Fuzz finding (cli_parsers): text that is no URL was echoed whole,
    /// password included.
    #[test]
    fn redact_never_echoes_credentials_of_text_that_is_no_url() {
        for text in [
            "host=127.0.0.1 port=5432 user=encbench password=kv-form-secret dbname=postgres",
            "mysql:/u:kv-form-secret@127.0.0.1/db",
            "u:kv-form-secret@127.0.0.1",
            "mysql://127.0.0.1/db?password=kv-form-secret",
            "mysql://u:p@127.0.0.1/db?password=kv-form-secret",
        ] {
            let r = redact(text);
            assert!(!r.contains("kv-form-secret"), "{text:?} -> {r:?}");
        }
        assert_eq!(redact("localhost/db"), "localhost/db");
    }
}
