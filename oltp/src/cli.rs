//! The command line of `oltp` (clap derive) and what each subcommand does.
//! `main.rs` only parses, calls [`execute`], and prints errors.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};
use encbench_crypto::Algorithm;
use indicatif::{ProgressBar, ProgressStyle};

use crate::codec::{Codec, Columns, Encrypt, create_key_file, default_key_file};
use crate::rand::RandType;
use crate::report::{Report, comparison_text, summary_text};
use crate::run::{RunOptions, active_key_id, load_codec, run_grid};
use crate::schema::{self, DataSet, PrepareOptions};
use crate::security::{Profile, server_base, server_config, tls_files};
use crate::server::{PrivateServer, default_base_dir};
use crate::workload::{Options, Workload, parse_on_off};

/// sysbench-compatible OLTP load generator with column encryption.
///
/// Without --mysql-url, oltp starts (and stops) a private MariaDB server from the
/// system's MariaDB binaries, with its data in --base-dir, so prepare, run and
/// cleanup work as separate commands. Units: --time in seconds; QPS/TPS per
/// second; latency (RT) in milliseconds; client CPU in microseconds per query.
#[derive(Debug, Parser)]
#[command(name = "oltp", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands, as sysbench's.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create and load the sbtest tables (one database per encryption choice).
    Prepare(PrepareArgs),
    /// Run the workload for every --threads x --tls x --encrypt combination and compare.
    Run(RunArgs),
    /// Drop the tables (and encrypted databases) that prepare created.
    Cleanup(CleanupArgs),
    /// Keep the private server running between commands (e.g. to run sysbench
    /// against it), or stop it.
    Server(ServerArgs),
    /// Merge the JSON reports of several client machines that ran the same grid
    /// at the same time against one server: counts and rates add up, latency
    /// histograms are merged.
    Merge(MergeArgs),
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
    /// The private server that encrypts InnoDB tables and redo log at rest
    /// (its own data directory, <base-dir>/at-rest/).
    #[arg(long)]
    pub at_rest: bool,
    /// Server settings (see `oltp run --help`).
    #[arg(long, value_enum, default_value = "default")]
    pub profile: Profile,
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
    /// Server URL, mysql://USER:PASSWORD@HOST:PORT (TCP is always used). Default:
    /// the private MariaDB server in --base-dir.
    #[arg(long, value_name = "URL")]
    pub mysql_url: Option<String>,
    /// encbench's directory: private server data (mariadb/) and key files (keys/).
    /// Default: $ENCBENCH_HOME, else $XDG_DATA_HOME/encbench, else ~/.local/share/encbench.
    #[arg(long, value_name = "DIR")]
    pub base_dir: Option<PathBuf>,
    /// Database for plaintext tables; encrypted tables go to DB_<algorithm>.
    #[arg(long, default_value = "sbtest", value_name = "DB")]
    pub mysql_db: String,
    /// Number of tables (sbtest1..sbtestN).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub tables: u32,
    /// Rows per table.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=1_000_000_000))]
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
    /// Encryption at rest: use the private server that runs InnoDB table and
    /// redo-log encryption (file_key_management, key generated at its first
    /// start; data in <base-dir>/at-rest/). With --mysql-url: check that the
    /// tables are encrypted at rest. Runs check every table's
    /// INNODB_TABLESPACES_ENCRYPTION entry first.
    #[arg(long)]
    pub at_rest: bool,
    /// CA certificate (PEM) that --tls verifies the server against. Default:
    /// the private server's own CA (also when --mysql-url is a private server's
    /// URL of this --base-dir); for other --mysql-url servers, the built-in web
    /// PKI roots.
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
}

/// `oltp prepare`.
#[derive(Debug, Args)]
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
    #[arg(long, default_value_t = schema::DEFAULT_SEED)]
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
}

/// Output format of `oltp run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// sysbench's report per run, then the comparison tables.
    Text,
    /// One JSON object with `runs`, `summary` and `comparison` arrays.
    Json,
    /// One CSV row per run (header first).
    Csv,
    /// Markdown: the summary (medians with min-max) and comparison tables.
    Markdown,
}

/// `oltp run`.
#[derive(Debug, Args)]
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
    /// both). On: TCP with TLS verified against the server's CA (see --tls-ca);
    /// every connection checks that Ssl_cipher is non-empty.
    #[arg(long, value_delimiter = ',', default_value = "off", value_name = "LIST",
          value_parser = parse_on_off)]
    pub tls: Vec<bool>,
    /// Runs of every combination; at each thread count, round r runs the
    /// (TLS x encryption) combinations in an order rotated by r (A B C, B C A,
    /// ...), and the summary gives the median with min-max.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
    /// Worker threads (one connection each), comma separated list, e.g. 1,8.
    #[arg(long, value_delimiter = ',', default_value = "1", value_name = "LIST",
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub threads: Vec<u32>,
    /// sysbench workload.
    #[arg(long, value_enum, default_value = "oltp_read_only")]
    pub workload: Workload,
    /// Measured duration of each run in seconds (0: no limit, give --events).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(0..=86_400))]
    pub time: u64,
    /// Events (transactions) per run, all threads together (0: no limit).
    #[arg(long, default_value_t = 0)]
    pub events: u64,
    /// Open loop: events per second for all threads together, arriving at
    /// exponential intervals (each thread takes 1/threads of them); an event's
    /// latency starts at its arrival, so queueing counts. 0: closed loop.
    #[arg(long, default_value_t = 0.0)]
    pub rate: f64,
    /// Seconds of unmeasured load before each run's measured window.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=86_400))]
    pub warmup: u64,
    /// Print a line like sysbench's every N seconds (tps, qps, r/w/o per second,
    /// p95 latency in ms, errors and reconnects per second); 0: none.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=86_400))]
    pub report_interval: u64,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub options: Options,
    /// Id distribution (sysbench 1.0 default: special).
    #[arg(long, value_enum, default_value = "special")]
    pub rand_type: RandType,
    /// Seed of the random numbers (worker i uses seed + i, so a 1-thread run
    /// repeats exactly); 0: from the operating system.
    #[arg(long, default_value_t = 0)]
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
    /// Never show the progress bar (it only shows on a terminal anyway).
    #[arg(long)]
    pub no_progress: bool,
}

/// `oltp cleanup`.
#[derive(Debug, Args)]
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
}

impl DataArgs {
    fn base_dir(&self) -> PathBuf {
        self.base_dir.clone().unwrap_or_else(default_base_dir)
    }

    /// The private server's base directory (`base-dir`, or its `at-rest/`).
    fn server_base(&self) -> PathBuf {
        server_base(&self.base_dir(), self.at_rest)
    }

    fn data_set(&self) -> Result<DataSet> {
        check_db_name(&self.mysql_db)?;
        Ok(DataSet {
            db: self.mysql_db.clone(),
            tables: self.tables,
            table_size: self.table_size,
            columns: Columns::parse(&self.encrypt_columns, &self.deterministic)?,
        })
    }
}

/// Longest `--mysql-db`: 64 (MySQL's identifier limit) minus the longest suffix
/// of an encrypted database, `_aes_256_cbc_hmac_sha256` (24) and a column
/// layout such as `_kdcdpd` (7).
const MAX_DB_NAME: usize = 33;

/// `--mysql-db` goes into SQL as an identifier: letters, digits and `_` only, and
/// not one of the server's own databases.
fn check_db_name(db: &str) -> Result<()> {
    let valid = !db.is_empty()
        && db.len() <= MAX_DB_NAME
        && db.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !valid {
        bail!("--mysql-db {db:?}: use 1 to {MAX_DB_NAME} letters, digits or '_' (default sbtest)");
    }
    if ["mysql", "information_schema", "performance_schema", "sys"]
        .contains(&db.to_ascii_lowercase().as_str())
    {
        bail!(
            "--mysql-db {db}: that is the server's own database; use another name (default sbtest)"
        );
    }
    Ok(())
}

fn parse_encrypts(list: &[String], columns: Columns) -> Result<Vec<Encrypt>> {
    let mut out: Vec<Encrypt> = Vec::new();
    for item in list {
        let e = Encrypt::parse(item.trim())?;
        columns.check(e)?;
        if !out.iter().any(|o| o.name() == e.name()) {
            out.push(e);
        }
    }
    if out.is_empty() {
        bail!("--encrypt is empty: give none or BACKEND:ALGORITHM");
    }
    Ok(out)
}

/// The server to use: `--mysql-url`, or the private server (started here if it
/// was not running, and stopped by [`ServerGuard::finish`] when the last `oltp`
/// command using it ends, unless `oltp server start` keeps it).
///
/// Commands that use the private server register in `<base>/mariadb/users/<pid>`;
/// a server started by a command carries the marker `<base>/mariadb/ephemeral`.
pub struct ServerGuard {
    /// URL of the server.
    pub url: String,
    server: Option<(PrivateServer, PathBuf)>,
}

fn users_dir(base: &Path) -> PathBuf {
    base.join("mariadb").join("users")
}

fn ephemeral_marker(base: &Path) -> PathBuf {
    base.join("mariadb").join("ephemeral")
}

/// Other live processes registered as users of the private server.
fn other_users(base: &Path) -> usize {
    let me = std::process::id().to_string();
    let Ok(entries) = std::fs::read_dir(users_dir(base)) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let alive = Path::new("/proc").join(&name).exists();
            if !alive {
                let _ = std::fs::remove_file(e.path());
            }
            alive && name != me
        })
        .count()
}

impl ServerGuard {
    /// Uses `--mysql-url` or starts (or attaches to) the private server in `base_dir`.
    ///
    /// # Errors
    /// The private server cannot start (e.g. MariaDB is not installed).
    pub async fn open(data: &DataArgs) -> Result<ServerGuard> {
        if let Some(url) = &data.mysql_url {
            return Ok(ServerGuard {
                url: url.clone(),
                server: None,
            });
        }
        let base = data.server_base();
        let me = users_dir(&base).join(std::process::id().to_string());
        std::fs::create_dir_all(users_dir(&base))
            .with_context(|| format!("cannot create {}", users_dir(&base).display()))?;
        std::fs::write(&me, b"").with_context(|| format!("cannot write {}", me.display()))?;
        let cfg = server_config(&data.base_dir(), data.at_rest, data.profile)?;
        // A server that other oltp commands are using is not restarted under
        // them for other settings: refuse instead.
        let recorded: Option<Vec<String>> =
            std::fs::read_to_string(base.join("mariadb").join("args.json"))
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok());
        if other_users(&base) > 0 && recorded.is_some_and(|r| r != cfg.extra_args) {
            let _ = std::fs::remove_file(&me);
            bail!(
                "the private server in {} is in use by another oltp command with other settings (--profile): wait for it to finish, or use another --base-dir",
                base.display()
            );
        }
        let started = tokio::task::spawn_blocking(move || PrivateServer::start(&cfg))
            .await
            .context("server start task panicked")?;
        let server = match started {
            Ok(s) => s,
            Err(e) => {
                let _ = std::fs::remove_file(&me);
                return Err(e.into());
            }
        };
        if server.started_here() {
            std::fs::write(ephemeral_marker(&base), b"")
                .with_context(|| format!("cannot write {}", ephemeral_marker(&base).display()))?;
        }
        Ok(ServerGuard {
            url: server.url(),
            server: Some((server, base)),
        })
    }

    /// Leaves the private server running if another `oltp` command uses it or
    /// `oltp server start` keeps it; stops it otherwise.
    ///
    /// # Errors
    /// The server did not shut down.
    pub async fn finish(self) -> Result<()> {
        let Some((server, base)) = self.server else {
            return Ok(());
        };
        let _ = std::fs::remove_file(users_dir(&base).join(std::process::id().to_string()));
        if other_users(&base) > 0 || !ephemeral_marker(&base).exists() {
            server.detach();
            return Ok(());
        }
        let _ = std::fs::remove_file(ephemeral_marker(&base));
        tokio::task::spawn_blocking(move || server.stop_any())
            .await
            .context("server stop task panicked")??;
        Ok(())
    }
}

/// The error and its causes on one line, without the repetitions that arise when
/// an error's message already quotes its source, or quotes a message that itself
/// repeats its source's prefix (as `mysql_async`'s "Input/output error:
/// Input/output error: ..." does): each cause appears once.
pub fn error_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    dedup_segments(&line.replace('\n', " "))
}

/// `a: b: b: c` as `a: b: c`: drops a `": "`-separated segment equal to the one
/// before it.
fn dedup_segments(line: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for seg in line.split(": ") {
        if out.last() != Some(&seg) {
            out.push(seg);
        }
    }
    out.join(": ")
}

/// clap's error for bad command-line input on one line, without its `error:`
/// prefix: the problem, the possible values where clap lists them, and which
/// `--help` to read (`help`, e.g. `oltp run`). clap's "a similar value exists"
/// tip is left out: the possible values are listed, and the nearest spelling is
/// often not the value meant.
pub fn usage_error_line(e: &clap::Error, help: &str) -> String {
    let text = e.to_string();
    let mut line = String::new();
    for raw in text.lines() {
        let l = raw.trim();
        if l.starts_with("Usage:") || l.starts_with("For more information") {
            break;
        }
        if l.is_empty() || l.starts_with("tip: a similar value exists") {
            continue;
        }
        if line.is_empty() {
            line.push_str(l.strip_prefix("error: ").unwrap_or(l));
        } else if let Some(list) = l.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
            // "[possible values: a, b]", "[subcommands: ...]"
            line.push_str(": ");
            line.push_str(list);
        } else if let Some(tip) = l.strip_prefix("tip: ") {
            line.push_str("; ");
            line.push_str(tip);
        } else {
            line.push_str(if line.ends_with(':') { " " } else { "; " });
            line.push_str(l);
        }
    }
    if line.is_empty() {
        line.push_str("invalid arguments");
    }
    format!("{line}; see {help} --help")
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

/// Runs a parsed command line. Returns `false` when a run stopped early (the
/// report then says so and the process should exit non-zero).
///
/// # Errors
/// Anything that prevents the command from doing its job; messages name the fix.
pub async fn execute(cli: Cli) -> Result<bool> {
    let data = match &cli.command {
        Command::Prepare(a) => &a.data,
        Command::Run(a) => &a.data,
        Command::Cleanup(a) => &a.data,
        Command::Server(a) => return server(a).await.map(|()| true),
        Command::Merge(a) => return merge(a),
    };
    // Validate names before starting anything.
    data.data_set()?;
    if data.mysql_url.is_some() && data.profile != Profile::Default {
        bail!(
            "--profile {} sets up the private server only: with --mysql-url, set the server's variables yourself (or omit --mysql-url)",
            data.profile
                .to_possible_value()
                .map_or(String::new(), |v| v.get_name().to_string())
        );
    }
    match &cli.command {
        Command::Prepare(a) => drop(parse_encrypts(&a.encrypt, data.data_set()?.columns)?),
        Command::Run(a) => {
            let columns = data.data_set()?.columns;
            parse_encrypts(&a.encrypt, columns)?;
            if a.workload == Workload::SelectRandomPoints
                && columns.k == crate::codec::ColumnMode::Randomized
                && a.encrypt
                    .iter()
                    .any(|e| !e.trim().eq_ignore_ascii_case("none"))
            {
                bail!(
                    "select_random_points looks rows up by k with IN (...), which randomized encryption of k cannot serve: add --deterministic k (with an aes-256-siv or aes-256-cbc-hmac-sha256 --encrypt), or leave k out of --encrypt-columns"
                );
            }
            if !(a.rate.is_finite() && a.rate >= 0.0) {
                bail!("--rate {}: give events per second, 0 or more", a.rate);
            }
            if a.time == 0 && a.events == 0 {
                bail!("--time 0 needs --events N (otherwise the run never ends)");
            }
            if let Some(path) = &a.json_out {
                check_writable(path, "--json-out")?;
            }
            if let Some(path) = &a.svg {
                check_writable(path, "--svg")?;
            }
        }
        Command::Cleanup(_) | Command::Server(_) | Command::Merge(_) => {}
    }
    let server = ServerGuard::open(data).await?;
    let outcome = match &cli.command {
        Command::Prepare(a) => prepare(a, &server.url).await.map(|()| true),
        Command::Run(a) => run(a, &server.url).await,
        Command::Cleanup(a) => cleanup(a, &server.url).await.map(|()| true),
        Command::Server(_) | Command::Merge(_) => Ok(true),
    };
    let stopped = server.finish().await;
    let complete = outcome?;
    stopped?;
    Ok(complete)
}

async fn server(a: &ServerArgs) -> Result<()> {
    let cfg = server_config(
        &a.base_dir.clone().unwrap_or_else(default_base_dir),
        a.at_rest,
        a.profile,
    )?;
    let action = a.action;
    let server = tokio::task::spawn_blocking(move || PrivateServer::start(&cfg))
        .await
        .context("server start task panicked")??;
    match action {
        ServerAction::Start => {
            let _ = std::fs::remove_file(ephemeral_marker(server.base_dir()));
            println!("{}", server.url());
            eprintln!(
                "private MariaDB running (pid {}, socket {}, TLS CA {}); stop it with `oltp server stop{}`",
                server.pid(),
                server.socket_path().display(),
                tls_files(server.base_dir()).ca.display(),
                a.base_dir
                    .as_ref()
                    .map(|d| format!(" --base-dir {}", d.display()))
                    .unwrap_or_default()
            );
            server.detach();
        }
        ServerAction::Stop => {
            let _ = std::fs::remove_file(ephemeral_marker(server.base_dir()));
            if !server.started_here() && other_users(server.base_dir()) > 0 {
                eprintln!("note: other oltp commands are using this server; they will fail");
            }
            tokio::task::spawn_blocking(move || server.stop_any())
                .await
                .context("server stop task panicked")??;
            eprintln!("private MariaDB stopped");
        }
    }
    Ok(())
}

async fn prepare(a: &PrepareArgs, url: &str) -> Result<()> {
    let data = a.data.data_set()?;
    let encrypts = parse_encrypts(&a.encrypt, data.columns)?;
    let base = a.data.base_dir();
    // Every key file and cipher first: nothing is loaded unless every choice can be.
    let mut plan: Vec<(Encrypt, String, Codec)> = Vec::new();
    for e in encrypts {
        let db = data.database(e);
        if plan.iter().any(|(_, d, _)| *d == db) {
            continue;
        }
        let codec = match e {
            Encrypt::None => Codec::plaintext(),
            Encrypt::Aead(d) => {
                ensure_key_file(a.data.key_file.as_deref(), &base, d.algorithm)?;
                load_codec(e, data.columns, a.data.key_file.as_ref(), &base)?
            }
        };
        plan.push((e, db, codec));
    }
    schema::check_not_prepared(
        url,
        &data,
        &plan.iter().map(|(e, _, _)| *e).collect::<Vec<_>>(),
    )
    .await?;
    for (e, db, codec) in plan {
        let total = u64::from(data.tables) * u64::from(data.table_size);
        let bar = count_bar(total, &format!("prepare {db}"));
        let progress: Arc<dyn Fn(u64) + Send + Sync> = {
            let bar = bar.clone();
            Arc::new(move |n| bar.inc(n))
        };
        let t0 = Instant::now();
        let opts = PrepareOptions {
            threads: a.threads,
            seed: a.seed,
            create_secondary: a.create_secondary,
            auto_inc: a.auto_inc,
            secondary: a.secondary,
        };
        let load = schema::prepare(
            url,
            &data,
            e,
            codec.clone(),
            active_key_id(&codec),
            &opts,
            progress,
        );
        tokio::select! {
            r = load => r?,
            _ = crate::run::interrupt_signal() => {
                bar.finish_and_clear();
                bail!(
                    "prepare interrupted (Ctrl-C or SIGTERM): {db} is half loaded; run `oltp cleanup --encrypt {}{}{}` before preparing again",
                    e.name(),
                    if e.algorithm().is_some() { data.columns.flags() } else { String::new() },
                    if data.db == "sbtest" { String::new() } else { format!(" --mysql-db {}", data.db) }
                );
            }
        }
        bar.finish_and_clear();
        let secs = t0.elapsed().as_secs_f64();
        println!(
            "prepared {db}: {} tables x {} rows in {:.1} s ({:.0} rows/s){}",
            data.tables,
            data.table_size,
            secs,
            total as f64 / secs.max(1e-9),
            match e {
                Encrypt::None => String::new(),
                Encrypt::Aead(_) => format!(
                    ", {} sealed with {} under key id {}",
                    data.columns.describe(),
                    e.name(),
                    active_key_id(&codec)
                ),
            }
        );
    }
    Ok(())
}

fn ensure_key_file(given: Option<&Path>, base: &Path, algorithm: Algorithm) -> Result<()> {
    match given {
        Some(p) if !p.exists() => bail!(
            "--key-file {} does not exist: create it (lines ID;HEX) or omit --key-file",
            p.display()
        ),
        Some(_) => Ok(()),
        None => {
            let path = default_key_file(base, algorithm);
            if !path.exists() {
                create_key_file(&path, algorithm)?;
                eprintln!(
                    "created key file {} (keep it: the tables cannot be read without it)",
                    path.display()
                );
            }
            Ok(())
        }
    }
}

fn count_bar(total: u64, prefix: &str) -> ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix:>28} [{bar:30}] {pos}/{len} rows  {per_sec}  eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_prefix(prefix.to_string());
    bar
}

async fn run(a: &RunArgs, url: &str) -> Result<bool> {
    let data = a.data.data_set()?;
    let encrypts = parse_encrypts(&a.encrypt, data.columns)?;
    let opts = RunOptions {
        url: url.to_string(),
        data,
        workload: a.workload,
        threads: {
            // A repeated count would pair every ciphertext run with the first plaintext one.
            let mut t = a.threads.clone();
            let mut seen = std::collections::HashSet::new();
            t.retain(|n| seen.insert(*n));
            t
        },
        encrypts,
        time: Duration::from_secs(a.time),
        events: a.events,
        rate: a.rate,
        warmup: Duration::from_secs(a.warmup),
        report_interval: Duration::from_secs(a.report_interval),
        intervals_to_stderr: a.output != Output::Text,
        options: a.options,
        rand_type: a.rand_type,
        rand_seed: a.rand_seed,
        tls: {
            let mut t = a.tls.clone();
            t.dedup();
            t
        },
        tls_ca: match (&a.data.tls_ca, &a.data.mysql_url) {
            (Some(ca), _) => Some(ca.clone()),
            (None, None) => Some(tls_files(&a.data.server_base()).ca),
            // A URL of the private server (e.g. printed by `oltp server start`):
            // its own CA.
            (None, Some(url)) => {
                private_server_of(url, &a.data.base_dir()).map(|sbase| tls_files(&sbase).ca)
            }
        },
        at_rest: a.data.at_rest,
        repeat: a.repeat,
        key_file: a.data.key_file.clone(),
        base_dir: a.data.base_dir(),
        progress: !a.no_progress,
        reconnect_window: Duration::from_secs(5),
    };
    let text = a.output == Output::Text;
    let results = run_grid(&opts, |r| {
        if text {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", r.to_text());
            let _ = out.flush();
        }
    })
    .await?;
    let report = Report::new(results);
    print_report(&report, a.output, false);
    write_svg(a.svg.as_deref(), &report)?;
    if let Some(path) = &a.json_out {
        write_atomically(path, report.to_json()?.as_bytes())?;
        if text {
            println!("JSON report written to {}", path.display());
        }
    }
    if !report.complete {
        let why = report
            .runs
            .iter()
            .find_map(|r| r.error.clone())
            .unwrap_or_default();
        eprintln!("Error: run stopped early: {why}");
    }
    Ok(report.complete)
}

fn merge(a: &MergeArgs) -> Result<bool> {
    if let Some(path) = &a.json_out {
        check_writable(path, "--json-out")?;
    }
    if let Some(path) = &a.svg {
        check_writable(path, "--svg")?;
    }
    let clients = a
        .files
        .iter()
        .map(|f| crate::merge::read_runs(f))
        .collect::<Result<Vec<_>>>()?;
    let report = Report::new(crate::merge::merge(&clients)?);
    print_report(&report, a.output, true);
    if let Some(path) = &a.json_out {
        write_atomically(path, report.to_json()?.as_bytes())?;
    }
    write_svg(a.svg.as_deref(), &report)?;
    Ok(report.complete)
}

fn write_svg(path: Option<&Path>, report: &Report) -> Result<()> {
    if let Some(path) = path {
        let svg =
            crate::report::svg::svg(&report.summary).map_err(|e| anyhow::anyhow!("--svg: {e}"))?;
        write_atomically(path, svg.as_bytes())?;
    }
    Ok(())
}

/// Prints `report` in `output`; in text, each run's sysbench report first when
/// `runs_too` (a live run has printed them already).
fn print_report(report: &Report, output: Output, runs_too: bool) {
    match output {
        Output::Text => {
            if runs_too {
                for r in &report.runs {
                    println!("{}", r.to_text());
                }
            }
            if report.summary.len() > 1 || report.runs.len() > report.summary.len() {
                println!("{}", summary_text(&report.summary));
            }
            if !report.comparison.is_empty() {
                println!("{}", comparison_text(&report.comparison));
            }
        }
        Output::Json => match report.to_json() {
            Ok(j) => println!("{j}"),
            Err(e) => eprintln!("Error: cannot print the JSON report: {e}"),
        },
        Output::Csv => match report.to_csv() {
            Ok(c) => print!("{c}"),
            Err(e) => eprintln!("Error: cannot print the CSV report: {e}"),
        },
        Output::Markdown => println!("{}", report.to_markdown()),
    }
}

/// The private server base directory (plain or at rest) under `base` whose
/// loopback port `url` names, if any.
fn private_server_of(url: &str, base: &Path) -> Option<PathBuf> {
    let opts = mysql_async::Opts::from_url(url).ok()?;
    if !matches!(opts.ip_or_hostname(), "127.0.0.1" | "localhost") {
        return None;
    }
    [false, true]
        .into_iter()
        .map(|at_rest| server_base(base, at_rest))
        .find(|sbase| {
            std::fs::read_to_string(sbase.join("mariadb").join("port"))
                .ok()
                .and_then(|p| p.trim().parse::<u16>().ok())
                == Some(opts.tcp_port())
                && tls_files(sbase).ca.exists()
        })
}

/// Checks before a run that `path` can be written: not a directory, in an
/// existing directory (never created: a mistyped path is refused, not made)
/// where files can be created; so a long benchmark does not end in a file that
/// cannot be saved. Leaves nothing behind.
fn check_writable(path: &Path, flag: &str) -> Result<()> {
    if path.is_dir() {
        bail!("{flag} {} is a directory: give a file name", path.display());
    }
    let dir = output_dir(path, flag)?;
    tempfile::NamedTempFile::new_in(dir).map(drop).map_err(|e| {
        anyhow::anyhow!(
            "{flag} {}: cannot create files in {}: {}: give a writable directory",
            path.display(),
            dir.display(),
            std::io::Error::from(e.kind())
        )
    })
}

/// The directory `path` goes in (`.` for a bare file name), which must exist.
fn output_dir<'a>(path: &'a Path, flag: &str) -> Result<&'a Path> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."));
    if !dir.is_dir() {
        bail!(
            "{flag} {}: directory {} does not exist: create it first, or give another path",
            path.display(),
            dir.display()
        );
    }
    Ok(dir)
}

/// Writes `bytes` to `path` through a temporary file in the same directory and
/// a rename, so a reader never sees a half-written file. The directory must
/// exist; the file gets the usual mode of a new file (0666 minus the umask),
/// not the temporary file's 0600.
///
/// # Errors
/// The directory does not exist, or the file cannot be written.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = output_dir(path, "cannot write")?;
    let fail = || format!("cannot write {}", path.display());
    let mut tmp = tempfile::Builder::new()
        .prefix(".oltp-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .with_context(fail)?;
    tmp.write_all(bytes).with_context(fail)?;
    tmp.persist(path).map_err(|e| e.error).with_context(fail)?;
    Ok(())
}

async fn cleanup(a: &CleanupArgs, url: &str) -> Result<()> {
    let data = a.data.data_set()?;
    let dbs = if a.encrypt.iter().any(|e| e.eq_ignore_ascii_case("all")) {
        schema::cleanup_all(url, &data).await?
    } else {
        schema::cleanup(url, &data, &parse_encrypts(&a.encrypt, data.columns)?).await?
    };
    if dbs.is_empty() {
        println!("nothing to drop: no sbtest database found");
    } else {
        println!("dropped the sbtest tables of {}", dbs.join(", "));
    }
    Ok(())
}
