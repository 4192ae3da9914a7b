//! The plan of report 004: the grids of both profiles (and, in full mode,
//! the grids beyond the report), the data sets, and the seconds each round
//! spends restarting and warming the server.

use crate::plan::{
    DataSetStep, Grid, PLAIN_BYTES_PER_ROW, Plan, SEALED_BYTES_PER_ROW, Servers, comma_separated,
};
use crate::published::{BeyondSpec, ScaleSpec};

use super::{CACHED, IO_BOUND};

/// Bytes per row of the sysbench tables on disk at 004's sizes: 961 MiB of
/// InnoDB files for 10 x 400,000 rows, measured on 2026-12-01 on this
/// machine (docs/measurements.md, "oltp reproduce 004: the data set, the
/// IOPS cap and the quick runs", the table's 10 x 400,000 rows). The 560
/// bytes per row of [`PLAIN_BYTES_PER_ROW`], measured at 25,000 rows per
/// table, over-estimate large tables; they stay the disk check's.
pub const MEASURED_BYTES_PER_ROW: u64 = 252;

/// Bytes per row of the sealed data set (`--encrypt-columns all`), for its
/// warming: [`MEASURED_BYTES_PER_ROW`] scaled by the sealed / plaintext
/// estimate of [`SEALED_BYTES_PER_ROW`] / [`PLAIN_BYTES_PER_ROW`] (not
/// measured at 004's sizes).
pub const SEALED_MEASURED_BYTES_PER_ROW: u64 =
    MEASURED_BYTES_PER_ROW * SEALED_BYTES_PER_ROW / PLAIN_BYTES_PER_ROW;

/// The data set's size on disk, bytes (estimated with [`MEASURED_BYTES_PER_ROW`]).
pub fn data_bytes(spec: &ScaleSpec) -> u64 {
    data_bytes_at(spec, MEASURED_BYTES_PER_ROW)
}

/// The size on disk of a data set of `bytes_per_row`, bytes.
pub fn data_bytes_at(spec: &ScaleSpec, bytes_per_row: u64) -> u64 {
    u64::from(spec.tables) * u64::from(spec.table_size) * bytes_per_row
}

/// What a grid beyond the report adds to its profile's plaintext run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddedEncryption {
    /// Column encryption (`--encrypt BACKEND --encrypt-columns COLUMNS`).
    Columns,
    /// Encryption at rest (`--at-rest MODE`).
    AtRest,
}

impl AddedEncryption {
    /// Both, in the order of the grids.
    pub const ALL: [AddedEncryption; 2] = [AddedEncryption::Columns, AddedEncryption::AtRest];

    /// In words, with the choice of `b`.
    pub fn words(self, b: &BeyondSpec) -> String {
        match self {
            AddedEncryption::Columns => format!(
                "column encryption ({}, --encrypt-columns {})",
                b.backend, b.encrypt_columns
            ),
            AddedEncryption::AtRest => format!("encryption at rest (--at-rest {})", b.at_rest),
        }
    }

    /// Its key in `measurements.beyond`.
    pub fn key(self) -> &'static str {
        match self {
            AddedEncryption::Columns => "column_encryption",
            AddedEncryption::AtRest => "encryption_at_rest",
        }
    }
}

/// The name of the grid of `profile` with `extra`, e.g. `cached, column
/// encryption`.
pub fn grid_name(profile: &str, added: AddedEncryption) -> String {
    match added {
        AddedEncryption::Columns => format!("{profile}, column encryption"),
        AddedEncryption::AtRest => format!("{profile}, encryption at rest"),
    }
}

/// Whether the server of `grid` is warmed before its runs: the cached
/// profile's grids (`--profile cached`).
pub fn warms_buffer_pool(grid: &Grid) -> bool {
    grid.args
        .windows(2)
        .any(|w| w[0] == "--profile" && w[1] == CACHED)
}

/// Seconds to stop the private MariaDB and start it with the other profile,
/// its buffer-pool load at startup awaited: measured on this machine on
/// 2026-12-02, 8-12 s per io-bound round beside its runs (release build,
/// load average 3-8); the quick runs of that day are in docs/measurements.md,
/// "oltp reproduce 004: the data set, the IOPS cap and the quick runs".
pub const SERVER_RESTART_SECS: f64 = 8.0;

/// Device reads per second when nothing caps them, for the cached pool's
/// warming: 3,612 reads/s measured on 2026-12-01 on this machine's disk with
/// `--rand-type uniform` (docs/measurements.md, "oltp reproduce 004: the
/// data set, the IOPS cap and the quick runs", the io-bound uniform row).
pub const UNCAPPED_READS_PER_SEC: f64 = 3_612.0;

/// InnoDB's page size (MariaDB's default `innodb_page_size`), bytes.
pub const PAGE_BYTES: u64 = 16 << 10;

/// Seconds before each round's runs of `profile`: the restart, and for the
/// cached profile the warming of every page of the data set
/// (`bytes_per_row` on disk), one read each, at the cap (or
/// [`UNCAPPED_READS_PER_SEC`]): 61,500 pages at 1,000 reads/s are about
/// 62 s (measured: 64 s per cached round at 1,000).
pub fn round_setup_secs(scale: &ScaleSpec, profile: &str, bytes_per_row: u64) -> f64 {
    if profile != CACHED {
        return SERVER_RESTART_SECS;
    }
    let rate = scale
        .iops_limit
        .as_ref()
        .map_or(UNCAPPED_READS_PER_SEC, |c| f64::from(c.iops));
    SERVER_RESTART_SECS + (data_bytes_at(scale, bytes_per_row) / PAGE_BYTES) as f64 / rate.max(1.0)
}

/// The runs of report 004 at `scale` on the database `db`: both profiles
/// with the scale's IOPS cap, when it has one (as on RDS, where an
/// instance's IOPS hold whatever its buffer pool); with `beyond` (full
/// mode), each profile also with column encryption and with encryption at
/// rest at the scale's first thread count, each a grid and data set of its
/// own (module docs).
pub fn plan(scale: &ScaleSpec, db: &str, beyond: Option<&BeyondSpec>) -> Plan {
    let grid = |name: String, profile: &str, threads: &[u32], added: &[String], per_row| Grid {
        name,
        args: [
            "--workload".into(),
            "oltp_read_write".into(),
            "--threads".into(),
            comma_separated(threads),
        ]
        .into_iter()
        .chain(added.iter().cloned())
        .chain(["--profile".into(), profile.into()])
        .chain(
            scale
                .iops_limit
                .iter()
                .flat_map(|c| ["--iops-limit".to_string(), c.iops.to_string()]),
        )
        .collect(),
        threads: threads.to_vec(),
        runs_per_round: 1,
        // point, simple, sum, order, distinct, index and non-index update, delete, insert.
        statements_per_table: 9,
        round_setup_secs: round_setup_secs(scale, profile, per_row),
    };
    let plain = ["--encrypt".to_string(), "none".into()];
    let mut data_sets = vec![DataSetStep {
        encrypt: "none".into(),
        encrypt_columns: "c,pad".into(),
        bytes_per_row: PLAIN_BYTES_PER_ROW,
        ..DataSetStep::default()
    }];
    let mut grids: Vec<Grid> = [CACHED, IO_BOUND]
        .map(|p| grid(p.into(), p, &scale.threads, &plain, MEASURED_BYTES_PER_ROW))
        .into();
    if let (Some(b), Some(&first)) = (beyond, scale.threads.first()) {
        let columns = [
            "--encrypt".to_string(),
            b.backend.clone(),
            "--encrypt-columns".into(),
            b.encrypt_columns.clone(),
        ];
        let at_rest = [
            plain[0].clone(),
            plain[1].clone(),
            "--at-rest".into(),
            b.at_rest.clone(),
        ];
        data_sets.push(DataSetStep {
            encrypt: b.backend.clone(),
            encrypt_columns: b.encrypt_columns.clone(),
            bytes_per_row: SEALED_BYTES_PER_ROW,
            ..DataSetStep::default()
        });
        data_sets.push(DataSetStep {
            encrypt: "none".into(),
            encrypt_columns: "c,pad".into(),
            bytes_per_row: PLAIN_BYTES_PER_ROW,
            args: vec!["--at-rest".into(), b.at_rest.clone()],
            ..DataSetStep::default()
        });
        for added in AddedEncryption::ALL {
            for p in [CACHED, IO_BOUND] {
                let (args, per_row) = match added {
                    AddedEncryption::Columns => (&columns, SEALED_MEASURED_BYTES_PER_ROW),
                    AddedEncryption::AtRest => (&at_rest, MEASURED_BYTES_PER_ROW),
                };
                grids.push(grid(grid_name(p, added), p, &[first], args, per_row));
            }
        }
    }
    Plan {
        scale: scale.clone(),
        db: db.to_string(),
        data_sets,
        grids,
        servers: Servers::PerCommandInterleaved,
    }
}
