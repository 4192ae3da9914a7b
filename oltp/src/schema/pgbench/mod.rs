//! pgbench's tables, as PostgreSQL 15's `pgbench -i -s SCALE` creates them
//! (`src/bin/pgbench/pgbench.c`: `initCreateTables`, `initGenerateDataClientSide`,
//! `initVacuum`, `initCreatePKeys`): names, column types, filler widths and
//! row counts per scale unit here; the load ([`prepare`]), the checks of what
//! is prepared ([`check_prepared`]) and the drop ([`drop_tables`]) in their
//! own files.
//!
//! The tables live in the same databases as sysbench's (`DB` for plaintext,
//! `DB_<algorithm>` for column encryption), beside the `sbtest` tables, with
//! their own record of how they were prepared ([`META_TABLE`]); tables that
//! stock `pgbench -i` made have none and are read as pgbench reads them.
//!
//! Column encryption seals fillers only: `pgbench_accounts.filler` (the
//! default layout), or with `--encrypt-columns all` the filler of every table,
//! each as an envelope in `bytea` whose AAD binds (table, `filler`, primary
//! key), as the sysbench columns are bound. pgbench leaves the fillers of
//! `pgbench_branches`, `pgbench_tellers` and `pgbench_history` NULL (checked
//! against `pgbench -i` 15), and a NULL is not sealed, so `all` changes their
//! types only.

use anyhow::{Result, bail};
use encbench_crypto::envelope::{EnvelopeError, Location, int_primary_key};

use crate::columns::{Codec, ColumnMode, Columns, Encrypt};
use crate::schema::DataSet;

mod check;
mod load;

pub use check::{
    PgbenchMeta, check_keys, check_not_prepared, check_prepared, drop_tables, read_meta,
};
pub use load::{LoadTimes, PgbenchPrepare, prepare};

/// pgbench's `naccounts`: rows of `pgbench_accounts` per scale unit.
pub const ACCOUNTS_PER_SCALE: u32 = 100_000;
/// pgbench's `ntellers`: rows of `pgbench_tellers` per scale unit.
pub const TELLERS_PER_SCALE: u32 = 10;
/// pgbench's `nbranches`: rows of `pgbench_branches` per scale unit.
pub const BRANCHES_PER_SCALE: u32 = 1;
/// pgbench's `SCALE_32BIT_THRESHOLD`: from this scale on, `aid` is `bigint`.
pub const SCALE_32BIT_THRESHOLD: u32 = 20_000;
/// Largest `--scale`: aid = 100,000 x scale stays within `i32` (2,147,400,000
/// accounts, about 320 GB; pgbench goes further with `bigint` aids).
pub const MAX_SCALE: u32 = 21_474;
/// pgbench's default fillfactor (`-F`).
pub const DEFAULT_FILLFACTOR: u32 = 100;
/// How `oltp prepare` records pgbench tables it made (name, value), in the
/// database that holds them.
pub const META_TABLE: &str = "encbench_pgbench";
/// The SQL name of the filler column of every pgbench table, also bound into the AAD.
pub const FILLER: &str = "filler";

/// One of pgbench's four tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// `pgbench_branches` (1 row per scale unit, filler `char(88)`).
    Branches,
    /// `pgbench_tellers` (10 per scale unit, filler `char(84)`).
    Tellers,
    /// `pgbench_accounts` (100,000 per scale unit, filler `char(84)`).
    Accounts,
    /// `pgbench_history` (empty after `-i`; one row per tpcb-like or
    /// simple-update transaction; filler `char(22)`, no primary key).
    History,
}

impl Table {
    /// The four, in the order `pgbench -i` creates them.
    pub const ALL: [Table; 4] = [
        Table::History,
        Table::Tellers,
        Table::Accounts,
        Table::Branches,
    ];

    /// Its SQL name.
    pub const fn name(self) -> &'static str {
        match self {
            Table::Branches => "pgbench_branches",
            Table::Tellers => "pgbench_tellers",
            Table::Accounts => "pgbench_accounts",
            Table::History => "pgbench_history",
        }
    }

    /// The width of its `filler char(n)`.
    pub const fn filler_width(self) -> usize {
        match self {
            Table::Branches => 88,
            Table::Tellers | Table::Accounts => 84,
            Table::History => 22,
        }
    }

    /// The primary key `pgbench -i` adds after the load (none for history).
    pub const fn key(self) -> Option<&'static str> {
        match self {
            Table::Branches => Some("bid"),
            Table::Tellers => Some("tid"),
            Table::Accounts => Some("aid"),
            Table::History => None,
        }
    }

    /// The columns before `filler`, as pgbench 15 declares them (`aid` is
    /// `bigint` from [`SCALE_32BIT_THRESHOLD`] on).
    fn columns(self, scale: u32) -> &'static str {
        let big = scale >= SCALE_32BIT_THRESHOLD;
        match (self, big) {
            (Table::History, false) => "tid int,bid int,aid int,delta int,mtime timestamp",
            (Table::History, true) => "tid int,bid int,aid bigint,delta int,mtime timestamp",
            (Table::Tellers, _) => "tid int not null,bid int,tbalance int",
            (Table::Accounts, false) => "aid int not null,bid int,abalance int",
            (Table::Accounts, true) => "aid bigint not null,bid int,abalance int",
            (Table::Branches, _) => "bid int not null,bbalance int",
        }
    }

    /// `CREATE TABLE` as pgbench 15 sends it (history has no fillfactor),
    /// with the filler as `bytea` when `fillers` encrypts it.
    pub fn create_sql(self, scale: u32, fillfactor: u32, fillers: Option<Fillers>) -> String {
        let filler = if fillers.is_some_and(|f| f.encrypts(self)) {
            "bytea".to_string()
        } else {
            format!("char({})", self.filler_width())
        };
        let with = match self {
            Table::History => String::new(),
            _ => format!(" with (fillfactor={fillfactor})"),
        };
        format!(
            "create table {}({},filler {filler}){with}",
            self.name(),
            self.columns(scale)
        )
    }
}

/// Which fillers column encryption seals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fillers {
    /// `pgbench_accounts.filler` only (`--encrypt-columns` left at its default).
    Accounts,
    /// The filler of all four tables (`--encrypt-columns all`).
    All,
}

impl Fillers {
    /// The pgbench layout of `--encrypt-columns` / `--deterministic`: the
    /// default layout seals `pgbench_accounts.filler`, `all` every filler.
    ///
    /// # Errors
    /// Any other layout (sysbench's `k`, `c`, `pad` alone, or deterministic
    /// columns), which pgbench's tables do not have.
    pub fn of(columns: Columns) -> Result<Fillers> {
        let all = Columns {
            k: ColumnMode::Randomized,
            c: ColumnMode::Randomized,
            pad: ColumnMode::Randomized,
        };
        if columns == Columns::DEFAULT {
            Ok(Fillers::Accounts)
        } else if columns == all {
            Ok(Fillers::All)
        } else {
            bail!(
                "--encrypt-columns {} names sysbench's columns: pgbench's tables encrypt pgbench_accounts.filler (leave --encrypt-columns out) or every filler (--encrypt-columns all), never deterministically",
                columns.describe().replace(' ', "")
            )
        }
    }

    /// Whether `table`'s filler is sealed.
    pub fn encrypts(self, table: Table) -> bool {
        self == Fillers::All || table == Table::Accounts
    }

    /// As recorded in [`META_TABLE`].
    pub fn meta(self) -> &'static str {
        match self {
            Fillers::Accounts => "pgbench_accounts.filler",
            Fillers::All => "all fillers",
        }
    }

    /// The `--encrypt-columns` flag that selects it, with a leading space
    /// (none for the default).
    pub fn flags(self) -> &'static str {
        match self {
            Fillers::Accounts => "",
            Fillers::All => " --encrypt-columns all",
        }
    }
}

/// Seals `plaintext`, the filler of `table` at primary key `key`, into `out`
/// with `codec`'s randomized cipher (AAD: table, `filler`, key); the
/// plaintext itself when `codec` is plaintext.
///
/// # Errors
/// Sealing failed.
pub fn seal_filler(
    codec: &Codec,
    table: Table,
    key: i64,
    plaintext: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), EnvelopeError> {
    match codec.cipher() {
        None => {
            out.clear();
            out.extend_from_slice(plaintext);
            Ok(())
        }
        Some(c) => {
            let pk = int_primary_key(key);
            c.seal(&location(table, &pk), plaintext, out)
        }
    }
}

/// Opens `stored`, the filler of `table` at `key`, in place (see [`seal_filler`]).
///
/// # Errors
/// The envelope does not open (wrong key, another row's value, a changed byte).
pub fn open_filler(
    codec: &Codec,
    table: Table,
    key: i64,
    stored: &mut Vec<u8>,
) -> Result<(), EnvelopeError> {
    match codec.cipher() {
        None => Ok(()),
        Some(c) => {
            let pk = int_primary_key(key);
            c.open_vec_in_place(&location(table, &pk), stored)
        }
    }
}

fn location<'a>(table: Table, pk: &'a [u8]) -> Location<'a> {
    Location {
        table: table.name(),
        column: FILLER,
        primary_key: pk,
    }
}

/// `oltp prepare` of pgbench's tables of `data` (its base database, server
/// flags and at-rest mode) for `encrypts` (one `--encrypt` list) as a user
/// types it.
pub fn prepare_command(
    workload: &str,
    scale: u32,
    data: &DataSet,
    encrypts: &[Encrypt],
    fillers: Fillers,
) -> String {
    let encrypted = encrypts
        .iter()
        .find(|e| e.algorithm().is_some())
        .copied()
        .unwrap_or(Encrypt::None);
    format!(
        "oltp prepare --workload {workload} --scale {scale} --encrypt {}{}",
        super::meta::encrypt_list(encrypts),
        tail(data, encrypted, fillers)
    )
}

/// `oltp cleanup` of `encrypt`'s pgbench tables of `data` as a user types it.
pub fn cleanup_command(data: &DataSet, encrypt: Encrypt, fillers: Fillers) -> String {
    format!(
        "oltp cleanup --encrypt {}{}",
        encrypt.name(),
        tail(data, encrypt, fillers)
    )
}

/// What both commands end with: the fillers' flag (encrypted only), the
/// driver and database, the flags that chose the server and its TLS, the at-rest mode.
fn tail(data: &DataSet, encrypt: Encrypt, fillers: Fillers) -> String {
    format!(
        "{}{}{}{}{}",
        if encrypt.algorithm().is_some() {
            fillers.flags()
        } else {
            ""
        },
        super::Dialect::Postgres.flags(&data.db),
        data.server,
        super::meta::tls_flags(data),
        super::meta::at_rest_flag(data.at_rest)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_pgbench_15s() {
        assert_eq!(
            Table::Accounts.create_sql(1, 100, None),
            "create table pgbench_accounts(aid int not null,bid int,abalance int,filler char(84)) with (fillfactor=100)"
        );
        assert_eq!(
            Table::History.create_sql(20_000, 90, None),
            "create table pgbench_history(tid int,bid int,aid bigint,delta int,mtime timestamp,filler char(22))"
        );
        assert!(
            Table::Branches
                .create_sql(1, 80, None)
                .ends_with("filler char(88)) with (fillfactor=80)")
        );
        let acc = Some(Fillers::Accounts);
        assert!(
            Table::Accounts
                .create_sql(1, 100, acc)
                .contains("filler bytea")
        );
        assert!(
            Table::Tellers
                .create_sql(1, 100, acc)
                .contains("filler char(84)")
        );
        assert!(
            Table::Tellers
                .create_sql(1, 100, Some(Fillers::All))
                .contains("filler bytea")
        );
    }

    #[test]
    fn layouts_map_to_fillers() {
        assert_eq!(Fillers::of(Columns::DEFAULT).ok(), Some(Fillers::Accounts));
        let all = Columns::parse(&["all".into()], &[]).expect("all");
        assert_eq!(Fillers::of(all).ok(), Some(Fillers::All));
        let k = Columns::parse(&["k".into()], &[]).expect("k");
        let e = Fillers::of(k).expect_err("k").to_string();
        assert!(
            e.contains("--encrypt-columns k names sysbench's columns"),
            "{e}"
        );
    }
}
