//! The command line of `oltp`: clap types only. [`crate::commands`] does what
//! each subcommand says; `main.rs` only parses, calls
//! [`crate::commands::execute`], and prints errors.
//!
//! The doc comments of the flags are their `--help` texts, read by people on a
//! terminal: placeholders such as <base-dir> stay as they are.
#![allow(rustdoc::invalid_html_tags)]

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use encbench_common::password::ServerUrl;

use crate::at_rest::AtRest;
pub use crate::driver::DbDriver;
use crate::sb_rand::RandType;
use crate::schema;
use crate::schema::ServerFlags;
use crate::server::Profile;
use crate::worker::OnDecryptError;
use crate::workload::{Options, Workload, parse_latency_limit, parse_on_off, parse_tls};

/// A parser of a `u64` option in `lo..=hi`, reading the value as an `i64` first so that a
/// negative one is refused naming the range (`-1 is not in 0..=86400`), as the `u32`
/// options' parsers do, instead of "invalid digit found in string".
fn u64_in(lo: i64, hi: i64) -> clap::builder::RangedI64ValueParser<u64> {
    clap::builder::RangedI64ValueParser::<u64>::new().range(lo..=hi)
}

/// `--rate`: events per second, a finite number, 0 or more (a usage error,
/// exit 2, as clap's ranges).
fn events_per_second(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v == 0.0 || (MIN_RATE..=MAX_RATE).contains(&v) => Ok(v),
        _ => Err(format!(
            "give events per second, 0 (closed loop) or from {MIN_RATE} to {MAX_RATE}"
        )),
    }
}

/// The lowest `--rate` above 0: one event every 1,000 s (a rate lower still
/// would not start an event within any run oltp measures, and its mean
/// interval would overflow a `Duration` at 1e-300).
pub const MIN_RATE: f64 = 0.001;
/// The highest `--rate`: a million events per second, far above what one client
/// machine completes (tens of thousands here). Far above it the schedule's
/// arrivals pile up faster than the workers can even count them: at 1e9 a 1 s
/// run grew to 16.8 GB and ignored `--time`.
pub const MAX_RATE: f64 = 1e6;

/// A seed's parser: an unsigned integer up to `max` (sysbench's
/// `--rand-seed` is unsigned), refused as a usage error (exit 2) that says
/// so, instead of clap's "invalid digit found in string" for `-1`.
fn seed_up_to(max: u64) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync + 'static {
    move |s: &str| match s.parse::<u64>() {
        Ok(v) if v <= max => Ok(v),
        _ => Err(format!(
            "the seed must be 0 or a positive integer (at most {max})"
        )),
    }
}

/// sysbench-compatible OLTP load generator with column encryption.
///
/// Without --mysql-url, oltp starts (and stops) a private MariaDB server from the
/// system's MariaDB binaries, with its data in --base-dir, so prepare, run and
/// cleanup work as separate commands; with --db-driver pgsql and no --pgsql-url,
/// a private PostgreSQL likewise. Units: --time in seconds; QPS/TPS per
/// second; latency (RT) in milliseconds; client CPU in microseconds per query.
#[derive(Debug, Parser)]
#[command(name = "oltp", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The exit codes of `oltp`, as `oltp run --help` lists them.
pub const EXIT_CODES: &str = "Exit codes:
  0  every run completed
  1  the command failed (bad input, server unreachable, checks before the runs)
  2  usage error (unknown flag or value)
  3  a run stopped early (server lost, decryption failure with --on-decrypt-error stop, Ctrl-C) or every event of a run failed to decrypt; its partial report was printed";

/// Subcommands, as sysbench's.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create and load the sbtest tables (one database per encryption choice).
    #[command(allow_negative_numbers = true)]
    Prepare(PrepareArgs),
    /// Run the workload for every --threads x --tls x --encrypt combination and compare.
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Run(Box<RunArgs>),
    /// Drop the tables (and encrypted databases) that prepare created.
    #[command(allow_negative_numbers = true)]
    Cleanup(CleanupArgs),
    /// Keep the private server running between commands (e.g. to run sysbench
    /// against it), or stop it.
    Server(ServerArgs),
    /// Merge the JSON reports of several client machines that ran the same grid
    /// at the same time against one server: counts and rates add up, latency
    /// histograms are merged.
    Merge(MergeArgs),
    /// Reproduce a source report (listed in README.md; its published figures
    /// are data in reproduce/published/ID.json): runs the `encbench-reproduce`
    /// binary next to oltp with the same arguments (`oltp reproduce --help`
    /// shows its flags).
    Reproduce(ReproduceArgs),
}

impl Command {
    /// The server and data flags of `prepare`, `run` and `cleanup`; `None` for the
    /// other commands.
    pub fn data_mut(&mut self) -> Option<&mut DataArgs> {
        match self {
            Command::Prepare(a) => Some(&mut a.data),
            Command::Run(a) => Some(&mut a.data),
            Command::Cleanup(a) => Some(&mut a.data),
            Command::Server(_) | Command::Merge(_) | Command::Reproduce(_) => None,
        }
    }
}

impl Cli {
    /// The usage errors clap's declarations cannot express, as clap errors
    /// (exit 2): a `--db-driver` that contradicts the URL flag given
    /// ([`DataArgs::driver_conflict`]).
    ///
    /// # Errors
    /// The first such error.
    pub fn check_usage(&self) -> Result<(), clap::Error> {
        use clap::CommandFactory as _;
        let data = match &self.command {
            Command::Prepare(a) => &a.data,
            Command::Run(a) => &a.data,
            Command::Cleanup(a) => &a.data,
            Command::Server(_) | Command::Merge(_) | Command::Reproduce(_) => return Ok(()),
        };
        match data.driver_conflict() {
            Some(msg) => Err(Cli::command().error(clap::error::ErrorKind::ArgumentConflict, msg)),
            None => Ok(()),
        }
    }
}

/// `oltp reproduce`: the arguments of `encbench-reproduce`, passed through
/// unread (the reproduction of the reports is a crate of its own that depends
/// on oltp, so oltp runs its binary).
#[derive(Debug, Args)]
#[command(disable_help_flag = true)]
pub struct ReproduceArgs {
    /// The arguments of `encbench-reproduce` (see `encbench-reproduce --help`,
    /// or `oltp reproduce --help`): ID [--quick] [--out DIR] ...
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "ARGS"
    )]
    pub args: Vec<std::ffi::OsString>,
}

/// `oltp merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// JSON reports written by `oltp run --json-out` (two or more).
    #[arg(required = true, num_args = 2.., value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Output on stdout.
    #[arg(long, value_enum, default_value = "text")]
    pub output: Output,
    /// Also write the merged JSON report to FILE (atomically).
    #[arg(long, value_name = "FILE")]
    pub json_out: Option<PathBuf>,
    /// Also write an SVG chart of QPS and RT against threads, one line per mode.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
}

/// `oltp server`.
#[derive(Debug, Args)]
pub struct ServerArgs {
    /// start: start (or find) the private server, print its URL and leave it
    /// running; stop: shut it down.
    #[arg(value_enum)]
    pub action: ServerAction,
    /// encbench's directory (see `oltp run --help`).
    #[arg(long, value_name = "DIR")]
    pub base_dir: Option<PathBuf>,
    /// The private server of this at-rest mode (see `oltp run --help`); stop
    /// also unmounts its data directory's filesystem.
    #[arg(long, value_enum, default_value = "off", value_name = "MODE", num_args = 0..=1,
          default_missing_value = "innodb")]
    pub at_rest: AtRest,
    /// Server settings (see `oltp run --help`).
    #[arg(long, value_enum, default_value = "default")]
    pub profile: Profile,
    /// IOPS cap of the private MariaDB (see `oltp run --help`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub iops_limit: Option<u32>,
    /// Which private server: mysql (MariaDB, <base-dir>/mariadb/) or pgsql
    /// (PostgreSQL, <base-dir>/postgresql/).
    #[arg(long, value_enum, default_value = "mysql")]
    pub db_driver: DbDriver,
}

/// What `oltp server` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ServerAction {
    /// Start or attach, print the URL, leave it running.
    Start,
    /// Shut it down.
    Stop,
}

/// Where the data lives and how it is encrypted: shared by every subcommand.
#[derive(Debug, Args, Clone)]
pub struct DataArgs {
    /// Which server: mysql (MariaDB or MySQL; --mysql-url, --mysql-db) or pgsql
    /// (PostgreSQL; --pgsql-url, --pgsql-db), as sysbench's --db-driver.
    /// Default: pgsql with --pgsql-url, else mysql. Without a URL, the private
    /// server of that kind in --base-dir.
    #[arg(
        long,
        value_enum,
        default_value = "mysql",
        default_value_if("pgsql_url", clap::builder::ArgPredicate::IsPresent, "pgsql"),
        hide_default_value = true
    )]
    pub db_driver: DbDriver,
    /// Server URL, mysql://USER@HOST:PORT (TCP is always used), the password from
    /// --password-file or $MYSQL_PWD (mysql://USER:PASSWORD@... works too, but any
    /// local user can read a command line). An @ / ? # in the password is
    /// percent-encoded (%40 %2F %3F %23). Default: the private MariaDB server in --base-dir.
    #[arg(long, value_name = "URL", conflicts_with = "pgsql_url")]
    pub mysql_url: Option<ServerUrl>,
    /// PostgreSQL server URL (selects --db-driver pgsql), postgres://USER@HOST:PORT/DB (DB: the
    /// database administrative statements connect to, e.g. postgres), the password
    /// from --password-file or $PGPASSWORD, or in the URL as with --mysql-url.
    /// Default: the private PostgreSQL in --base-dir.
    #[arg(long, value_name = "URL")]
    pub pgsql_url: Option<ServerUrl>,
    /// The password of --mysql-url / --pgsql-url, alone on one line of FILE (mode
    /// 0600 or 0400, yours). Beats $MYSQL_PWD / $PGPASSWORD; a URL holding a
    /// password too is refused. `oltp server start` names its private server's file.
    #[arg(long, value_name = "FILE")]
    pub password_file: Option<PathBuf>,
    /// encbench's directory: private servers (mariadb/, postgresql/, one per --at-rest mode) and key files (keys/).
    /// Default: $ENCBENCH_HOME, else $XDG_DATA_HOME/encbench, else /var/tmp/encbench as root
    /// (the servers then run as mysql/postgres, which cannot enter /root), else
    /// ~/.local/share/encbench.
    #[arg(long, value_name = "DIR")]
    pub base_dir: Option<PathBuf>,
    /// Database for plaintext tables; encrypted tables go to DB_<algorithm>.
    /// Default: sbtest.
    #[arg(long, value_name = "DB")]
    pub mysql_db: Option<String>,
    /// With --db-driver pgsql: as --mysql-db (each DB_<algorithm> is a
    /// database of its own). Default: sbtest.
    #[arg(long, value_name = "DB")]
    pub pgsql_db: Option<String>,
    /// sysbench workloads: number of tables (sbtest1..sbtestN).
    #[arg(long, default_value_t = DEFAULT_TABLES, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub tables: u32,
    /// sysbench workloads: rows per table.
    #[arg(long, default_value_t = DEFAULT_TABLE_SIZE, value_parser = clap::value_parser!(u32).range(1..=1_000_000_000))]
    pub table_size: u32,
    /// Key file for column encryption: lines ID;HEX (MariaDB file_key_management
    /// format); the highest id is active. Default: <base-dir>/keys/<algorithm>.keys,
    /// created by prepare.
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<PathBuf>,
    /// Columns that --encrypt encrypts, comma separated: k, c, pad, or all (k, c
    /// and pad). id always stays plaintext. With k encrypted, SUM(k) and
    /// k=k+1 are done in the client (decrypt, compute, re-encrypt), as a proxy
    /// would. Tables of each layout live in their own database
    /// (DB_<algorithm>_<layout>, e.g. sbtest_aes_256_gcm_kcp).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "c,pad",
        value_name = "LIST"
    )]
    pub encrypt_columns: Vec<String>,
    /// Encrypted columns stored deterministically (equal plaintexts give equal
    /// ciphertexts, so the server can match them with = and IN): comma
    /// separated k, c, pad, all, or none. Needs an algorithm with a
    /// deterministic form (aes-256-siv, aes-256-cbc-hmac-sha256). Leaks which
    /// rows hold equal values. select_random_points on an encrypted k needs it.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "none",
        value_name = "LIST"
    )]
    pub deterministic: Vec<String>,
    /// Encryption at rest of the private server's data, comma separated (a
    /// list: prepare and cleanup do each mode in turn; run interleaves the
    /// modes round by round, --repeat rounds, one private server each, and
    /// compares every mode with its control and with off). --at-rest alone:
    /// innodb. off; innodb: MariaDB's InnoDB table and redo-log encryption
    /// (file_key_management, key generated at first start; data in
    /// <base-dir>/at-rest/; with --mysql-url: check that the tables are
    /// encrypted; runs check every table's INNODB_TABLESPACES_ENCRYPTION entry
    /// first). Filesystem modes, for MariaDB and PostgreSQL, each with its own
    /// server in <base-dir>/at-rest-MODE/ (prepare its tables there), mounted
    /// at start and unmounted at stop, as root: gocryptfs (a gocryptfs FUSE
    /// mount, AES-GCM-256 in Go userspace) and its control fuse-passthrough
    /// (bindfs, the same FUSE path without encryption); fscrypt (ext4 on a loop
    /// file, data under an fscrypt AES-256-XTS policy, kernel crypto) and its
    /// control ext4-loop (the same filesystem, no policy); luks and its control
    /// loop need device-mapper (refused where it is missing). Prepare searches
    /// the host's disk for a known value of the tables: absent for an
    /// encrypting mode, found for a control, or prepare fails.
    #[arg(long, value_enum, default_value = "off", value_name = "MODE", num_args = 0..=1,
          default_missing_value = "innodb", value_delimiter = ',')]
    pub at_rest: Vec<AtRest>,
    /// CA certificate (PEM) that --tls verifies the server against (only with
    /// a TLS --tls). Default:
    /// the private server's own CA (also when --mysql-url / --pgsql-url is a
    /// private server's URL of this --base-dir); for other servers, the
    /// built-in web PKI roots.
    #[arg(long, value_name = "FILE")]
    pub tls_ca: Option<PathBuf>,
    /// Private server settings: default (1 GiB buffer pool, no binary log),
    /// cached (4 GiB buffer pool, binary log, sync_binlog=1,
    /// innodb_flush_log_at_trx_commit=1), io-bound (128 MiB buffer pool, same
    /// durability; make the data several times larger). A running server with
    /// other settings is restarted (refused while another oltp command uses
    /// it). Refused with --mysql-url.
    #[arg(long, value_enum, default_value = "default")]
    pub profile: Profile,
    /// Caps the private MariaDB at N reads per second and N writes per second
    /// (each) on the block device holding its data directory, like a cloud
    /// volume's provisioned IOPS: a cgroup of its own (cgroup v1 blkio
    /// throttle, or cgroup v2 io.max), made at start and removed at stop;
    /// InnoDB then runs with O_DIRECT data files and an unbuffered redo log.
    /// v1 does not cap buffered writes (the binary log, the filesystem
    /// journal). Needs root and the blkio or io controller. Recorded in every
    /// run's result (iops_cap). A running server with another cap is
    /// restarted. Refused with --mysql-url, --db-driver pgsql and filesystem
    /// --at-rest modes.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub iops_limit: Option<u32>,
    /// The flags that chose the server as typed, kept by
    /// [`crate::config::resolve_password`] before it puts the password into
    /// the URL and spends `--password-file` (`None` before: see
    /// [`crate::config::server_flags`]).
    #[arg(skip)]
    pub server_flags: Option<ServerFlags>,
}

/// `--tables`' default (sysbench's).
pub const DEFAULT_TABLES: u32 = 1;
/// `--table-size`'s default (sysbench's).
pub const DEFAULT_TABLE_SIZE: u32 = 10_000;

impl DataArgs {
    /// The sysbench-only flags among these (`--tables`, `--table-size`) set
    /// to other than their defaults: a pgbench workload sizes its tables with
    /// `--scale` and refuses them.
    pub fn sysbench_flags_changed(&self) -> Vec<&'static str> {
        [
            (self.tables != DEFAULT_TABLES, "--tables"),
            (self.table_size != DEFAULT_TABLE_SIZE, "--table-size"),
        ]
        .into_iter()
        .filter_map(|(changed, flag)| changed.then_some(flag))
        .collect()
    }

    /// The `--at-rest` modes, in order (`off` when none). Each is listed once:
    /// [`crate::config::check_driver_flags`] refuses a repeat before this runs.
    pub fn at_rest_modes(&self) -> Vec<AtRest> {
        if self.at_rest.is_empty() {
            vec![AtRest::Off]
        } else {
            self.at_rest.clone()
        }
    }

    /// The first `--at-rest` mode: the only one once a command handles one mode
    /// at a time ([`crate::commands`] runs a list mode by mode).
    pub fn at_rest_mode(&self) -> AtRest {
        self.at_rest_modes()[0]
    }

    /// These arguments for `mode` alone.
    pub fn with_at_rest(&self, mode: AtRest) -> DataArgs {
        DataArgs {
            at_rest: vec![mode],
            ..self.clone()
        }
    }

    /// The URL given for the driver (`--mysql-url` or `--pgsql-url`); `None`:
    /// the private server.
    pub fn url(&self) -> Option<&str> {
        match self.db_driver {
            DbDriver::Mysql => self.mysql_url.as_deref(),
            DbDriver::Pgsql => self.pgsql_url.as_deref(),
        }
    }

    /// The URL flag given for the other driver than `--db-driver` (which a
    /// `--pgsql-url` alone sets to pgsql, so only an explicit `--db-driver`
    /// contradicts one): a one-line error naming both and the fix.
    pub fn driver_conflict(&self) -> Option<&'static str> {
        match self.db_driver {
            DbDriver::Mysql if self.pgsql_url.is_some() => Some(
                "--pgsql-url is for --db-driver pgsql, not --db-driver mysql: drop --db-driver mysql (a --pgsql-url alone selects pgsql), or give a MySQL server as --mysql-url",
            ),
            DbDriver::Pgsql if self.mysql_url.is_some() => Some(
                "--mysql-url is for --db-driver mysql: with --db-driver pgsql give --pgsql-url postgres://USER@HOST:PORT/DB, the password in --password-file F or $PGPASSWORD",
            ),
            _ => None,
        }
    }

    /// The base database name (`--mysql-db` or `--pgsql-db`, default `sbtest`).
    pub fn db_name(&self) -> &str {
        match self.db_driver {
            DbDriver::Mysql => self.mysql_db.as_deref(),
            DbDriver::Pgsql => self.pgsql_db.as_deref(),
        }
        .unwrap_or("sbtest")
    }
}

/// `oltp prepare`.
#[derive(Debug, Args, Clone)]
pub struct PrepareArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub data: DataArgs,
    /// Encryption choices to prepare tables for, comma separated: none, or
    /// BACKEND:ALGORITHM (e.g. openssl:aes-256-gcm). Choices with the same
    /// algorithm share one database.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "none",
        value_name = "LIST"
    )]
    pub encrypt: Vec<String>,
    /// Loader connections; table t is loaded by connection t mod threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: u32,
    /// Seed of the row generator (every database gets the same rows).
    #[arg(long, default_value_t = schema::DEFAULT_SEED, value_parser = seed_up_to(u64::MAX))]
    pub seed: u64,
    /// id as AUTO_INCREMENT (sysbench's --auto-inc); off: plain INTEGER.
    #[arg(long, default_value = "on", value_name = "on|off", num_args = 0..=1,
          default_missing_value = "on", value_parser = parse_on_off)]
    pub auto_inc: bool,
    /// A secondary index `KEY xid (id)` in place of the PRIMARY KEY (sysbench's --secondary).
    #[arg(long, default_value = "off", value_name = "on|off", num_args = 0..=1,
          default_missing_value = "on", value_parser = parse_on_off)]
    pub secondary: bool,
    /// Create the index k_N on k after loading (sysbench's --create-secondary).
    #[arg(long, default_value = "on", value_name = "on|off", num_args = 0..=1,
          default_missing_value = "on", value_parser = parse_on_off)]
    pub create_secondary: bool,
    /// Which tables: sysbench's sbtest tables for an oltp_* workload or
    /// select_random_points (the default), pgbench's (pgbench -i) for a
    /// pgbench_* workload.
    #[arg(long, value_enum, default_value = "oltp_read_only")]
    pub workload: Workload,
    /// pgbench workloads: the scaling factor (pgbench -i -s): 1 branch, 10
    /// tellers and 100,000 accounts per unit. Default 1.
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=i64::from(schema::pgbench::MAX_SCALE)))]
    pub scale: Option<u32>,
    /// pgbench workloads: fillfactor of pgbench_branches, _tellers and
    /// _accounts in percent (pgbench -i -F), 10 to 100. Default 100.
    #[arg(long, value_name = "PERCENT",
          value_parser = clap::value_parser!(u32).range(10..=100))]
    pub fillfactor: Option<u32>,
    /// TLS on every connection to the server: off, on (MySQL's
    /// VERIFY_IDENTITY; with --db-driver pgsql, libpq's sslmode=verify-full),
    /// verify-ca or required, as `oltp run --help` describes them; the server
    /// is verified against --tls-ca. A server that refuses plain TCP
    /// (require_secure_transport=ON, a hostssl-only pg_hba.conf) needs it.
    #[arg(long, default_value = "off", value_name = "MODE", value_parser = parse_tls)]
    // The full path keeps clap from reading the Option as "flag optional":
    // the value itself is off (None) or a TLS level.
    pub tls: std::option::Option<crate::driver::TlsMode>,
}

/// Output format of `oltp run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// sysbench's report per run, then the comparison tables.
    Text,
    /// One JSON object: the shared header, then `runs`, `summary`, `comparison` (medians),
    /// `comparisons` (paired rounds with interval and verdict) and `noise_floor` (A/A).
    Json,
    /// One CSV row per run (header first).
    Csv,
    /// Markdown: the summary (medians with min-max) and comparison tables.
    Markdown,
}

/// `oltp run`.
#[derive(Debug, Args, Clone)]
pub struct RunArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub data: DataArgs,
    /// Encryption choices, comma separated: none, or BACKEND:ALGORITHM.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "none",
        value_name = "LIST"
    )]
    pub encrypt: Vec<String>,
    /// TLS between client and server, comma separated: off, on, or off,on (runs
    /// both). On is MySQL's VERIFY_IDENTITY: the certificate must chain to the
    /// server's CA (see --tls-ca) and name the URL's host; verify-ca checks
    /// the chain only, required encrypts without verifying the certificate (for
    /// a server whose certificate cannot be verified); one TLS level per grid.
    /// With --db-driver pgsql, on is libpq's sslmode=verify-full. Every TLS
    /// connection checks that the server reports it encrypted (MySQL: a
    /// non-empty Ssl_cipher; PostgreSQL: pg_stat_ssl.ssl); the level is
    /// recorded in the result (`tls.mode`). The checks before the runs
    /// connect with the list's TLS level when it has one (plain TCP when the
    /// list is off alone), so a server that refuses plain TCP
    /// (require_secure_transport=ON, a hostssl-only pg_hba.conf) works with
    /// --tls on, and refuses a list holding off, naming --tls.
    #[arg(long, value_delimiter = ',', default_value = "off", value_name = "LIST",
          value_parser = parse_tls)]
    pub tls: Vec<Option<crate::driver::TlsMode>>,
    /// Runs of every combination; at each thread count, round r runs the
    /// (TLS x encryption) combinations in an order rotated by r (A B C, B C A,
    /// ...), and the summary gives the median with min-max. The comparison
    /// with the baseline pairs round r of a mode with round r of the baseline:
    /// the median change with its interval needs 2 rounds or more (5 gives
    /// min..max at 93.75% confidence, 6 or more at least 95%).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
    /// Runs the baseline (--encrypt none, --tls off) twice in every round, at
    /// the start and in the middle of the rotation, and reports the A/A
    /// difference with its interval as the noise floor; a difference whose
    /// interval overlaps it is "within noise floor". Needs none in --encrypt
    /// and off in --tls.
    #[arg(long)]
    pub control: bool,
    /// Worker threads (one connection each), comma separated list, e.g. 1,8.
    #[arg(long, value_delimiter = ',', default_value = "1", value_name = "LIST",
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub threads: Vec<u32>,
    /// sysbench workload, or one of pgbench's built-in scripts (pgbench_*).
    #[arg(long, value_enum, default_value = "oltp_read_only")]
    pub workload: Workload,
    /// pgbench workloads: the scaling factor the tables must have (pgbench
    /// reads it as count(*) of pgbench_branches; a different one is refused).
    /// Default: the tables' own.
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=i64::from(schema::pgbench::MAX_SCALE)))]
    pub scale: Option<u32>,
    /// Measured duration of each run in seconds (0: no limit, give --events).
    #[arg(long, default_value_t = 10, value_name = "SECONDS",
          value_parser = u64_in(0, 86_400))]
    pub time: u64,
    /// Events (transactions) per run, all threads together (0: no limit).
    /// With --time 0 a pgbench workload's is pgbench's -t x clients, so it
    /// must be a multiple of every --threads count.
    #[arg(long, default_value_t = 0, value_parser = u64_in(0, i64::MAX))]
    pub events: u64,
    /// Open loop: events per second for all threads together, arriving at
    /// exponential intervals (each thread takes 1/threads of them); an event's
    /// latency starts at its arrival, so queueing counts. 0: closed loop.
    #[arg(long, default_value_t = 0.0, value_name = "PER_SECOND", value_parser = events_per_second)]
    pub rate: f64,
    /// pgbench workloads: pgbench's -L, in milliseconds (above 0; kept in
    /// whole microseconds as pgbench keeps it, so 0.001 or more). Transactions
    /// lasting longer are counted late ("number of transactions above the
    /// LIMIT ms latency limit"); with --rate, an arrival already more than
    /// LIMIT behind its schedule when its worker would start it is skipped,
    /// never sent, and counted ("number of transactions skipped"), as
    /// pgbench 15 does. Skipped ones count in --events but not in the
    /// transactions processed, TPS or latency.
    #[arg(long, value_name = "MS", value_parser = parse_latency_limit)]
    pub latency_limit: Option<std::time::Duration>,
    /// Seconds of unmeasured load before each run's measured window.
    #[arg(long, default_value_t = 0, value_name = "SECONDS",
          value_parser = u64_in(0, 86_400))]
    pub warmup: u64,
    /// Print a line like sysbench's every N seconds (tps, qps, r/w/o per second,
    /// p95 latency in ms, errors and reconnects per second); pgbench workloads
    /// print pgbench 15's -P line instead (progress: T s, tps, lat and stddev
    /// in ms, failed; lag in ms with --rate); 0: none.
    #[arg(long, default_value_t = 0, value_name = "SECONDS",
          value_parser = u64_in(0, 86_400))]
    pub report_interval: u64,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub options: Options,
    /// Id distribution (sysbench 1.0 default: special).
    #[arg(long, value_enum, default_value = "special")]
    pub rand_type: RandType,
    /// Seed of the random numbers (worker i uses seed + i, so a 1-thread run
    /// repeats exactly); 0: from the operating system.
    #[arg(long, default_value_t = 0, value_parser = seed_up_to(i64::MAX as u64))]
    pub rand_seed: u64,
    /// Output on stdout.
    #[arg(long, value_enum, default_value = "text")]
    pub output: Output,
    /// Also write the JSON report to FILE (written whole at the end; `complete`
    /// is false in it when a run stopped early).
    #[arg(long, value_name = "FILE")]
    pub json_out: Option<PathBuf>,
    /// Also write an SVG chart of QPS and RT (medians) against threads, one
    /// line per mode, at the end (atomically).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// A stored value that fails authentication (another row's value, a
    /// changed byte, a wrong key): stop ends the run at the first one
    /// (`complete: false`, exit 3); count counts it in `decrypt_errors`, rolls
    /// the event back and restarts it, and the run goes on.
    #[arg(long, value_enum, default_value = "stop")]
    pub on_decrypt_error: OnDecryptError,
    /// Never show the progress bar (it only shows on a terminal anyway).
    #[arg(long)]
    pub no_progress: bool,
    /// The database server's process on this machine (mariadbd, mysqld,
    /// postgres, postmaster), whose CPU time (with its child processes) is
    /// read from /proc at both ends of each measured window: server CPU per
    /// query beside the client's. Default: the private server's pid; with
    /// --mysql-url and no --server-pid, server CPU is not measured.
    #[arg(long, value_name = "PID")]
    pub server_pid: Option<u32>,
    /// Start the first run's warm-up (its measured window when --warmup 0)
    /// at TIME, RFC 3339, e.g. 2026-12-01T10:00:00Z, after every connection
    /// is open and prepared: several clients (one oltp run each, same grid,
    /// --time and --warmup) then measure the same window, and `oltp merge`
    /// checks that they did. Later runs of the grid stay aligned because
    /// every client runs the same sequence. Clocks must agree (NTP).
    #[arg(long, value_name = "TIME")]
    pub start_at: Option<String>,
}

/// `oltp cleanup`.
#[derive(Debug, Args, Clone)]
pub struct CleanupArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub data: DataArgs,
    /// Encryption choices to drop: none, BACKEND:ALGORITHM, or all (default).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "all",
        value_name = "LIST"
    )]
    pub encrypt: Vec<String>,
    /// TLS on every connection to the server: off, on (MySQL's
    /// VERIFY_IDENTITY; with --db-driver pgsql, libpq's sslmode=verify-full),
    /// verify-ca or required, as `oltp run --help` describes them; the server
    /// is verified against --tls-ca. A server that refuses plain TCP
    /// (require_secure_transport=ON, a hostssl-only pg_hba.conf) needs it.
    #[arg(long, default_value = "off", value_name = "MODE", value_parser = parse_tls)]
    // The full path keeps clap from reading the Option as "flag optional":
    // the value itself is off (None) or a TLS level.
    pub tls: std::option::Option<crate::driver::TlsMode>,
}

/// The command whose `--help` covers the arguments `args` (program name first):
/// `oltp SUBCOMMAND` when the first argument names a subcommand, else `oltp`.
pub fn help_command(args: &[String]) -> String {
    use clap::CommandFactory as _;
    let cmd = Cli::command();
    match args.get(1).and_then(|a| cmd.find_subcommand(a)) {
        Some(sub) => format!("oltp {}", sub.get_name()),
        None => "oltp".to_string(),
    }
}
