//! The SQL that differs between the servers, in one place: sysbench 1.0's
//! `oltp_common.lua` creates `sbtestN` per driver (MySQL: `AUTO_INCREMENT`,
//! `ENGINE = innodb`; pgsql: `SERIAL`, no engine), and envelopes need a binary
//! type (MySQL `VARBINARY(n)`, PostgreSQL `bytea`). Everything else the
//! workloads send is the same text on both.

use encbench_crypto::{Algorithm, envelope};

use super::{C_CHAR_LEN, PAD_CHAR_LEN};
use crate::columns::{Column, ColumnMode, Columns};

pub use crate::driver::Dialect;

/// The SQL of each dialect (the enum is the driver's: each driver knows its
/// dialect).
impl Dialect {
    /// The server's kind as results name it (`engine` in every run):
    /// `postgresql`, or for the mysql driver `mariadb` when `version` (its
    /// `SELECT VERSION()`) says MariaDB, else `mysql`.
    pub fn engine(self, version: &str) -> &'static str {
        match self {
            Dialect::Postgres => "postgresql",
            Dialect::Mysql if version.contains("MariaDB") => "mariadb",
            Dialect::Mysql => "mysql",
        }
    }

    /// The server's name in messages.
    pub fn server_name(self) -> &'static str {
        match self {
            Dialect::Mysql => "MySQL",
            Dialect::Postgres => "PostgreSQL",
        }
    }

    /// The command-line flags that select this server and name `db` as the
    /// base database (for the commands messages print): none for MySQL's
    /// defaults.
    pub fn flags(self, db: &str) -> String {
        let (driver, db_flag) = match self {
            Dialect::Mysql => ("", "--mysql-db"),
            Dialect::Postgres => (" --db-driver pgsql", "--pgsql-db"),
        };
        if db == "sbtest" {
            driver.to_string()
        } else {
            format!("{driver} {db_flag} {db}")
        }
    }

    /// The URL flag of this server's driver.
    pub fn url_flag(self) -> &'static str {
        match self {
            Dialect::Mysql => "--mysql-url",
            Dialect::Postgres => "--pgsql-url",
        }
    }

    /// `name` as a quoted identifier (`name` is letters, digits and `_`:
    /// the configuration checks database names).
    pub fn ident(self, name: &str) -> String {
        match self {
            Dialect::Mysql => format!("`{name}`"),
            Dialect::Postgres => format!("\"{name}\""),
        }
    }

    /// `s` as a quoted string literal (MySQL's backslash escapes; PostgreSQL's
    /// standard strings, `'` doubled).
    pub fn literal(self, s: &str) -> String {
        let mut out = String::new();
        match self {
            Dialect::Mysql => crate::driver::mysql_text::push_quoted(&mut out, s),
            Dialect::Postgres => crate::driver::pg_text::push_quoted(&mut out, s),
        }
        out
    }

    /// `DROP DATABASE` of `db` if it exists (PostgreSQL: `WITH (FORCE)`,
    /// which ends the sessions still connected to it, as MySQL drops a
    /// database under its sessions).
    pub fn drop_database_sql(self, db: &str) -> String {
        match self {
            Dialect::Mysql => format!("DROP DATABASE IF EXISTS {}", self.ident(db)),
            Dialect::Postgres => {
                format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.ident(db))
            }
        }
    }

    /// A query of one row, one column, when database `db` exists (`db` as a
    /// quoted string literal).
    pub fn database_exists_sql(self, db_literal: &str) -> String {
        match self {
            Dialect::Mysql => format!(
                "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = {db_literal}"
            ),
            Dialect::Postgres => {
                format!("SELECT datname::text FROM pg_database WHERE datname = {db_literal}")
            }
        }
    }

    /// The names of the databases `LIKE` the quoted pattern `like_literal`
    /// (`\` escapes), in order.
    pub fn databases_like_sql(self, like_literal: &str) -> String {
        match self {
            Dialect::Mysql => format!(
                "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE {like_literal} ORDER BY SCHEMA_NAME"
            ),
            Dialect::Postgres => format!(
                "SELECT datname::text FROM pg_database WHERE datname LIKE {like_literal} ORDER BY datname"
            ),
        }
    }

    /// The names of the tables `LIKE` the quoted pattern `like_literal` in
    /// the connection's database (MySQL's `DATABASE()`, PostgreSQL's
    /// `current_schema()` of the connected database).
    pub fn tables_like_sql(self, like_literal: &str) -> String {
        let (name, schema) = match self {
            Dialect::Mysql => ("TABLE_NAME", "DATABASE()"),
            Dialect::Postgres => ("table_name::text", "current_schema()"),
        };
        format!(
            "SELECT {name} FROM information_schema.TABLES WHERE TABLE_NAME LIKE {like_literal} AND TABLE_SCHEMA = {schema}"
        )
    }

    /// (table, index) of every index named `k_...` in the connection's database.
    pub fn k_indexes_sql(self) -> &'static str {
        match self {
            Dialect::Mysql => {
                "SELECT DISTINCT TABLE_NAME, INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND INDEX_NAME LIKE 'k\\_%'"
            }
            Dialect::Postgres => {
                "SELECT tablename::text, indexname::text FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE 'k\\_%'"
            }
        }
    }

    /// Takes the prepare lock of database `db` (`lock.rs`) without waiting:
    /// one row, one column, `1` when this session holds it now. MySQL's `GET_LOCK` is server-wide; PostgreSQL's session
    /// advisory lock is keyed by `hashtext` of the same name, within the
    /// connection's database.
    pub fn try_prepare_lock_sql(self, db: &str) -> String {
        let name = self.prepare_lock_name(db);
        match self {
            Dialect::Mysql => format!("SELECT GET_LOCK({name}, 0)"),
            Dialect::Postgres => format!("SELECT pg_try_advisory_lock(hashtext({name}))::int"),
        }
    }

    /// Releases the prepare lock of database `db` that this session holds.
    pub fn prepare_unlock_sql(self, db: &str) -> String {
        let name = self.prepare_lock_name(db);
        match self {
            Dialect::Mysql => format!("SELECT RELEASE_LOCK({name})"),
            Dialect::Postgres => format!("SELECT pg_advisory_unlock(hashtext({name}))"),
        }
    }

    /// The prepare lock's name as an SQL expression: `'encbench prepare DB'`;
    /// on MySQL, whose lock names have at most 64 characters, the MD5 of
    /// `DB` in its place when it would be longer.
    fn prepare_lock_name(self, db: &str) -> String {
        let name = format!("encbench prepare {db}");
        if self == Dialect::Mysql && name.chars().count() > 64 {
            format!("CONCAT('encbench prepare ', MD5({}))", self.literal(db))
        } else {
            self.literal(&name)
        }
    }

    /// `CREATE TABLE encbench_meta` (name, value) in the connection's database.
    pub fn create_meta_sql(self) -> String {
        let engine = match self {
            Dialect::Mysql => " ENGINE = innodb",
            Dialect::Postgres => "",
        };
        format!(
            "CREATE TABLE encbench_meta (name VARCHAR(64) PRIMARY KEY, value VARCHAR(255) NOT NULL){engine}"
        )
    }

    /// The server's version and connection limit, one row of two columns.
    pub fn version_sql(self) -> &'static str {
        match self {
            Dialect::Mysql => "SELECT VERSION(), @@max_connections",
            // version() adds the compiler and platform: the short form.
            Dialect::Postgres => {
                "SELECT 'PostgreSQL ' || current_setting('server_version'), current_setting('max_connections')"
            }
        }
    }

    /// The settings every result records, as (name, value) rows: MySQL's
    /// buffer pool, durability, binary log, TLS and at-rest variables;
    /// PostgreSQL's shared buffers, durability (fsync, synchronous_commit,
    /// full_page_writes, wal_level), TLS (ssl) and the server version.
    pub fn settings_sql(self) -> String {
        let (names, sql): (&[&str], &str) = match self {
            Dialect::Mysql => (
                &[
                    "innodb_buffer_pool_size",
                    "innodb_flush_log_at_trx_commit",
                    "sync_binlog",
                    "log_bin",
                    "innodb_doublewrite",
                    "have_ssl",
                    "innodb_encrypt_tables",
                    "innodb_encrypt_log",
                    "max_prepared_stmt_count",
                    "version_compile_machine",
                ],
                "SHOW GLOBAL VARIABLES WHERE Variable_name IN",
            ),
            Dialect::Postgres => (
                &[
                    "shared_buffers",
                    "fsync",
                    "synchronous_commit",
                    "full_page_writes",
                    "wal_level",
                    "ssl",
                    "max_connections",
                    "server_version",
                ],
                // shared_buffers in its unit (8kB pages) would misread: as shown.
                "SELECT name::text, current_setting(name) FROM pg_settings WHERE name IN",
            ),
        };
        let list: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
        format!("{sql} ({})", list.join(", "))
    }

    /// `oltp_insert`'s text INSERT into `table`, and whether its first
    /// placeholder is the id: with `server_id` (an auto-increment id in
    /// plaintext), sysbench 1.0's form per driver (MySQL: id 0, which
    /// `AUTO_INCREMENT` replaces; pgsql: no `id` column, which `SERIAL`
    /// fills); otherwise with an explicit id. Placeholders `?`: (id,) k, c, pad.
    pub fn text_insert_sql(self, table: &str, server_id: bool) -> (String, bool) {
        match (self, server_id) {
            (Dialect::Postgres, true) => (
                format!("INSERT INTO {table} (k, c, pad) VALUES (?, ?, ?)"),
                false,
            ),
            _ => (
                format!("INSERT INTO {table} (id, k, c, pad) VALUES (?, ?, ?, ?)"),
                true,
            ),
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
    fn catalog_sql_and_literals_per_server() {
        // Backslashes are MySQL escapes, plain characters in PostgreSQL's standard strings.
        assert_eq!(Dialect::Mysql.literal("a\\_'b"), "'a\\\\_\\'b'");
        assert_eq!(Dialect::Postgres.literal("a\\_'b"), "'a\\_''b'");
        assert_eq!(Dialect::Postgres.ident("sbtest_x"), "\"sbtest_x\"");
        assert_eq!(Dialect::Mysql.flags("sbtest"), "");
        assert_eq!(Dialect::Postgres.flags("sbtest"), " --db-driver pgsql");
        assert_eq!(
            Dialect::Postgres.flags("pg1"),
            " --db-driver pgsql --pgsql-db pg1"
        );
        assert_eq!(Dialect::Mysql.flags("m1"), " --mysql-db m1");
        assert_eq!(
            Dialect::Postgres.text_insert_sql("sbtest1", true),
            (
                "INSERT INTO sbtest1 (k, c, pad) VALUES (?, ?, ?)".to_string(),
                false
            )
        );
        assert!(Dialect::Postgres.text_insert_sql("sbtest1", false).1);
        assert!(Dialect::Mysql.text_insert_sql("sbtest1", true).1);
        assert!(
            Dialect::Postgres
                .drop_database_sql("d")
                .ends_with("WITH (FORCE)")
        );
        assert_eq!(Dialect::Mysql.engine("11.8.3-MariaDB"), "mariadb");
        assert_eq!(Dialect::Mysql.engine("8.0.36"), "mysql");
        assert_eq!(Dialect::Postgres.engine("PostgreSQL 15.18"), "postgresql");
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
