//! The run: after the checks (`preflight`), the grid of (threads, mode)
//! combinations in rotated rounds, each measured by worker threads
//! (`worker`, one connection each) and turned into a [`RunResult`].
//!
//! Nothing here prints: progress, interval lines and finished runs go to a
//! [`Observer`] that the command supplies.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result, bail};

use crate::config::RunConfig;
use crate::driver::{ConnectOptions, Connection, DbDriver, TlsOptions, with_driver};
use crate::measure::{Aggregate, Live, LiveCounts, process_cpu_time};
use crate::preflight::{Checked, Mode, ServerInfo};
use crate::report::{
    LatencyLimit, MeasuredWindow, PgbenchRun, RunResult, RunSettings, TlsInfo, WindowCpu,
    WorkloadOptions,
};
use crate::server_cpu::ServerCpu;
use crate::worker::{Gate, Opened, WorkerSpec};
use crate::workload::Options;
use crate::workload::Params;
use encbench_common::header::rfc3339;

/// What a run tells while it goes. Called from the run's tasks, so `&self`.
pub trait Observer: Send + Sync {
    /// A run of `label` (e.g. `openssl:aes-256-gcm+tls 8 thr`) starts; its
    /// measured window lasts `secs` seconds (0: until `--events`).
    fn started(&self, label: &str, secs: u64);
    /// What the run is doing before it measures (`connecting`, `warming up`).
    fn phase(&self, what: &str);
    /// Twice a second while measuring: seconds into the window, and QPS over
    /// the last half second.
    fn tick(&self, elapsed_s: u64, qps: f64);
    /// One `--report-interval` line in sysbench's layout.
    fn interval(&self, line: &str);
    /// The run ended (the progress display can go).
    fn finished(&self, result: &RunResult);
}

/// An [`Observer`] that shows nothing (tests, library callers).
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Observer for Silent {
    fn started(&self, _: &str, _: u64) {}
    fn phase(&self, _: &str) {}
    fn tick(&self, _: u64, _: f64) {}
    fn interval(&self, _: &str) {}
    fn finished(&self, _: &RunResult) {}
}

/// Runs every (threads, mode) combination, thread counts outermost so the
/// modes compared at one thread count run back to back; at each thread count,
/// round r runs the modes rotated by r. Returns all results; a run that stopped
/// early ends the grid (its partial result is included).
///
/// # Errors
/// Checks that fail before any measurement (missing tables, keys, limits), or
/// workers that cannot connect.
pub async fn run_grid(cfg: &RunConfig, observer: Arc<dyn Observer>) -> Result<Vec<RunResult>> {
    // The driver of the URL's scheme, which the command line checked against
    // --db-driver: the workers below are monomorphised over its connection.
    with_driver!(DbDriver::of_url(&cfg.url), C => grid::<C>(cfg, observer).await)
}

/// [`run_grid`] over driver `C`.
async fn grid<C: Connection + 'static>(
    cfg: &RunConfig,
    observer: Arc<dyn Observer>,
) -> Result<Vec<RunResult>> {
    let Checked { info, modes, scale } =
        crate::preflight::check::<C>(C::DRIVER.dialect(), cfg).await?;
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupted.clone();
        tokio::spawn(async move {
            if interrupt_signal().await {
                flag.store(true, Ordering::SeqCst);
            }
        });
    }
    let base = modes
        .iter()
        .position(|m| m.encrypt.algorithm().is_none() && m.tls.is_none());
    let slots = slots(modes.len(), base.filter(|_| cfg.control));
    let mut results = Vec::new();
    // --start-at lines up the first run; the others follow in the same
    // sequence on every client.
    let mut start_at = cfg.start_at;
    'grid: for &threads in &cfg.threads {
        for round in 0..cfg.repeat.max(1) {
            let n = slots.len();
            for i in 0..n {
                let (m, control) = slots[(i + round as usize) % n];
                let mode = &modes[m];
                let mut r = run_one::<C>(
                    cfg,
                    &info,
                    mode,
                    threads,
                    scale,
                    start_at.take(),
                    &interrupted,
                    observer.clone(),
                )
                .await?;
                r.round = round + 1;
                r.control = control;
                observer.finished(&r);
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

/// The order of one round of `n` modes before rotation: (index of the mode,
/// whether it is the `--control` run). With `control` = the index of the
/// baseline (no column encryption, no TLS), it runs a second time as far from
/// its first run as the round allows (A B A' C for three modes; the rotation
/// keeps the distance), so the A/A pair sees the drift the A/B pairs see.
fn slots(n: usize, control: Option<usize>) -> Vec<(usize, bool)> {
    let order: Vec<usize> = (0..n).collect();
    encbench_common::rounds::with_controls(&order, |&i| Some(i) == control)
}

/// One measured run of `mode` at `threads` threads, over driver `C`; with
/// `start_at`, its warm-up starts then (after every connection is ready).
/// In order: the workers connect and meet at the gate ([`spawn_workers`]),
/// the warm-up, the measured window with its progress ([`spawn_ticker`]) and
/// interval lines ([`Intervals`]), the workers joined ([`join_workers`]),
/// the window's time and CPU ([`window_time`], [`window_cpu`]), the result.
///
/// # Errors
/// Connecting the workers or preparing their statements failed, or took
/// until after `start_at`.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn run_one<C: Connection + 'static>(
    cfg: &RunConfig,
    info: &ServerInfo,
    mode: &Mode,
    threads: u32,
    scale: u32,
    start_at: Option<SystemTime>,
    interrupted: &Arc<AtomicBool>,
    observer: Arc<dyn Observer>,
) -> Result<RunResult> {
    let db = cfg.data.database(mode.encrypt);
    let connect = connect_options(cfg, mode, &db);
    observer.started(
        &format!(
            "{}{} {} thr",
            mode.encrypt.name(),
            if mode.tls.is_some() { "+tls" } else { "" },
            threads
        ),
        cfg.time.as_secs(),
    );
    observer.phase("connecting");
    let live = Arc::new(Live::new(!cfg.report_interval.is_zero()));
    let gate = Arc::new(Gate::new(threads as usize + 1));
    // pgbench's "initial connection time": until every worker is connected
    // (and has prepared its statements).
    let connecting = Instant::now();
    let workers = spawn_workers::<C>(
        cfg,
        mode,
        &connect,
        (threads, scale),
        &live,
        &gate,
        interrupted,
    )?;
    // All workers connect and prepare their statements, then (--start-at)
    // wait for the agreed time, then start together.
    if let Some(at) = start_at {
        observer.phase(&format!(
            "connecting, then waiting for --start-at {}",
            rfc3339(at).unwrap_or_default()
        ));
    }
    let Opened {
        start,
        start_wall,
        deadline,
        connect_error,
        late,
    } = {
        let (gate, stop) = (gate.clone(), interrupted.clone());
        let (warmup, time) = (cfg.warmup, cfg.time);
        tokio::task::spawn_blocking(move || gate.open(warmup, time, start_at, &stop))
            .await
            .context("start gate task panicked")?
    };
    let connection_ms = connecting.elapsed().as_secs_f64() * 1e3;
    if connect_error.is_none() && late.is_none() && !cfg.warmup.is_zero() {
        observer.phase("warming up");
        tokio::time::sleep_until(start.into()).await;
    }
    // The server's CPU first and last, so that reading /proc stays outside
    // the client's CPU window.
    let server0 = server_cpu_time(&cfg.server_cpu);
    let cpu0 = process_cpu_time();
    let ticker = spawn_ticker(observer.clone(), live.clone(), start);
    let intervals = Arc::new(Intervals::new(cfg, threads, start, observer, live));
    let reporter = (!cfg.report_interval.is_zero())
        .then(|| spawn_reporter(intervals.clone(), cfg.report_interval, start));
    let (joined, at_deadline) = join_workers(workers, deadline, &cfg.server_cpu).await?;
    if let Some(r) = &reporter {
        r.abort();
        let n = intervals.next();
        if deadline.is_some() && cfg.report_interval * n <= cfg.time {
            intervals.emit(n);
        }
    }
    ticker.abort();
    if let Some(e) = connect_error {
        bail!("cannot open worker connection to {db}: {e}");
    }
    if let (Some(by), Some(at)) = (late, start_at) {
        bail!(
            "--start-at {} had passed {:.1} s before the {threads} connections were open and prepared: give a time further ahead, the same for every client",
            rfc3339(at).unwrap_or_default(),
            by.as_secs_f64()
        );
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
    let stopped = first_error.is_some() || interrupted.load(Ordering::SeqCst);
    let at_deadline = at_deadline.filter(|_| !stopped);
    let elapsed = window_time(cfg, &total, first_error.is_some(), stopped, deadline, start);
    let cpu = window_cpu(cfg, (cpu0, server0), at_deadline);
    if first_error.is_none() && interrupted.load(Ordering::SeqCst) {
        first_error = Some("interrupted (Ctrl-C or SIGTERM)".to_string());
    }
    // `--on-decrypt-error count` restarts a failed event: when none ever
    // succeeded, nothing was measured but failures, which is no result.
    if first_error.is_none() && total.events == 0 && total.decrypt_errors > 0 {
        first_error = Some(format!(
            "every event failed to decrypt ({} decryption failures, 0 transactions): the key file does not open this data set; give --key-file the key file its tables were prepared with, and the --encrypt they were prepared with",
            total.decrypt_errors
        ));
    }
    let settings = run_settings(cfg, info, mode, (threads, scale), db, connection_ms);
    let window = MeasuredWindow::new(start_wall, Duration::from_secs_f64(elapsed.max(0.0)));
    let mut result = RunResult::from_aggregate(settings, &total, window, cpu, first_error);
    result.latency_limit = cfg.latency_limit.map(|l| LatencyLimit {
        // As pgbench prints it: latency_limit (µs) / 1000.0.
        limit_ms: l.as_micros() as f64 / 1000.0,
        late: total.late,
        skipped: total.skipped,
    });
    Ok(result)
}

/// How the workers of a run in `mode` connect to database `db`.
fn connect_options(cfg: &RunConfig, mode: &Mode, db: &str) -> ConnectOptions {
    let per_conn = cfg
        .workload
        .statements_per_connection(cfg.data.tables, cfg.options.range_selects);
    let mut connect = ConnectOptions::new(cfg.url.clone()).database(db.to_string());
    connect.statements = per_conn + 16;
    connect.ps_mode = cfg.options.db_ps_mode;
    if mode.tls.is_some() {
        connect.tls = Some(TlsOptions {
            ca: cfg.tls_ca.clone(),
            mode: cfg.tls_mode,
        });
    }
    connect
}

/// What a worker thread returns: its aggregate and the error that stopped it.
type WorkerOutcome = (Aggregate, Option<String>);

/// Starts the (threads, scale) run's worker threads, one connection each;
/// they connect, then wait at `gate`.
///
/// # Errors
/// A thread cannot be started.
fn spawn_workers<C: Connection + 'static>(
    cfg: &RunConfig,
    mode: &Mode,
    connect: &ConnectOptions,
    (threads, scale): (u32, u32),
    live: &Arc<Live>,
    gate: &Arc<Gate>,
    interrupted: &Arc<AtomicBool>,
) -> Result<Vec<std::thread::JoinHandle<WorkerOutcome>>> {
    let params = Params {
        tables: cfg.data.tables,
        table_size: cfg.data.table_size,
        opts: cfg.options,
        thread: 0,
        threads,
        scale,
    };
    let events_left = (cfg.events > 0).then(|| Arc::new(AtomicU64::new(cfg.events)));
    let mut workers = Vec::new();
    for i in 0..threads {
        let spec = WorkerSpec::<C> {
            opts: connect.clone(),
            workload: cfg.workload,
            codec: mode.codec.clone(),
            params: Params {
                thread: i,
                ..params
            },
            rand_type: cfg.rand_type,
            rand_seed: (cfg.rand_seed != 0).then(|| cfg.rand_seed.wrapping_add(u64::from(i))),
            events_left: events_left.clone(),
            // Each of the threads takes 1/threads of the arrivals.
            mean_interarrival: (cfg.rate > 0.0)
                .then(|| Duration::from_secs_f64(f64::from(threads) / cfg.rate)),
            latency_limit: cfg.latency_limit,
            reconnect_window: cfg.reconnect_window,
            on_decrypt: cfg.on_decrypt_error,
            live: live.clone(),
            stop: interrupted.clone(),
            gate: gate.clone(),
            driver: std::marker::PhantomData,
        };
        let handle = std::thread::Builder::new()
            .name(format!("oltp-worker-{i}"))
            .spawn(move || spec.run())
            .context("cannot start a worker thread")?;
        workers.push(handle);
    }
    Ok(workers)
}

/// Tells `observer` twice a second the seconds since `start` and the QPS
/// over the last half second, until aborted.
fn spawn_ticker(
    observer: Arc<dyn Observer>,
    live: Arc<Live>,
    start: Instant,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut last = (Instant::now(), 0u64);
        loop {
            tokio::time::sleep(Duration::from_millis(500)).await;
            let q = live.read().queries();
            let now = Instant::now();
            let qps = (q - last.1) as f64 / now.duration_since(last.0).as_secs_f64();
            last = (now, q);
            observer.tick(start.elapsed().as_secs(), qps);
        }
    })
}

/// The `--report-interval` lines of a run. A task emits one per interval
/// ([`spawn_reporter`]); the state (the counters at the last line, the next
/// line's number, the last line's time) is shared so the line of an interval
/// that ends with the run is emitted after the join. [`Intervals::emit`]
/// prints line `n` only if it is still the next one: the reporter task,
/// aborted while its timer's poll runs on another worker thread, and the join
/// may both reach line `n`; one prints it.
struct Intervals {
    state: Mutex<(LiveCounts, u32, Instant)>,
    observer: Arc<dyn Observer>,
    live: Arc<Live>,
    /// `--report-interval`.
    every: Duration,
    /// `--rate`.
    open_loop: bool,
    /// `--latency-limit`.
    limit: bool,
    /// pgbench's `-P` layout.
    pgbench: bool,
    threads: u32,
    /// The start of the measured window.
    start: Instant,
}

impl Intervals {
    /// The lines of a run of `cfg` at `threads` threads whose window starts
    /// at `start`, from `live`'s counters now.
    fn new(
        cfg: &RunConfig,
        threads: u32,
        start: Instant,
        observer: Arc<dyn Observer>,
        live: Arc<Live>,
    ) -> Intervals {
        Intervals {
            state: Mutex::new((live.read(), 1u32, start)),
            observer,
            live,
            every: cfg.report_interval,
            open_loop: cfg.rate > 0.0,
            limit: cfg.latency_limit.is_some(),
            pgbench: cfg.workload.is_pgbench(),
            threads,
            start,
        }
    }

    /// The number of the next line.
    fn next(&self) -> u32 {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .1
    }

    /// Emits line `n` if it is still the next one.
    fn emit(&self, n: u32) {
        let mut st = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if st.1 != n {
            return;
        }
        let now = self.live.read();
        let at = Instant::now();
        let lat = self.live.take_interval();
        let line = if self.pgbench {
            // pgbench's -P: the actual times, as pgbench prints them.
            crate::report::pgbench_text::progress_line(
                at.duration_since(self.start).as_secs_f64(),
                at.duration_since(st.2).as_secs_f64(),
                &st.0,
                &now,
                &lat,
                self.open_loop,
                self.limit,
            )
        } else {
            let every = self.every;
            let mut line = interval_line(
                (every * st.1).as_secs_f64(),
                self.threads,
                &st.0,
                &now,
                every.as_secs_f64(),
                lat.p95_ms,
            );
            if self.open_loop {
                // sysbench 1.0 adds this line in --rate mode.
                let (queue, busy) = self.live.queue();
                line.push_str(&format!(
                    "\n[ {}s ] queue length: {queue}, concurrency: {busy}",
                    (every * st.1).as_secs()
                ));
            }
            line
        };
        self.observer.interval(&line);
        *st = (now, st.1 + 1, at);
    }
}

/// Emits each of `intervals`' lines when its interval of `every` (from
/// `start`) ends, until aborted.
fn spawn_reporter(
    intervals: Arc<Intervals>,
    every: Duration,
    start: Instant,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            let n = intervals.next();
            tokio::time::sleep_until((start + every * n).into()).await;
            intervals.emit(n);
        }
    })
}

/// The client's and the server's CPU time read at the deadline.
type CpuReading = (Duration, Result<Duration, String>);

/// Waits for the workers. The window ends at the deadline (events that
/// complete after it are not counted, worker.rs), so the CPU is read then
/// (returned beside the outcomes), not when the last worker has finished its
/// event; a run that ends before it (an error, Ctrl-C) has no reading.
///
/// # Errors
/// The task that joins the threads panicked.
async fn join_workers(
    workers: Vec<std::thread::JoinHandle<WorkerOutcome>>,
    deadline: Option<Instant>,
    server_cpu: &ServerCpu,
) -> Result<(Vec<WorkerOutcome>, Option<CpuReading>)> {
    let mut join = tokio::task::spawn_blocking(move || {
        workers
            .into_iter()
            .map(|w| {
                w.join().unwrap_or_else(|_| {
                    (Aggregate::new(), Some("worker thread panicked".to_string()))
                })
            })
            .collect::<Vec<_>>()
    });
    let mut at_deadline = None;
    let joined = match deadline {
        Some(d) => tokio::select! {
            j = &mut join => j,
            () = tokio::time::sleep_until(d.into()) => {
                let cpu = process_cpu_time();
                at_deadline = Some((cpu, server_cpu_time(server_cpu)));
                join.await
            }
        },
        None => join.await,
    }
    .context("worker join task panicked")?;
    Ok((joined, at_deadline))
}

/// The length of the measured window, s: up to the last completed event of a
/// run that `failed`; the whole `--time` of one that reached its deadline;
/// else until now. `stopped`: failed or interrupted.
fn window_time(
    cfg: &RunConfig,
    total: &Aggregate,
    failed: bool,
    stopped: bool,
    deadline: Option<Instant>,
    start: Instant,
) -> f64 {
    // The workers may all be done before the timer above fires (it can be a
    // millisecond late): the run still measured exactly its window.
    let reached = !stopped && deadline.is_some_and(|d| Instant::now() >= d);
    // An open-loop worker ends when its next arrival falls past the deadline:
    // unless a count of events ended the run, it measured the whole window too
    // (no arrival in the rest of it), not just up to its last event.
    let open_loop_window = !stopped
        && deadline.is_some()
        && cfg.rate > 0.0
        && (cfg.events == 0 || total.events < cfg.events);
    match (failed, total.last_event_end) {
        (true, Some(end)) => end.duration_since(start).as_secs_f64(),
        _ if reached || open_loop_window => cfg.time.as_secs_f64(),
        _ => start.elapsed().as_secs_f64(),
    }
}

/// The CPU of the window from the readings at its start (client, server) and
/// at its deadline (read now without one).
fn window_cpu(
    cfg: &RunConfig,
    (cpu0, server0): (Duration, Result<Duration, String>),
    at_deadline: Option<CpuReading>,
) -> WindowCpu {
    let (cpu1, server1) = match at_deadline {
        Some((cpu, server)) => (cpu, server),
        None => (process_cpu_time(), server_cpu_time(&cfg.server_cpu)),
    };
    let cpu = (cpu1.saturating_sub(cpu0)).as_secs_f64();
    let server_cpu = server0.and_then(|s0| {
        let s1 = server1?;
        // The tree's time only grows; less at the end means a process left it
        // (reaped by another process), and the difference would be wrong.
        s1.checked_sub(s0).map(|d| d.as_secs_f64()).ok_or_else(|| {
            format!(
                "the server's processes used {:.2} s of CPU at the window's start and {:.2} s at its end (a process left the server's tree): not measured",
                s0.as_secs_f64(),
                s1.as_secs_f64()
            )
        })
    });
    WindowCpu {
        client_s: cpu,
        server_s: server_cpu,
    }
}

/// The settings a (threads, scale) run in `mode` on database `db` records;
/// `connection_ms`: pgbench's initial connection time.
fn run_settings(
    cfg: &RunConfig,
    info: &ServerInfo,
    mode: &Mode,
    (threads, scale): (u32, u32),
    db: String,
    connection_ms: f64,
) -> RunSettings {
    let encrypt = mode.encrypt;
    RunSettings {
        workload: cfg.workload.name().to_string(),
        threads,
        encrypt: encrypt.name(),
        encrypted_columns: if encrypt.algorithm().is_some() {
            if cfg.workload.is_pgbench() {
                crate::schema::pgbench::Fillers::of(cfg.data.columns)
                    .map_or_else(|_| String::new(), |f| f.meta().to_string())
            } else {
                cfg.data.columns.describe()
            }
        } else {
            String::new()
        },
        database: db,
        // sysbench's data set and ranges; a pgbench workload has its scale.
        tables: (!cfg.workload.is_pgbench()).then_some(cfg.data.tables),
        table_size: (!cfg.workload.is_pgbench()).then_some(cfg.data.table_size),
        range_size: (!cfg.workload.is_pgbench()).then_some(cfg.options.range_size),
        options: workload_options(&cfg.options),
        rand_type: format!("{:?}", cfg.rand_type).to_lowercase(),
        rand_seed: cfg.rand_seed,
        rate: cfg.rate,
        tls: mode.tls.as_ref().map(|t| TlsInfo {
            version: t.version.clone(),
            cipher: t.cipher.clone(),
            mode: cfg.tls_mode,
        }),
        at_rest: cfg.at_rest_info.clone(),
        engine: info.engine.clone(),
        server_version: info.version.clone(),
        server_settings: info.settings.clone(),
        iops_cap: cfg.iops_cap.clone(),
        shared_with: cfg.shared_with.clone(),
        pgbench: cfg.workload.pgbench_script().map(|script| PgbenchRun {
            script: script.to_string(),
            scale,
            query_mode: if cfg.options.db_ps_mode.prepares() {
                "prepared"
            } else {
                "simple"
            }
            .to_string(),
            initial_connection_ms: connection_ms,
            // pgbench's -t: a run by count (config checked that the threads divide it).
            transactions_per_client: (cfg.time.is_zero() && cfg.events > 0)
                .then(|| cfg.events / u64::from(threads.max(1))),
        }),
    }
}

/// The server's CPU time so far, or why it is not known.
fn server_cpu_time(source: &ServerCpu) -> Result<Duration, String> {
    match source {
        ServerCpu::Process(p) => p.cpu_time(),
        ServerCpu::Unavailable(why) => Err(why.clone()),
    }
}

/// The workload options as the result records them.
pub(crate) fn workload_options(o: &Options) -> WorkloadOptions {
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

#[cfg(test)]
mod tests {
    use super::{slots, workload_options};

    #[test]
    fn the_report_fixtures_record_sysbench_default_options_as_a_run_does() {
        assert_eq!(
            crate::report::model::fixtures::options(),
            workload_options(&crate::workload::Options::default())
        );
    }

    #[test]
    fn the_control_run_sits_half_a_round_from_the_baseline() {
        assert_eq!(slots(3, None), [(0, false), (1, false), (2, false)]);
        assert_eq!(slots(1, Some(0)), [(0, false), (0, true)]);
        assert_eq!(slots(2, Some(0)), [(0, false), (1, false), (0, true)]);
        assert_eq!(
            slots(3, Some(0)),
            [(0, false), (1, false), (0, true), (2, false)]
        );
        // The baseline second in the given order: the order is kept.
        assert_eq!(
            slots(3, Some(1)),
            [(0, false), (1, false), (2, false), (1, true)]
        );
    }
}
