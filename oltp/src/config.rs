//! `oltp run`'s configuration, validated once from the command line
//! ([`crate::commands`]) and read by every later step.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use anyhow::{Result, bail};
use encbench_common::password::{Secret, ServerUrl};

use crate::at_rest::AtRestInfo;
use crate::at_rest::{AtRest, check_available};
use crate::cli::{DataArgs, DbDriver, Output, RunArgs};
use crate::columns::{ColumnMode, Columns, Encrypt};
use crate::driver::{TlsMode, TlsOptions};
use crate::report::window::parse_rfc3339;
use crate::sb_rand::RandType;
use crate::schema::{DataSet, ServerFlags};
use crate::server::postgres::{PgLayout, PgServer};
use crate::server::{Layout, default_base_dir, private_server_of, server_base};
use crate::server_cpu::{NO_SERVER_PID_MESSAGE, ServerCpu, ServerProcess};
use crate::worker::OnDecryptError;
use crate::workload::{Options, Workload};

/// Everything `oltp run` needs, validated.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// `mysql://USER:PASS@HOST:PORT` of the server (its password from the URL, a
    /// `--password-file` or the environment: [`resolve_password`]); `Debug` hides it.
    pub url: ServerUrl,
    /// The data set.
    pub data: DataSet,
    /// The workload.
    pub workload: Workload,
    /// Thread counts to run, in order.
    pub threads: Vec<u32>,
    /// Encryption choices to run at each thread count, in order.
    pub encrypts: Vec<Encrypt>,
    /// Measured duration of each run (zero: no time limit, `events` ends the run).
    pub time: Duration,
    /// Events per run for all threads together (`--events`; 0: no limit).
    pub events: u64,
    /// Open loop: events per second for all threads together (`--rate`; 0:
    /// closed loop, each thread starts its next event when one ends).
    pub rate: f64,
    /// Unmeasured time before each run's measured window (`--warmup`).
    pub warmup: Duration,
    /// Interval between progress lines in sysbench's format (zero: none).
    pub report_interval: Duration,
    /// Print the interval lines on stderr (when stdout carries JSON/CSV).
    pub intervals_to_stderr: bool,
    /// sysbench's workload options (`--point-selects`, `--range-size`, ...).
    pub options: Options,
    /// TLS modes to run (false: plain TCP, true: TLS), in order.
    pub tls: Vec<bool>,
    /// CA certificate (PEM) TLS verifies the server against; `None`: web PKI roots.
    pub tls_ca: Option<PathBuf>,
    /// How TLS runs check the server's certificate (`--tls on|verify-ca|required`).
    pub tls_mode: crate::driver::TlsMode,
    /// The at-rest mode (`innodb`: every table is checked encrypted before the runs).
    pub at_rest: AtRest,
    /// What the runs report about it (`None` for `off`).
    pub at_rest_info: Option<AtRestInfo>,
    /// Runs of every combination (`--repeat`): at each thread count, round r
    /// runs the (TLS x encryption) combinations rotated by r (A B C, B C A, ...).
    pub repeat: u32,
    /// `--control`: the baseline runs twice in every round (A and A'), for
    /// the A/A noise floor.
    pub control: bool,
    /// Id distribution.
    pub rand_type: RandType,
    /// Seed of the workers' random numbers (worker i uses seed + i); 0: from
    /// the operating system (sysbench's `--rand-seed`).
    pub rand_seed: u64,
    /// Key file (`ID;HEX` lines); default: `<base>/keys/<algorithm>.keys`.
    pub key_file: Option<PathBuf>,
    /// encbench's base directory (private server, default key files).
    pub base_dir: PathBuf,
    /// Show a progress bar (only on a terminal).
    pub progress: bool,
    /// How long a worker keeps trying to reconnect to a lost server.
    pub reconnect_window: Duration,
    /// A value that fails authentication stops the run, or is counted and
    /// its event restarted (`--on-decrypt-error`).
    pub on_decrypt_error: OnDecryptError,
    /// Where the server's CPU per query comes from: `--server-pid`, else
    /// (set once the server is known) the private server's process, else
    /// unavailable with the reason.
    pub server_cpu: ServerCpu,
    /// The IOPS cap the kernel holds for the private server (`--iops-limit`, set once the
    /// server is known, read back from its cgroup); `None`: uncapped, or not ours.
    pub iops_cap: Option<crate::server::iops::IopsCap>,
    /// The pids of the other live `oltp` processes using the same private server when the
    /// run started (set once the server is known, [`crate::server::Lease::shared_with`]);
    /// empty: none, or a server given by URL.
    pub shared_with: Vec<u32>,
    /// `--start-at`: when the first run's warm-up starts (UTC).
    pub start_at: Option<SystemTime>,
    /// `--scale` of a pgbench workload (`None`: the tables' own).
    pub scale: Option<u32>,
    /// `--latency-limit` of a pgbench workload (pgbench's `-L`, whole µs):
    /// longer transactions are counted late, and with `--rate` arrivals
    /// already further behind their schedule are skipped; `None`: no limit.
    pub latency_limit: Option<Duration>,
}

/// A pgbench workload run by count (`--time 0 --events N`) is pgbench's `-t`,
/// which counts transactions per client: every `--threads` count must divide
/// `events` (the total of all clients), so that each run's report can say
/// `number of transactions per client: N / threads` as pgbench would.
///
/// # Errors
/// One line naming the count that does not divide `events` and the nearest
/// totals every count divides.
fn check_per_client(events: u64, threads: &[u32]) -> Result<()> {
    let Some(&bad) = threads
        .iter()
        .find(|&&t| t > 0 && events % u64::from(t) != 0)
    else {
        return Ok(());
    };
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let lcm = threads
        .iter()
        .filter(|&&t| t > 0)
        .fold(1u64, |l, &t| l / gcd(l, u64::from(t)) * u64::from(t));
    let below = events / lcm * lcm;
    let fix = if below > 0 {
        format!("--events {below} or {}", below + lcm)
    } else {
        format!("--events {lcm}")
    };
    bail!(
        "--events {events} with --time 0 is pgbench's -t (transactions per client) x --threads, but --threads {bad} does not divide it: use {fix}"
    )
}

/// Checks a workload against the tables flags: a pgbench workload needs
/// PostgreSQL and a pgbench layout of the fillers; `--scale` and
/// `--fillfactor` (prepare's; `None` at run) are pgbench's.
///
/// # Errors
/// One line naming the flag to change.
pub fn check_pgbench_flags(
    workload: Workload,
    scale: Option<u32>,
    fillfactor: Option<u32>,
    a: &DataArgs,
    encrypted: bool,
) -> Result<()> {
    if !workload.is_pgbench() {
        if scale.is_some() {
            bail!(
                "--scale is for pgbench's tables: use a pgbench_* --workload, or --tables and --table-size for {}",
                workload.name()
            );
        }
        if fillfactor.is_some() {
            bail!(
                "--fillfactor is pgbench's -F, for pgbench's tables only: use a pgbench_* --workload, or omit --fillfactor for {}",
                workload.name()
            );
        }
        return Ok(());
    }
    if a.db_driver != DbDriver::Pgsql {
        bail!(
            "{} runs pgbench's tables, which need PostgreSQL (fillfactor, COPY, VACUUM): add --db-driver pgsql",
            workload.name()
        );
    }
    if encrypted {
        crate::schema::pgbench::Fillers::of(Columns::parse(&a.encrypt_columns, &a.deterministic)?)?;
    }
    Ok(())
}

/// Refuses sysbench's flags (`changed`: those set to other than their
/// defaults, e.g. `--tables`, `--range-size`) with a pgbench `workload`,
/// whose scripts do not read them and whose tables `--scale` sizes; a sysbench
/// workload takes them all.
///
/// # Errors
/// One line naming the first such flag and pgbench's equivalent, or that it
/// does not apply.
pub fn check_sysbench_only(workload: Workload, changed: &[&str]) -> Result<()> {
    let Some(flag) = changed.first().filter(|_| workload.is_pgbench()) else {
        return Ok(());
    };
    let fix = match *flag {
        "--tables" | "--table-size" => {
            "pgbench's tables are sized by --scale N (N branches, 10 x N tellers, 100,000 x N accounts)"
        }
        _ => "it does not apply to pgbench's scripts",
    };
    bail!(
        "{flag} is a sysbench option, not read by {}: {fix}; omit {flag}",
        workload.name()
    );
}

/// Longest wait `--start-at` accepts: 24 hours (a later time is a typo, or
/// a job for a scheduler).
pub const MAX_START_AT_WAIT: Duration = Duration::from_secs(24 * 3600);

/// `--start-at TIME` as a time between `now` and [`MAX_START_AT_WAIT`] later.
///
/// # Errors
/// Not RFC 3339, in the past, or too far ahead; the message names the fix.
pub fn parse_start_at(text: &str, now: SystemTime) -> Result<SystemTime> {
    let example = "e.g. --start-at $(date -u -d '+30 sec' +%Y-%m-%dT%H:%M:%SZ)";
    let at = parse_rfc3339(text).map_err(|e| {
        anyhow::anyhow!("--start-at {e}: give a UTC time such as 2026-12-01T10:00:00Z ({example})")
    })?;
    match at.duration_since(now) {
        Err(past) => bail!(
            "--start-at {text} is {:.1} s in the past: give a time a few seconds ahead, the same for every client ({example})",
            past.duration().as_secs_f64()
        ),
        Ok(ahead) if ahead > MAX_START_AT_WAIT => bail!(
            "--start-at {text} is {:.1} h ahead (at most 24 h): give a time a few seconds ahead ({example})",
            ahead.as_secs_f64() / 3600.0
        ),
        Ok(_) => Ok(at),
    }
}

/// encbench's base directory: `--base-dir`, or the default.
pub fn base_dir(a: &DataArgs) -> PathBuf {
    a.base_dir.clone().unwrap_or_else(default_base_dir)
}

/// The private server's base directory (`base-dir`, or its `at-rest/` or
/// `at-rest-MODE/`).
pub fn server_base_dir(a: &DataArgs) -> PathBuf {
    server_base(&base_dir(a), a.at_rest_mode())
}

/// The private server's engine directory (`mariadb/` or `postgresql/` in
/// [`server_base_dir`]), where a filesystem at-rest mode keeps its store.
pub fn engine_dir(a: &DataArgs) -> PathBuf {
    let sbase = server_base_dir(a);
    match a.db_driver {
        DbDriver::Mysql => Layout::new(sbase).dir().to_path_buf(),
        DbDriver::Pgsql => crate::server::postgres::PgLayout::new(sbase)
            .dir()
            .to_path_buf(),
    }
}

/// The URL's scheme (`mysql`, `postgres`, ...), for messages: never the password.
fn scheme(url: &str) -> &str {
    url.split_once("://").map_or("(none)", |(s, _)| s)
}

/// The environment variable of `driver`'s password: `MYSQL_PWD` (the MariaDB
/// and MySQL clients') or `PGPASSWORD` (libpq's).
pub fn password_variable(driver: DbDriver) -> &'static str {
    match driver {
        DbDriver::Mysql => "MYSQL_PWD",
        DbDriver::Pgsql => "PGPASSWORD",
    }
}

/// The URL flag of `driver`: `--mysql-url` or `--pgsql-url`.
fn url_flag(driver: DbDriver) -> &'static str {
    match driver {
        DbDriver::Mysql => "--mysql-url",
        DbDriver::Pgsql => "--pgsql-url",
    }
}

/// The flags of `a` that chose the server, as the user typed them (the URL's
/// password hidden): those [`resolve_password`] kept, else (it has not run)
/// the URL, `--password-file` and `--base-dir` of `a` as they are.
pub fn server_flags(a: &DataArgs) -> ServerFlags {
    a.server_flags.clone().unwrap_or_else(|| {
        ServerFlags::new(
            url_flag(a.db_driver),
            a.url(),
            a.password_file.as_deref(),
            a.base_dir.as_deref(),
        )
    })
}

/// Puts the password of `--password-file` or the environment
/// ([`password_variable`]) into the URL of `a`'s driver, in that order, when the
/// URL has none (`encbench_common::password`); `--password-file` is then spent.
///
/// # Errors
/// One line: a URL with a password and `--password-file` both, `--password-file`
/// without a URL, or a password file that is unreadable, not one line, or not
/// mode 0600/0400 of this user.
pub fn resolve_password(a: &mut DataArgs) -> Result<()> {
    let flag = url_flag(a.db_driver);
    // The flags as typed, for the commands messages suggest, before they change.
    a.server_flags = Some(server_flags(a));
    let secret = Secret::from_env(a.password_file.take(), password_variable(a.db_driver));
    let resolved = secret
        .resolve(a.url(), flag)
        .map_err(anyhow::Error::msg)?
        .map(ServerUrl::from);
    match a.db_driver {
        DbDriver::Mysql => a.mysql_url = resolved,
        DbDriver::Pgsql => a.pgsql_url = resolved,
    }
    Ok(())
}

/// Checks that the flags fit `--db-driver`: no flag of the other driver, a URL
/// of the driver's scheme, (with pgsql) none of what the PostgreSQL side
/// does not have yet (`--profile`), and an `--at-rest` mode this
/// machine and engine can provide ([`check_available`]).
///
/// # Errors
/// One line naming the flag and the one to use.
pub fn check_driver_flags(a: &DataArgs) -> Result<()> {
    let pg = |url: &str| url.starts_with("postgres://") || url.starts_with("postgresql://");
    if let Some(conflict) = a.driver_conflict() {
        bail!("{conflict}");
    }
    match a.db_driver {
        DbDriver::Mysql => {
            if a.pgsql_db.is_some() {
                bail!(
                    "--pgsql-db is for --db-driver pgsql: add --db-driver pgsql, or use --mysql-db"
                );
            }
            if let Some(url) = &a.mysql_url
                && pg(url)
            {
                bail!(
                    "--mysql-url is a {}:// URL, a PostgreSQL server: use --db-driver pgsql --pgsql-url URL",
                    scheme(url)
                );
            }
        }
        DbDriver::Pgsql => {
            if a.mysql_db.is_some() {
                bail!("--mysql-db is for --db-driver mysql: with --db-driver pgsql use --pgsql-db");
            }
            if let Some(url) = &a.pgsql_url
                && !pg(url)
            {
                bail!(
                    "--pgsql-url is a {}:// URL: give postgres://USER@HOST:PORT/DB, the password in --password-file F or $PGPASSWORD (for a MySQL server, --db-driver mysql --mysql-url)",
                    scheme(url)
                );
            }
            if a.profile != crate::server::Profile::Default {
                bail!(
                    "--profile sets MariaDB's buffer pool and durability: the private PostgreSQL has only its default settings yet; omit --profile with --db-driver pgsql"
                );
            }
        }
    }
    check_unique(
        "--at-rest",
        &a.at_rest
            .iter()
            .map(|m| m.name().to_string())
            .collect::<Vec<_>>(),
    )?;
    for mode in a.at_rest_modes() {
        check_available(mode, a.db_driver == DbDriver::Pgsql, a.url().is_some())?;
    }
    Ok(())
}

/// The data set the flags name, validated.
///
/// # Errors
/// A bad `--mysql-db` / `--pgsql-db`, or a column layout that cannot be.
pub fn data_set(a: &DataArgs) -> Result<DataSet> {
    let flag = match a.db_driver {
        DbDriver::Mysql => "--mysql-db",
        DbDriver::Pgsql => "--pgsql-db",
    };
    check_db_name(flag, a.db_name())?;
    Ok(DataSet {
        db: a.db_name().to_string(),
        tables: a.tables,
        table_size: a.table_size,
        columns: Columns::parse(&a.encrypt_columns, &a.deterministic)?,
        at_rest: a.at_rest_mode(),
        server: server_flags(a),
        tls: None,
    })
}

/// Longest `--mysql-db`: 64 (MySQL's identifier limit) minus the longest suffix
/// of an encrypted database, `_aes_256_cbc_hmac_sha256` (24) and a column
/// layout such as `_kdcdpd` (7).
const MAX_DB_NAME: usize = 33;

/// `--mysql-db` / `--pgsql-db` (`flag`) goes into SQL as an identifier:
/// letters, digits and `_` only, and not one of the server's own databases.
/// PostgreSQL folds unquoted names to lower case and oltp quotes them, so
/// upper case would make names sysbench could not reach: lower case only
/// there.
fn check_db_name(flag: &str, db: &str) -> Result<()> {
    // PostgreSQL's names are one byte shorter than MySQL's (63, NAMEDATALEN - 1).
    let max = if flag == "--pgsql-db" {
        MAX_DB_NAME - 1
    } else {
        MAX_DB_NAME
    };
    let valid = !db.is_empty()
        && db.len() <= max
        && db.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !valid {
        bail!("{flag} {db:?}: use 1 to {max} letters, digits or '_' (default sbtest)");
    }
    if flag == "--pgsql-db" && db.bytes().any(|b| b.is_ascii_uppercase()) {
        bail!(
            "{flag} {db:?}: use lower case (PostgreSQL folds unquoted names to lower case, as sysbench sends them)"
        );
    }
    if [
        "mysql",
        "information_schema",
        "performance_schema",
        "sys",
        "postgres",
        "template0",
        "template1",
    ]
    .contains(&db.to_ascii_lowercase().as_str())
    {
        bail!("{flag} {db}: that is the server's own database; use another name (default sbtest)");
    }
    Ok(())
}

/// Refuses a value that a LIST flag (`--threads`, `--encrypt`, `--tls`,
/// `--at-rest`) names twice: each value is one run (or one server) of the
/// grid, so a repeated one would silently become one run, and `--repeat N` is
/// how a grid runs N times. `names` are the values as the user's words spell
/// them, in order.
///
/// # Errors
/// One line naming the flag and the value listed twice, e.g. `--threads lists
/// 1 twice: ...`.
pub fn check_unique(flag: &str, names: &[String]) -> Result<()> {
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            bail!(
                "{flag} lists {n} twice: give each value once (each is one run of the grid; --repeat N runs the grid N times)"
            );
        }
    }
    Ok(())
}

/// `--encrypt`'s list, parsed, each checked against the layout, each named once.
///
/// # Errors
/// An unknown name, a name listed twice ([`check_unique`]), or a layout the
/// algorithm cannot store.
pub fn parse_encrypts(list: &[String], columns: Columns) -> Result<Vec<Encrypt>> {
    let mut out: Vec<Encrypt> = Vec::new();
    for item in list {
        let e = Encrypt::parse(item.trim())?;
        columns.check(e)?;
        out.push(e);
    }
    check_unique(
        "--encrypt",
        &out.iter().map(Encrypt::name).collect::<Vec<_>>(),
    )?;
    if out.is_empty() {
        bail!("--encrypt is empty: give none or BACKEND:ALGORITHM");
    }
    Ok(out)
}

/// The CA certificate (PEM) TLS verifies the server of `a` against: `--tls-ca`,
/// else the private server's own CA (also for a `--mysql-url` / `--pgsql-url`
/// naming a private server of this base directory), else `None` (the web PKI
/// roots).
fn default_tls_ca(a: &DataArgs) -> Option<PathBuf> {
    match (&a.tls_ca, a.url()) {
        (Some(ca), _) => Some(ca.clone()),
        // The private PostgreSQL's own CA, for it or a URL naming it.
        (None, url) if a.db_driver == DbDriver::Pgsql => {
            let base = base_dir(a);
            match url {
                None => Some(PgLayout::new(base).tls_files().ca),
                Some(url) => PgServer::of_url(url, &base).map(|s| s.layout().tls_files().ca),
            }
        }
        (None, None) => Some(Layout::new(server_base_dir(a)).tls_files().ca),
        // A URL of the private server (e.g. printed by `oltp server start`):
        // its own CA.
        (None, Some(url)) => private_server_of(url, &base_dir(a)).map(|l| l.tls_files().ca),
    }
}

/// The TLS of connections to the server of `a` at `mode` (`None`: `--tls off`,
/// plain TCP), verified against `default_tls_ca`.
///
/// # Errors
/// `--tls-ca` with `--tls off`, or a `--tls-ca` file that is unreadable or
/// holds no CA certificate: one line naming the flag and the fix.
pub fn tls_options(a: &DataArgs, mode: Option<TlsMode>) -> Result<Option<TlsOptions>> {
    let Some(mode) = mode else {
        if let Some(ca) = &a.tls_ca {
            bail!(
                "--tls-ca {} applies only with a TLS mode, and --tls is off: drop --tls-ca, or pick --tls on, verify-ca or required",
                ca.display()
            );
        }
        return Ok(None);
    };
    if let Some(ca) = &a.tls_ca {
        // Both drivers' check, before any connection: the MySQL driver would
        // only fail at the handshake, as if the server were at fault.
        crate::driver::pg_tls::roots_of(ca).map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    Ok(Some(TlsOptions {
        ca: default_tls_ca(a),
        mode,
    }))
}

impl RunConfig {
    /// Validates `oltp run`'s flags into a configuration of the first
    /// `--at-rest` mode (see [`crate::cli::DataArgs::with_at_rest`] for the
    /// others); `url` is filled in once the server is known ([`RunConfig::url`]
    /// is empty until then).
    ///
    /// # Errors
    /// Any flag that cannot work, with the fix: nothing has started yet.
    pub fn from_args(a: &RunArgs) -> Result<RunConfig> {
        let mut data = data_set(&a.data)?;
        let encrypts = parse_encrypts(&a.encrypt, data.columns)?;
        check_unique(
            "--threads",
            &a.threads.iter().map(u32::to_string).collect::<Vec<_>>(),
        )?;
        check_unique(
            "--tls",
            &a.tls
                .iter()
                .map(|m| m.map_or("off", crate::driver::TlsMode::name).to_string())
                .collect::<Vec<_>>(),
        )?;
        if a.workload == Workload::SelectRandomPoints
            && data.columns.k == ColumnMode::Randomized
            && encrypts.iter().any(|e| e.algorithm().is_some())
        {
            bail!(
                "select_random_points looks rows up by k with IN (...), which randomized encryption of k cannot serve: add --deterministic k (with an aes-256-siv or aes-256-cbc-hmac-sha256 --encrypt), or leave k out of --encrypt-columns"
            );
        }
        let mut modes: Vec<crate::driver::TlsMode> = a.tls.iter().flatten().copied().collect();
        modes.dedup();
        if modes.len() > 1 {
            bail!(
                "--tls {}: one TLS level per grid (the runs compare TLS against plain TCP): choose one of them, e.g. --tls off,{}",
                a.tls
                    .iter()
                    .map(|m| m.map_or("off", crate::driver::TlsMode::name))
                    .collect::<Vec<_>>()
                    .join(","),
                modes[0].name()
            );
        }
        let tls_mode = modes.first().copied().unwrap_or_default();
        // The grid's one TLS level, when it has one, for the runs with TLS and
        // for every check's connection (the strictest of the list).
        let tls = tls_options(&a.data, modes.first().copied())?;
        use crate::cli::{MAX_RATE, MIN_RATE};
        if !(a.rate == 0.0 || (MIN_RATE..=MAX_RATE).contains(&a.rate)) {
            bail!(
                "--rate {}: give events per second, 0 (closed loop) or from {MIN_RATE} to {MAX_RATE}",
                a.rate
            );
        }
        if a.control && !(encrypts.iter().any(|e| e.algorithm().is_none()) && a.tls.contains(&None))
        {
            bail!(
                "--control runs the baseline twice per round, but the grid has none: add none to --encrypt and off to --tls"
            );
        }
        check_pgbench_flags(
            a.workload,
            a.scale,
            None,
            &a.data,
            encrypts.iter().any(|e| e.algorithm().is_some()),
        )?;
        let mut sysbench_only = a.data.sysbench_flags_changed();
        sysbench_only.extend(a.options.sysbench_flags_changed());
        if a.rand_type != RandType::Special {
            sysbench_only.push("--rand-type");
        }
        check_sysbench_only(a.workload, &sysbench_only)?;
        if a.latency_limit.is_some() && !a.workload.is_pgbench() {
            bail!(
                "--latency-limit is pgbench's -L, reported in pgbench's layout: use a pgbench_* --workload, or omit --latency-limit for {}",
                a.workload.name()
            );
        }
        if a.time == 0 && a.events == 0 {
            bail!("--time 0 needs --events N (otherwise the run never ends)");
        }
        if a.workload.is_pgbench() && a.time == 0 {
            check_per_client(a.events, &a.threads)?;
        }
        let server_cpu = match a.server_pid {
            Some(pid) => ServerCpu::Process(ServerProcess::open(pid)?),
            None => ServerCpu::Unavailable(NO_SERVER_PID_MESSAGE.to_string()),
        };
        let start_at = a
            .start_at
            .as_deref()
            .map(|t| parse_start_at(t, SystemTime::now()))
            .transpose()?;
        let tls_ca = default_tls_ca(&a.data);
        data.tls = tls;
        Ok(RunConfig {
            url: a.data.url().unwrap_or_default().into(),
            data,
            workload: a.workload,
            // Each count once (check_unique above): a repeated one would pair
            // every ciphertext run with the first plaintext one.
            threads: a.threads.clone(),
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
            tls: a.tls.iter().map(Option::is_some).collect(),
            tls_mode,
            tls_ca,
            at_rest: a.data.at_rest_mode(),
            at_rest_info: crate::at_rest::record(
                a.data.at_rest_mode(),
                a.data
                    .url()
                    .is_none()
                    .then(|| engine_dir(&a.data))
                    .as_deref(),
            ),
            repeat: a.repeat,
            control: a.control,
            key_file: a.data.key_file.clone(),
            base_dir: base_dir(&a.data),
            progress: !a.no_progress,
            reconnect_window: Duration::from_secs(5),
            on_decrypt_error: a.on_decrypt_error,
            server_cpu,
            iops_cap: None,
            shared_with: Vec::new(),
            start_at,
            scale: a.scale,
            latency_limit: a.latency_limit,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pgbench_count_must_split_evenly_across_clients() {
        assert!(check_per_client(300, &[1, 2, 3]).is_ok());
        let e = check_per_client(301, &[1, 2])
            .expect_err("301 / 2")
            .to_string();
        assert!(
            e.contains("--events 301 with --time 0 is pgbench's -t")
                && e.contains("--threads 2 does not divide it: use --events 300 or 302"),
            "{e}"
        );
        // A grid: the totals every count divides (lcm 12).
        let e = check_per_client(10, &[4, 6])
            .expect_err("10 / 4")
            .to_string();
        assert!(
            e.contains("--threads 4 does not divide it: use --events 12"),
            "{e}"
        );
    }

    #[test]
    fn start_at_must_be_rfc_3339_ahead_and_within_a_day() {
        let now = parse_rfc3339("2026-12-01T10:00:00Z").expect("time");
        let at = parse_start_at("2026-12-01T10:00:05.5Z", now).expect("5.5 s ahead");
        assert_eq!(
            at.duration_since(now).ok(),
            Some(Duration::from_millis(5500))
        );
        let e = parse_start_at("2026-12-01T09:59:58Z", now).expect_err("past");
        assert!(e.to_string().contains("2.0 s in the past"), "{e}");
        let e = parse_start_at("10:00:05", now).expect_err("not RFC 3339");
        assert!(e.to_string().contains("give a UTC time such as"), "{e}");
        let e = parse_start_at("2026-12-03T10:00:00Z", now).expect_err("2 days");
        assert!(e.to_string().contains("48.0 h ahead"), "{e}");
    }
}
