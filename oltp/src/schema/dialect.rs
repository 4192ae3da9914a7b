//! The SQL that differs between the servers, in one place: sysbench 1.0's
//! `oltp_common.lua` creates `sbtestN` per driver (MySQL: `AUTO_INCREMENT`,
//! `ENGINE = innodb`; pgsql: `SERIAL`, no engine), and envelopes need a binary
//! type (MySQL `VARBINARY(n)`, PostgreSQL `bytea`). Everything else the
//! workloads send is the same text on both.

use encbench_crypto::{Algorithm, envelope};

use super::{C_CHAR_LEN, PAD_CHAR_LEN};
use crate::columns::{Column, ColumnMode, Columns};

/// Which server's SQL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// MariaDB and MySQL.
    Mysql,
    /// PostgreSQL.
    Postgres,
}

impl Dialect {
    /// The dialect of a server URL: `postgres://` or `postgresql://` is PostgreSQL,
    /// anything else MySQL's.
    pub fn of_url(url: &str) -> Dialect {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Dialect::Postgres
        } else {
            Dialect::Mysql
        }
    }

    /// The SQL type of an encrypted column holding values of at most `len` bytes
    /// in `mode` under `algorithm`.
    fn envelope_type(self, len: usize, algorithm: Algorithm, mode: ColumnMode) -> String {
        match self {
            // bytea is variable length with no declared bound.
            Dialect::Postgres => "BYTEA".to_string(),
            Dialect::Mysql => {
                let overhead = match mode {
                    ColumnMode::Deterministic => envelope::deterministic_overhead(algorithm),
                    _ => envelope::overhead(algorithm),
                };
                format!("VARBINARY({})", len + overhead)
            }
        }
    }

    /// `CREATE TABLE` for table `n`: sysbench's schema; under encryption the
    /// encrypted columns of `columns` are binary, sized for the envelope (CHAR
    /// would strip or pad trailing bytes). `auto_inc` and `secondary` are
    /// sysbench's `--auto-inc` and `--secondary` (on PostgreSQL the `secondary`
    /// index on `id` comes from [`after_load`](Self::after_load)).
    pub fn create_table_sql(
        self,
        n: u32,
        algorithm: Option<Algorithm>,
        columns: Columns,
        auto_inc: bool,
        secondary: bool,
    ) -> String {
        let typed = |name: Column, plain: String, len: usize| match algorithm {
            Some(a) if columns.mode(name) != ColumnMode::Plain => {
                self.envelope_type(len, a, columns.mode(name))
            }
            _ => plain,
        };
        let k = match algorithm {
            Some(a) if columns.k != ColumnMode::Plain => {
                format!(
                    "{} DEFAULT '' NOT NULL",
                    self.envelope_type(4, a, columns.k)
                )
            }
            _ => "INTEGER DEFAULT '0' NOT NULL".to_string(),
        };
        let c = typed(Column::C, format!("CHAR({C_CHAR_LEN})"), C_CHAR_LEN);
        let pad = typed(Column::Pad, format!("CHAR({PAD_CHAR_LEN})"), PAD_CHAR_LEN);
        match self {
            Dialect::Mysql => {
                let id = if auto_inc {
                    "INTEGER NOT NULL AUTO_INCREMENT"
                } else {
                    "INTEGER NOT NULL"
                };
                let key = if secondary { "KEY xid" } else { "PRIMARY KEY" };
                format!(
                    "CREATE TABLE sbtest{n}(\n  id {id},\n  k {k},\n  \
                     c {c} DEFAULT '' NOT NULL,\n  pad {pad} DEFAULT '' NOT NULL,\n  {key} (id)\n) ENGINE = innodb"
                )
            }
            Dialect::Postgres => {
                let id = if auto_inc {
                    "SERIAL"
                } else {
                    "INTEGER NOT NULL"
                };
                let key = if secondary {
                    String::new()
                } else {
                    ",\n  PRIMARY KEY (id)".to_string()
                };
                format!(
                    "CREATE TABLE sbtest{n}(\n  id {id},\n  k {k},\n  \
                     c {c} DEFAULT '' NOT NULL,\n  pad {pad} DEFAULT '' NOT NULL{key}\n)"
                )
            }
        }
    }

    /// Statements to run after table `n` is loaded with explicit ids: on
    /// PostgreSQL the `SERIAL` sequence moved past the largest id (so inserts
    /// that leave `id` to the server, as sysbench's pgsql `oltp_insert` does,
    /// do not collide) and the `--secondary` index on `id`.
    pub fn after_load(self, n: u32, auto_inc: bool, secondary: bool) -> Vec<String> {
        match self {
            Dialect::Mysql => Vec::new(),
            Dialect::Postgres => {
                let mut out = Vec::new();
                if auto_inc {
                    out.push(format!(
                        "SELECT setval(pg_get_serial_sequence('sbtest{n}', 'id'), (SELECT COALESCE(MAX(id), 0) + 1 FROM sbtest{n}), false)"
                    ));
                }
                if secondary {
                    out.push(format!("CREATE INDEX xid_{n} ON sbtest{n}(id)"));
                }
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_table_is_sysbench_pgsql_schema() {
        let sql = Dialect::Postgres.create_table_sql(3, None, Columns::DEFAULT, true, false);
        assert_eq!(
            sql,
            "CREATE TABLE sbtest3(\n  id SERIAL,\n  k INTEGER DEFAULT '0' NOT NULL,\n  \
             c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n)"
        );
        let enc = Dialect::Postgres.create_table_sql(
            1,
            Some(Algorithm::Aes256Gcm),
            Columns::DEFAULT,
            false,
            false,
        );
        assert!(enc.contains("id INTEGER NOT NULL,"), "{enc}");
        assert!(enc.contains("c BYTEA DEFAULT ''"), "{enc}");
        assert!(enc.contains("pad BYTEA DEFAULT ''"), "{enc}");
        assert!(!enc.contains("ENGINE"), "{enc}");
    }

    #[test]
    fn mysql_table_is_unchanged() {
        let sql = Dialect::Mysql.create_table_sql(1, None, Columns::DEFAULT, true, false);
        assert!(sql.contains("id INTEGER NOT NULL AUTO_INCREMENT"), "{sql}");
        assert!(sql.ends_with(") ENGINE = innodb"), "{sql}");
        assert!(Dialect::Mysql.after_load(1, true, false).is_empty());
        assert_eq!(Dialect::of_url("postgresql://u@h/db"), Dialect::Postgres);
        assert_eq!(Dialect::of_url("mysql://u@h"), Dialect::Mysql);
    }
}
