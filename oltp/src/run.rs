//! The run: a grid of (threads, encryption choice) combinations, each checked
//! before it starts, measured by worker tasks (one connection each), and turned
//! into a [`RunResult`].

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use encbench_crypto::envelope::{ColumnCipher, DeterministicColumnCipher};
use indicatif::{ProgressBar, ProgressStyle};
use mysql_async::prelude::*;

use crate::codec::{
    Codec, Columns, Encrypt, cipher_from_key_file, default_key_file, read_key_file,
};
use crate::measure::{Aggregate, Live, LiveCounts, process_cpu_time};
use crate::rand::{RandType, SbRng};
use crate::report::{RunResult, RunSettings, TlsInfo, WorkloadOptions};
use crate::schema::{DataSet, check_prepared, conn_opts, connect};
use crate::workload::{Limits, Options, Params, Session, Workload, run_worker};

/// Everything `oltp run` needs.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// `mysql://USER:PASS@HOST:PORT` of the server.
    pub url: String,
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
    /// Require every table to be encrypted at rest (checked before the runs).
    pub at_rest: bool,
    /// Runs of every combination (`--repeat`): at each thread count, round r
    /// runs the (TLS x encryption) combinations rotated by r (A B C, B C A, ...).
    pub repeat: u32,
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
}

/// Loads the column cipher for `encrypt` from `key_file` or the default key file.
///
/// # Errors
/// A missing or malformed key file.
pub fn load_cipher(
    encrypt: Encrypt,
    key_file: Option<&PathBuf>,
    base_dir: &std::path::Path,
) -> Result<Option<Arc<ColumnCipher>>> {
    let Encrypt::Aead(d) = encrypt else {
        return Ok(None);
    };
    let path = key_file
        .cloned()
        .unwrap_or_else(|| default_key_file(base_dir, d.algorithm));
    if !path.exists() {
        if key_file.is_some() {
            bail!(
                "--key-file {} not found: give the key file the tables were prepared with",
                path.display()
            );
        }
        bail!(
            "key file {} not found: pass --key-file with the key file the tables were prepared with (or --base-dir where prepare created it); new tables: `oltp prepare --encrypt {}` creates one",
            path.display(),
            encrypt.name()
        );
    }
    let cipher =
        cipher_from_key_file(d, &path).with_context(|| format!("--encrypt {}", encrypt.name()))?;
    Ok(Some(Arc::new(cipher)))
}

/// The codec for `encrypt` with column layout `columns`: keys from `key_file`
/// or the default key file; deterministic columns use the same keys through the
/// backend's deterministic form of the algorithm.
///
/// # Errors
/// A missing or malformed key file; deterministic columns on an algorithm
/// without a deterministic form.
pub fn load_codec(
    encrypt: Encrypt,
    columns: Columns,
    key_file: Option<&PathBuf>,
    base_dir: &std::path::Path,
) -> Result<Codec> {
    let Some(cipher) = load_cipher(encrypt, key_file, base_dir)? else {
        return Ok(Codec::plaintext());
    };
    columns.check(encrypt)?;
    let deterministic = match encrypt {
        Encrypt::Aead(d) if columns.any_deterministic() => {
            let det = encbench_registry::lookup_deterministic(&d.name())?;
            let path = key_file
                .cloned()
                .unwrap_or_else(|| default_key_file(base_dir, d.algorithm));
            let keys = read_key_file(&path, d.algorithm)?;
            Some(Arc::new(
                DeterministicColumnCipher::new(det, &keys)
                    .with_context(|| format!("--encrypt {}", encrypt.name()))?,
            ))
        }
        _ => None,
    };
    Codec::with_columns(cipher, deterministic, columns)
}

/// Server facts read before a run.
#[derive(Clone, Debug)]
pub struct ServerInfo {
    /// `SELECT VERSION()`.
    pub version: String,
    /// `@@max_prepared_stmt_count`.
    pub max_prepared_stmt_count: u64,
    /// Prepared statements open on the server now (`Prepared_stmt_count`).
    pub prepared_stmt_count: u64,
    /// `@@max_connections`.
    pub max_connections: u64,
    /// Server settings recorded with every result (name -> value): buffer
    /// pool, durability, binary log, TLS and at-rest encryption.
    pub settings: std::collections::BTreeMap<String, String>,
}

/// The server variables recorded in every result.
pub const RECORDED_SETTINGS: [&str; 10] = [
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
];

/// Reads [`ServerInfo`].
///
/// # Errors
/// Connection or query failures.
pub async fn server_info(url: &str) -> Result<ServerInfo> {
    let mut conn = connect(conn_opts(url, None, 16)?).await?;
    let (version, max_ps, max_conn): (String, u64, u64) = conn
        .query_first("SELECT VERSION(), @@max_prepared_stmt_count, @@max_connections")
        .await?
        .context("server returned no row for SELECT VERSION()")?;
    let open: Option<(String, u64)> = conn
        .query_first("SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'")
        .await?;
    let mut settings = std::collections::BTreeMap::new();
    for name in RECORDED_SETTINGS {
        // A variable this server does not have (e.g. innodb_encrypt_tables on
        // MySQL) is simply not recorded.
        // Text protocol: a server with no prepared statements to spare
        // (`--db-ps-mode disable`) must still answer. The names are constants.
        let row: Option<(String, String)> = conn
            .query_first(format!(
                "SHOW GLOBAL VARIABLES WHERE Variable_name = '{name}'"
            ))
            .await?;
        if let Some((_, v)) = row {
            settings.insert(name.to_string(), v);
        }
    }
    conn.disconnect().await?;
    Ok(ServerInfo {
        version,
        max_prepared_stmt_count: max_ps,
        prepared_stmt_count: open.map_or(0, |(_, n)| n),
        max_connections: max_conn,
        settings,
    })
}

/// Checks that `threads` connections, each holding the workload's prepared
/// statements for every table, fit the server's limits.
///
/// # Errors
/// Too many prepared statements or connections, with the setting to change.
pub fn check_budget(
    info: &ServerInfo,
    workload: Workload,
    options: &Options,
    tables: u32,
    threads: u32,
) -> Result<()> {
    let per_conn = workload.statements_per_connection(tables, options.range_selects) as u64;
    // --db-ps-mode disable prepares nothing.
    let per_conn = if options.db_ps_mode.prepares() {
        per_conn
    } else {
        0
    };
    let need = per_conn * u64::from(threads);
    let free = info
        .max_prepared_stmt_count
        .saturating_sub(info.prepared_stmt_count);
    if need > free {
        bail!(
            "{threads} threads x {tables} tables x {} statements = {need} prepared statements, but the server allows {} \
             (max_prepared_stmt_count, {} in use): run SET GLOBAL max_prepared_stmt_count = {} (at most 1048576), use --db-ps-mode disable (text protocol, no prepared statements), or use fewer --threads or --tables",
            workload.statements_per_table(options.range_selects),
            info.max_prepared_stmt_count,
            info.prepared_stmt_count,
            (need + info.prepared_stmt_count).min(1_048_576)
        );
    }
    if u64::from(threads) + 2 > info.max_connections {
        bail!(
            "{threads} threads need {threads} connections, but max_connections is {}: run SET GLOBAL max_connections = {}, or use fewer --threads",
            info.max_connections,
            threads + 10
        );
    }
    Ok(())
}

/// Opens every encrypted column of the first row of `sbtest1` to prove the
/// keys fit the data before a run.
///
/// # Errors
/// A value does not open: the message names table, column, id and key id.
pub async fn check_keys(url: &str, db: &str, codec: &Codec) -> Result<()> {
    if !codec.is_encrypted() {
        return Ok(());
    }
    let mut conn = connect(conn_opts(url, Some(db), 16)?).await?;
    let row: Option<mysql_async::Row> = conn
        .query_first("SELECT id, k, c, pad FROM sbtest1 ORDER BY id LIMIT 1")
        .await?;
    conn.disconnect().await?;
    if let Some(mut row) = row {
        let id: i64 = row.take(0).context("sbtest1 row without id")?;
        let mut col = |i: usize| -> Vec<u8> { row.take(i).unwrap_or_default() };
        let (k, c, pad) = (col(1), col(2), col(3));
        for (column, mut v) in [("k", k), ("c", c), ("pad", pad)] {
            codec
                .open_in_place("sbtest1", column, id, &mut v)
                .map_err(|e| anyhow::anyhow!("{db}.sbtest1.{column} id={id}: {e}"))?;
        }
    }
    Ok(())
}

/// Runs every (threads, encryption) combination, thread counts outermost so the
/// choices compared at one thread count run back to back. `on_result` sees each
/// result as soon as its run ends. Returns all results; a run that stopped early
/// ends the grid (its partial result is included).
///
/// # Errors
/// Checks that fail before any measurement (missing tables, keys, limits).
pub async fn run_grid(
    opts: &RunOptions,
    mut on_result: impl FnMut(&RunResult),
) -> Result<Vec<RunResult>> {
    let info = server_info(&opts.url).await?;
    let mut admin = connect(conn_opts(&opts.url, None, 16)?).await?;
    let mut codecs = Vec::new();
    for &e in &opts.encrypts {
        let meta = check_prepared(&mut admin, &opts.data, e).await?;
        let codec = load_codec(e, opts.data.columns, opts.key_file.as_ref(), &opts.base_dir)?;
        check_keys(&opts.url, &opts.data.database(e), &codec).await?;
        if let (Some(active), Some(m)) = (codec.deterministic_key_id(), &meta) {
            // Equality lookups only match values sealed under the same key.
            if active != m.key_id {
                bail!(
                    "{}: the deterministic columns were sealed under key id {}, but the key file's active (highest) key id is {active}: lookups by equality would match nothing; use a key file whose highest id is {}, or re-encrypt (cleanup and prepare again)",
                    opts.data.database(e),
                    m.key_id,
                    m.key_id
                );
            }
        }
        codecs.push((e, codec));
    }
    if opts.at_rest {
        for &e in &opts.encrypts {
            crate::security::check_at_rest(&mut admin, &opts.data.database(e), opts.data.tables)
                .await?;
        }
    }
    admin.disconnect().await?;
    let mut sessions = Vec::new();
    for &tls in &opts.tls {
        sessions.push(if tls {
            let o =
                crate::security::with_tls(conn_opts(&opts.url, None, 16)?, opts.tls_ca.as_deref());
            let mut conn = mysql_async::Conn::new(o).await.map_err(|e| {
                let against = opts.tls_ca.as_ref().map_or(
                    "the built-in web PKI roots".to_string(),
                    |p| p.display().to_string(),
                );
                anyhow::anyhow!(
                    "--tls on: no TLS connection to the server ({e}); the server must have TLS enabled and a certificate for its host signed by the CA in {against}: pass --tls-ca FILE"
                )
            })?;
            let s = crate::security::check_tls(&mut conn).await?;
            conn.disconnect().await?;
            Some(s)
        } else {
            None
        });
    }
    for &t in &opts.threads {
        check_budget(&info, opts.workload, &opts.options, opts.data.tables, t)?;
    }
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupted.clone();
        tokio::spawn(async move {
            if interrupt_signal().await {
                flag.store(true, Ordering::SeqCst);
            }
        });
    }
    let mut combos = Vec::new();
    for tls in &sessions {
        for (e, codec) in &codecs {
            combos.push(Mode {
                encrypt: *e,
                codec: codec.clone(),
                tls: tls.clone(),
            });
        }
    }
    let mut results = Vec::new();
    'grid: for &threads in &opts.threads {
        for round in 0..opts.repeat.max(1) {
            let n = combos.len();
            for i in 0..n {
                let mode = &combos[(i + round as usize) % n];
                let mut r = run_one(opts, &info, mode, threads, &interrupted).await?;
                r.round = round + 1;
                on_result(&r);
                let stop = !r.complete;
                results.push(r);
                if stop {
                    break 'grid;
                }
            }
        }
    }
    Ok(results)
}

/// One combination of the grid besides the thread count.
#[derive(Clone, Debug)]
pub struct Mode {
    /// Column encryption.
    pub encrypt: Encrypt,
    /// Its codec.
    pub codec: Codec,
    /// TLS session parameters (checked before the grid) when TLS is on.
    pub tls: Option<crate::security::TlsSession>,
}

/// One measured run.
///
/// # Errors
/// Connecting the workers or preparing their statements failed.
pub async fn run_one(
    opts: &RunOptions,
    info: &ServerInfo,
    mode: &Mode,
    threads: u32,
    interrupted: &Arc<AtomicBool>,
) -> Result<RunResult> {
    let (encrypt, codec) = (mode.encrypt, mode.codec.clone());
    let db = opts.data.database(encrypt);
    let per_conn = opts
        .workload
        .statements_per_connection(opts.data.tables, opts.options.range_selects);
    let mut conn_opts = conn_opts(&opts.url, Some(&db), per_conn + 16)?;
    if mode.tls.is_some() {
        conn_opts = crate::security::with_tls(conn_opts, opts.tls_ca.as_deref());
    }
    let bar = progress_bar(
        opts,
        &format!(
            "{}{} {} thr",
            encrypt.name(),
            if mode.tls.is_some() { "+tls" } else { "" },
            threads
        ),
    );
    bar.set_message("connecting");
    let params = Params {
        tables: opts.data.tables,
        table_size: opts.data.table_size,
        opts: opts.options,
        thread: 0,
        threads,
    };
    let live = Arc::new(Live::new(!opts.report_interval.is_zero()));
    let events_left =
        (opts.events > 0).then(|| Arc::new(std::sync::atomic::AtomicU64::new(opts.events)));
    let gate = Arc::new(Gate::new(threads as usize + 1));
    let mut workers = Vec::new();
    for i in 0..threads {
        let spec = WorkerSpec {
            opts: conn_opts.clone(),
            workload: opts.workload,
            codec: codec.clone(),
            params: Params {
                thread: i,
                ..params
            },
            rand_type: opts.rand_type,
            rand_seed: (opts.rand_seed != 0).then(|| opts.rand_seed.wrapping_add(u64::from(i))),
            events_left: events_left.clone(),
            // Each of the threads takes 1/threads of the arrivals.
            mean_interarrival: (opts.rate > 0.0)
                .then(|| Duration::from_secs_f64(f64::from(threads) / opts.rate)),
            reconnect_window: opts.reconnect_window,
            live: live.clone(),
            stop: interrupted.clone(),
            gate: gate.clone(),
        };
        let handle = std::thread::Builder::new()
            .name(format!("oltp-worker-{i}"))
            .spawn(move || spec.run())
            .context("cannot start a worker thread")?;
        workers.push(handle);
    }
    // All workers connect and prepare their statements, then start together.
    let (start, connect_error) = {
        let gate = gate.clone();
        let (warmup, time) = (opts.warmup, opts.time);
        tokio::task::spawn_blocking(move || gate.open(warmup, time))
            .await
            .context("start gate task panicked")?
    };
    if connect_error.is_none() && !opts.warmup.is_zero() {
        bar.set_message("warming up");
        tokio::time::sleep_until(start.into()).await;
    }
    let cpu0 = process_cpu_time();
    let ticker = {
        let (bar, live) = (bar.clone(), live.clone());
        tokio::spawn(async move {
            let mut last = (Instant::now(), 0u64);
            loop {
                tokio::time::sleep(Duration::from_millis(500)).await;
                let q = live.read().queries();
                let now = Instant::now();
                let qps = (q - last.1) as f64 / now.duration_since(last.0).as_secs_f64();
                last = (now, q);
                bar.set_position(start.elapsed().as_secs().min(bar.length().unwrap_or(0)));
                bar.set_message(format!("{qps:.0} qps"));
            }
        })
    };
    // Interval lines: a task prints one per --report-interval; the state (the
    // counters at the last line, the next line's number) is shared so the line
    // of an interval that ends with the run is printed after the join.
    let interval_state = Arc::new(Mutex::new((live.read(), 1u32)));
    let emit = {
        let (bar, live, state) = (bar.clone(), live.clone(), interval_state.clone());
        let (every, to_stderr) = (opts.report_interval, opts.intervals_to_stderr);
        let open_loop = opts.rate > 0.0;
        move || {
            let mut st = state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let now = live.read();
            let mut line = interval_line(
                (every * st.1).as_secs_f64(),
                threads,
                &st.0,
                &now,
                every.as_secs_f64(),
                live.take_interval_p95_ms(),
            );
            if open_loop {
                // sysbench 1.0 adds this line in --rate mode.
                let (queue, busy) = live.queue();
                line.push_str(&format!(
                    "\n[ {}s ] queue length: {queue}, concurrency: {busy}",
                    (every * st.1).as_secs()
                ));
            }
            bar.suspend(|| {
                if to_stderr {
                    eprintln!("{line}");
                } else {
                    println!("{line}");
                }
            });
            *st = (now, st.1 + 1);
        }
    };
    let reporter = (!opts.report_interval.is_zero()).then(|| {
        let (every, state, emit) = (opts.report_interval, interval_state.clone(), emit.clone());
        tokio::spawn(async move {
            loop {
                let n = state
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .1;
                tokio::time::sleep_until((start + every * n).into()).await;
                emit();
            }
        })
    });
    let joined = tokio::task::spawn_blocking(move || {
        workers
            .into_iter()
            .map(|w| {
                w.join().unwrap_or_else(|_| {
                    (Aggregate::new(), Some("worker thread panicked".to_string()))
                })
            })
            .collect::<Vec<_>>()
    })
    .await
    .context("worker join task panicked")?;
    if let Some(r) = &reporter {
        r.abort();
        let n = interval_state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .1;
        if connect_error.is_none() && !opts.time.is_zero() && opts.report_interval * n <= opts.time
        {
            emit();
        }
    }
    if let Some(e) = connect_error {
        ticker.abort();
        bar.finish_and_clear();
        bail!("cannot open worker connection to {db}: {e}");
    }
    let mut total = Aggregate::new();
    let mut first_error = None;
    for (agg, err) in joined {
        total.merge(&agg);
        if first_error.is_none() {
            first_error = err;
        }
    }
    // A run that stopped early is measured up to its last completed event, so the
    // time spent retrying a dead server does not dilute the rates.
    let elapsed = match (&first_error, total.last_event_end) {
        (Some(_), Some(end)) => end.duration_since(start).as_secs_f64(),
        _ => start.elapsed().as_secs_f64(),
    };
    let cpu = (process_cpu_time().saturating_sub(cpu0)).as_secs_f64();
    ticker.abort();
    bar.finish_and_clear();
    if first_error.is_none() && interrupted.load(Ordering::SeqCst) {
        first_error = Some("interrupted (Ctrl-C or SIGTERM)".to_string());
    }
    let settings = RunSettings {
        workload: opts.workload.name().to_string(),
        threads,
        encrypt: encrypt.name(),
        encrypted_columns: if encrypt.algorithm().is_some() {
            opts.data.columns.describe()
        } else {
            String::new()
        },
        database: db,
        tables: opts.data.tables,
        table_size: opts.data.table_size,
        range_size: opts.options.range_size,
        options: workload_options(&opts.options),
        rand_type: format!("{:?}", opts.rand_type).to_lowercase(),
        rand_seed: opts.rand_seed,
        rate: opts.rate,
        tls: mode.tls.as_ref().map(|t| TlsInfo {
            version: t.version.clone(),
            cipher: t.cipher.clone(),
        }),
        at_rest: opts.at_rest,
        server_version: info.version.clone(),
        server_settings: info.settings.clone(),
    };
    Ok(RunResult::from_aggregate(
        settings,
        &total,
        elapsed,
        cpu,
        first_error,
    ))
}

/// The workload options as the result records them.
fn workload_options(o: &Options) -> WorkloadOptions {
    WorkloadOptions {
        range_size: o.range_size,
        point_selects: o.point_selects,
        simple_ranges: o.simple_ranges,
        sum_ranges: o.sum_ranges,
        order_ranges: o.order_ranges,
        distinct_ranges: o.distinct_ranges,
        index_updates: o.index_updates,
        non_index_updates: o.non_index_updates,
        delete_inserts: o.delete_inserts,
        range_selects: o.range_selects,
        skip_trx: o.skip_trx,
        auto_inc: o.auto_inc,
        random_points: o.random_points,
        db_ps_mode: o.db_ps_mode.name().to_string(),
    }
}

/// The start line: every worker connects, then all start at once; the
/// deadline is set when the last one is ready.
struct Gate {
    ready: Barrier,
    go: Barrier,
    state: Mutex<GateState>,
}

#[derive(Default)]
struct GateState {
    warmup_until: Option<Instant>,
    deadline: Option<Instant>,
    connect_error: Option<String>,
    abort: bool,
}

impl Gate {
    fn new(parties: usize) -> Gate {
        Gate {
            ready: Barrier::new(parties),
            go: Barrier::new(parties),
            state: Mutex::new(GateState::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The coordinator's side: waits for every worker, sets the end of the
    /// warm-up and the deadline (or aborts when a worker could not connect),
    /// lets them go. Returns the start of the measured window and the first
    /// connection error.
    fn open(&self, warmup: Duration, time: Duration) -> (Instant, Option<String>) {
        self.ready.wait();
        let start = Instant::now() + warmup;
        let error = {
            let mut st = self.lock();
            st.warmup_until = (!warmup.is_zero()).then_some(start);
            st.deadline = (!time.is_zero()).then_some(start + time);
            st.abort = st.connect_error.is_some();
            st.connect_error.clone()
        };
        self.go.wait();
        (start, error)
    }

    /// A worker's side: reports its connection outcome, waits for the start,
    /// and returns (end of warm-up, deadline), or `None` when the run was aborted.
    #[allow(clippy::type_complexity)]
    fn arrive(&self, connect_error: Option<String>) -> Option<(Option<Instant>, Option<Instant>)> {
        if let Some(e) = connect_error {
            let mut st = self.lock();
            st.connect_error.get_or_insert(e);
        }
        self.ready.wait();
        self.go.wait();
        let st = self.lock();
        if st.abort {
            None
        } else {
            Some((st.warmup_until, st.deadline))
        }
    }
}

/// What one worker thread needs. Each worker is an OS thread with its own
/// single-threaded tokio runtime and one connection, as sysbench runs one
/// thread per connection: no cross-thread wake-ups on the per-query path.
struct WorkerSpec {
    opts: mysql_async::Opts,
    workload: Workload,
    codec: Codec,
    params: Params,
    rand_type: RandType,
    rand_seed: Option<u64>,
    events_left: Option<Arc<std::sync::atomic::AtomicU64>>,
    mean_interarrival: Option<Duration>,
    reconnect_window: Duration,
    live: Arc<Live>,
    stop: Arc<AtomicBool>,
    gate: Arc<Gate>,
}

impl WorkerSpec {
    fn run(self) -> (Aggregate, Option<String>) {
        // No time driver unless --rate sleeps between arrivals: checking the
        // timer wheel at every park cost ~6% of the instructions per point select.
        let mut builder = tokio::runtime::Builder::new_current_thread();
        builder.enable_io();
        if self.mean_interarrival.is_some() {
            builder.enable_time();
        }
        let rt = match builder.build() {
            Ok(rt) => rt,
            Err(e) => {
                self.gate
                    .arrive(Some(format!("cannot start a worker runtime: {e}")));
                return (Aggregate::new(), None);
            }
        };
        rt.block_on(async {
            let session = Session::connect(self.opts, self.workload, self.codec, self.params).await;
            let (mut session, (warmup_until, deadline)) = match session {
                Ok(s) => match self.gate.arrive(None) {
                    Some(d) => (s, d),
                    None => {
                        s.close().await;
                        return (Aggregate::new(), None);
                    }
                },
                Err(e) => {
                    self.gate.arrive(Some(e.to_string()));
                    return (Aggregate::new(), None);
                }
            };
            let rng = match self.rand_seed {
                Some(seed) => SbRng::seeded(seed, self.rand_type),
                None => SbRng::from_os(self.rand_type),
            };
            let limits = Limits {
                warmup_until,
                deadline,
                events_left: self.events_left,
                mean_interarrival: self.mean_interarrival,
            };
            let (agg, err) = run_worker(
                &mut session,
                rng,
                &limits,
                self.reconnect_window,
                &self.live,
                &self.stop,
            )
            .await;
            session.close().await;
            (agg, err.map(|e| e.to_string()))
        })
    }
}

/// Resolves when SIGINT (Ctrl-C) or SIGTERM arrives; `false` if signals cannot
/// be watched.
pub async fn interrupt_signal() -> bool {
    use tokio::signal::unix::{SignalKind, signal};
    let Ok(mut term) = signal(SignalKind::terminate()) else {
        return tokio::signal::ctrl_c().await.is_ok();
    };
    tokio::select! {
        r = tokio::signal::ctrl_c() => r.is_ok(),
        r = term.recv() => r.is_some(),
    }
}

/// One `--report-interval` line in sysbench 1.0's layout, for the interval
/// ending `at_s` seconds into the run, from the counters at its start and end.
pub fn interval_line(
    at_s: f64,
    threads: u32,
    before: &LiveCounts,
    now: &LiveCounts,
    secs: f64,
    p95_ms: f64,
) -> String {
    let rate = |a: u64, b: u64| a.saturating_sub(b) as f64 / secs.max(1e-9);
    format!(
        "[ {}s ] thds: {threads} tps: {:.2} qps: {:.2} (r/w/o: {:.2}/{:.2}/{:.2}) lat (ms,95%): {p95_ms:.2} err/s: {:.2} reconn/s: {:.2}",
        at_s.round() as u64,
        rate(now.events, before.events),
        rate(now.queries(), before.queries()),
        rate(now.read, before.read),
        rate(now.write, before.write),
        rate(now.other, before.other),
        rate(now.errors, before.errors),
        rate(now.reconnects, before.reconnects),
    )
}

fn progress_bar(opts: &RunOptions, prefix: &str) -> ProgressBar {
    use std::io::IsTerminal;
    if !opts.progress || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(opts.time.as_secs());
    bar.set_style(
        ProgressStyle::with_template("{prefix:>28} [{bar:30}] {pos}/{len} s  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_prefix(prefix.to_string());
    bar
}

/// Key id recorded by `prepare` for a cipher: the keyring's active id.
pub fn active_key_id(codec: &Codec) -> u32 {
    codec.cipher().map_or(0, |c| c.keyring().active().0)
}
