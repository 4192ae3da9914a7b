//! The worker: one OS thread with its own current-thread runtime and one
//! connection, as sysbench runs one thread per connection (no cross-thread
//! wake-ups on the per-query path); the start gate that lets every worker
//! begin together; the event loop with its limits (time, events, rate,
//! Ctrl-C); and sysbench's handling of errors (ignorable ones restart the
//! event, a lost connection reconnects).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant, SystemTime};

use crate::columns::Codec;
use crate::driver::{ConnectOptions, Connection};
use crate::measure::{Aggregate, Live};
use crate::sb_rand::{RandType, SbRng};
use crate::workload::{Params, QueryError, Session, Workload};

/// What a worker does when a stored value fails authentication
/// (`--on-decrypt-error`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OnDecryptError {
    /// Stop the run at the first failure: the report says `complete: false`
    /// with the error (table, column, id), and `oltp` exits with 3.
    #[default]
    Stop,
    /// Count the failure in `decrypt_errors`, roll the event's transaction
    /// back and restart the event, as an ignorable error; the run goes on. A
    /// run whose every event failed is incomplete (exit 3).
    Count,
}

/// When a worker stops measuring.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Unmeasured events run until this instant first (`--warmup`).
    pub warmup_until: Option<Instant>,
    /// The measured window ends here (`--time`; `None` with `--time 0`).
    pub deadline: Option<Instant>,
    /// Events left for all workers together (`--events`; `None`: no limit).
    pub events_left: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
    /// Open loop (`--rate`): this worker's mean time between event arrivals.
    pub mean_interarrival: Option<std::time::Duration>,
    /// `--latency-limit` (pgbench's `-L`): a counted event that lasts longer
    /// is late; with `--rate`, an arrival already further behind its
    /// schedule when the worker would start it is skipped.
    pub latency_limit: Option<std::time::Duration>,
}

impl Limits {
    fn take_event(&self) -> bool {
        match &self.events_left {
            None => true,
            Some(left) => left
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok(),
        }
    }

    /// Whether an event that took `latency` is late (pgbench: `latency >
    /// latency_limit`, strictly).
    fn is_late(&self, latency: Duration) -> bool {
        self.latency_limit.is_some_and(|l| latency > l)
    }

    /// Records a completed event that started at `t0` and ended at `end`
    /// (and counts it late when it is).
    fn record(&self, agg: &mut Aggregate, t0: Instant, end: Instant) {
        agg.record_event(end - t0, end);
        if self.is_late(end - t0) {
            agg.late += 1;
        }
    }
}

/// Runs one event to completion, as sysbench does: an ignorable error
/// (deadlock, lock wait timeout) rolls back and restarts the event, a lost
/// connection reconnects (re-preparing every statement) and restarts it; each
/// is counted. A value that fails authentication is counted in
/// `decrypt_errors` (the statements of that attempt are not counted), then
/// stops the worker or, with [`OnDecryptError::Count`], restarts the event as
/// an ignorable error. Returns false when `stop` or the
/// deadline cut a restart loop short. `lost_at` is set when the connection is
/// lost and cleared when a reconnect succeeds: after a failed reconnect it says
/// when the worker stopped doing work.
#[allow(clippy::too_many_arguments)]
async fn one_event<C: Connection>(
    session: &mut Session<C>,
    rng: &mut SbRng,
    agg: &mut Aggregate,
    reconnect_window: std::time::Duration,
    on_decrypt: OnDecryptError,
    stop: &std::sync::atomic::AtomicBool,
    deadline: Option<Instant>,
    lost_at: &mut Option<Instant>,
) -> Result<bool, QueryError> {
    loop {
        let attempt = agg.mark();
        match crate::workload::scripts::event!(&mut *session, &mut *rng, &mut *agg) {
            Ok(()) => return Ok(true),
            Err(e) if e.is_ignorable() => {
                agg.errors += 1;
                // InnoDB rolled back the transaction (deadlock) or only the
                // statement (lock wait timeout): end it, so the restart begins
                // afresh rather than committing half an event.
                let _ = session.text("ROLLBACK").await;
            }
            Err(e) if e.is_decrypt_failure() => {
                // The attempt's statements served an event that failed: none
                // of them is a query of the result.
                agg.drop_attempt(&attempt);
                agg.decrypt_errors += 1;
                if on_decrypt == OnDecryptError::Stop {
                    return Err(e);
                }
                // The event's transaction is still open: end it before the
                // restart, as after an ignorable error.
                let _ = session.text("ROLLBACK").await;
            }
            Err(e) if e.is_connection_lost() => {
                let lost = Instant::now();
                *lost_at = Some(lost);
                let until = lost + reconnect_window;
                loop {
                    match session.reconnect().await {
                        Ok(()) => {
                            agg.reconnects += 1;
                            *lost_at = None;
                            break;
                        }
                        Err(_) if Instant::now() < until && !stop.load(Ordering::Relaxed) => {
                            // A blocking sleep: a worker's runtime has no time
                            // driver unless --rate needs one (see WorkerSpec::run).
                            std::thread::sleep(std::time::Duration::from_millis(100));
                        }
                        Err(e2) => {
                            let source = match e2 {
                                QueryError::Db(db) => db,
                                other => return Err(other),
                            };
                            let secs = reconnect_window.as_secs();
                            return Err(QueryError::ConnectionLost { secs, source });
                        }
                    }
                }
                let _ = e;
            }
            Err(e) => return Err(e),
        }
        if stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(false);
        }
    }
}

/// The warm-up of [`run_worker`]: events until `warm_end`, counted only
/// when one completes inside the measured window (from `warm_end` on), with
/// the same (`reconnect_window`, `on_decrypt`) as the measured ones.
///
/// # Errors
/// As [`run_worker`]'s; the failed event is taken back out of `agg`.
#[allow(clippy::too_many_arguments)]
async fn warm_up<C: Connection>(
    session: &mut Session<C>,
    rng: &mut SbRng,
    agg: &mut Aggregate,
    warm_end: Instant,
    limits: &Limits,
    (reconnect_window, on_decrypt): (std::time::Duration, OnDecryptError),
    live: &crate::measure::Live,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<(), QueryError> {
    while Instant::now() < warm_end && !stop.load(Ordering::Relaxed) {
        let mark = agg.mark();
        let before = agg.counts();
        let t0 = Instant::now();
        let done = match one_event(
            session,
            rng,
            agg,
            reconnect_window,
            on_decrypt,
            stop,
            limits.deadline,
            &mut None,
        )
        .await
        {
            Ok(done) => done,
            Err(e) => {
                agg.rewind(&mark);
                return Err(e);
            }
        };
        let end = Instant::now();
        if done && end >= warm_end && limits.deadline.is_none_or(|d| end <= d) {
            limits.record(agg, t0, end);
            live.add(&before, agg, Some(end - t0), None);
        } else {
            agg.rewind(&mark);
        }
    }
    Ok(())
}

// One function on purpose: its loop is the per-event hot path, whose state
// (the arrival queue, the next arrival, the busy flag, the mark) lives across
// iterations in locals; split, it would pass that state through calls whose
// cost callgrind would have to show to be nil. The warm-up is apart.
/// Runs events on `session` (first unmeasured ones until `limits.warmup_until`)
/// until the deadline, the event budget or `stop` (Ctrl-C), and returns the
/// worker's aggregate. An event's latency runs from its first attempt to its
/// commit, restarts included, as sysbench's. `live` counts events and queries
/// for the progress display and interval lines.
///
/// # Errors
/// A non-ignorable error, a value that does not open (with
/// [`OnDecryptError::Stop`]), or a reconnect that failed for
/// `reconnect_window`; the aggregate so far is returned with it.
pub async fn run_worker<C: Connection>(
    session: &mut Session<C>,
    mut rng: SbRng,
    limits: &Limits,
    reconnect_window: std::time::Duration,
    on_decrypt: OnDecryptError,
    live: &crate::measure::Live,
    stop: &std::sync::atomic::AtomicBool,
) -> (Aggregate, Option<QueryError>) {
    let mut agg = Aggregate::new();
    // The measured window is [end of warm-up, deadline], the same for every
    // worker: an event counts in it when it completes inside it, with all
    // its queries and its whole latency (one that began in the warm-up and
    // ends after it counts, as in sysbench; one that ends after the deadline
    // does not). Counting by completion keeps TPS and RT unbiased however
    // short the window: dropping the warm-up's last event and counting past
    // the deadline put a 2 s window's RT 5% below threads / TPS at 64 threads.
    if let Some(warm_end) = limits.warmup_until
        && let Err(e) = warm_up(
            session,
            &mut rng,
            &mut agg,
            warm_end,
            limits,
            (reconnect_window, on_decrypt),
            live,
            stop,
        )
        .await
    {
        return (agg, Some(e));
    }
    let start = limits.warmup_until.unwrap_or_else(Instant::now);
    // Open loop (--rate): events arrive at exponential intervals; an event's
    // latency starts at its arrival, so time spent queued behind a slow event
    // counts (no coordinated omission). Arrivals that are already due wait in
    // `queue` (sysbench's queue length); their times come from a generator of
    // their own, so the workload's draws do not depend on timing.
    let mut arrivals = limits.mean_interarrival.map(|_| {
        SbRng::seeded(
            u64::from(rng.uniform(0, u32::MAX - 1)),
            crate::sb_rand::RandType::Uniform,
        )
    });
    let mut next_arrival = start;
    let mut queue: std::collections::VecDeque<Instant> = std::collections::VecDeque::new();
    let draw = |next: &mut Instant, arrivals: &mut Option<SbRng>| {
        if let (Some(mean), Some(a)) = (limits.mean_interarrival, arrivals.as_mut()) {
            *next += mean.mul_f64(a.exponential());
        }
    };
    draw(&mut next_arrival, &mut arrivals);
    // Whether this worker counts in the live concurrency (`--rate`): from the
    // start of an event until it finds nothing due, so back-to-back events of a
    // backlog never show it idle.
    let mut busy = false;
    let mut set_busy = |now: bool| {
        if now != busy {
            live.set_busy(now);
            busy = now;
        }
    };
    while limits.deadline.is_none_or(|d| Instant::now() < d)
        && !stop.load(Ordering::Relaxed)
        && limits.take_event()
    {
        let t0 = if limits.mean_interarrival.is_none() {
            Instant::now()
        } else {
            let before = queue.len();
            let picked = loop {
                if queue.is_empty() {
                    if limits.deadline.is_some_and(|d| next_arrival >= d) {
                        break None;
                    }
                    // The worker's thread has nothing else to do until then; an OS
                    // sleep wakes within tens of microseconds (tokio's timer rounds
                    // to whole milliseconds, which would count as latency). Slices of
                    // at most 100 ms keep Ctrl-C prompt.
                    loop {
                        let now = Instant::now();
                        if now >= next_arrival || stop.load(Ordering::Relaxed) {
                            break;
                        }
                        std::thread::sleep(
                            (next_arrival - now).min(std::time::Duration::from_millis(100)),
                        );
                    }
                }
                let now = Instant::now();
                // Arrivals from the deadline on are neither run nor skipped
                // (pgbench stops counting skipped ones at the end of -T).
                while next_arrival <= now && limits.deadline.is_none_or(|d| next_arrival < d) {
                    queue.push_back(next_arrival);
                    draw(&mut next_arrival, &mut arrivals);
                }
                // pgbench's -L under -R: an arrival already more than the limit
                // behind its schedule (`trigger < now - latency_limit`) would be
                // late even if it completed at once, so it is skipped, never
                // sent. Each one takes an event of --events, as in pgbench's -t.
                let (mut skipped, mut budget) = (0, true);
                if let Some(limit) = limits.latency_limit {
                    while let Some(&t) = queue.front()
                        && now.saturating_duration_since(t) > limit
                    {
                        queue.pop_front();
                        skipped += 1;
                        if !limits.take_event() {
                            budget = false;
                            break;
                        }
                    }
                }
                if skipped > 0 {
                    agg.skipped += skipped;
                    live.add_skipped(skipped);
                }
                if !budget || stop.load(Ordering::Relaxed) {
                    break None;
                }
                if let Some(t0) = queue.pop_front() {
                    break Some(t0);
                }
                // Every due arrival was skipped: wait for the next.
            };
            live.requeue(before, queue.len());
            let Some(t0) = picked else {
                break;
            };
            set_busy(true);
            t0
        };
        // pgbench's schedule lag (`--rate`): from the arrival to this start.
        let lag = limits.mean_interarrival.map(|_| t0.elapsed());
        let before = agg.counts();
        let mark = agg.mark();
        let mut lost_at = None;
        let outcome = one_event(
            session,
            &mut rng,
            &mut agg,
            reconnect_window,
            on_decrypt,
            stop,
            limits.deadline,
            &mut lost_at,
        )
        .await;
        if limits.mean_interarrival.is_some() && queue.is_empty() && next_arrival > Instant::now() {
            set_busy(false);
        }
        match outcome {
            Ok(true) => {
                let end = Instant::now();
                if limits.deadline.is_some_and(|d| end > d) && !stop.load(Ordering::Relaxed) {
                    // Completed after the window: not counted (see above).
                    agg.rewind(&mark);
                    break;
                }
                limits.record(&mut agg, t0, end);
                if let Some(lag) = lag {
                    agg.record_lag(lag);
                }
                live.add(&before, &agg, Some(end - t0), lag);
            }
            Ok(false) => {
                agg.keep_statements();
                live.add(&before, &agg, None, None);
            }
            Err(e) => {
                agg.keep_statements();
                set_busy(false);
                live.requeue(queue.len(), 0);
                agg.interrupted += 1;
                match lost_at {
                    // The server went away: the worker's work ended then, not
                    // after the reconnect window (threads fairness), and the
                    // statements the cut-short event ran before it are not
                    // shown in the interval line of the moment it gave up.
                    Some(lost) => agg.exec_time = lost.saturating_duration_since(start),
                    None => {
                        agg.exec_time = start.elapsed();
                        live.add(&before, &agg, None, None);
                    }
                }
                return (agg, Some(e));
            }
        }
    }
    set_busy(false);
    live.requeue(queue.len(), 0);
    agg.keep_statements();
    // A run that reached its deadline measured exactly the window.
    let end = Instant::now();
    agg.exec_time = limits
        .deadline
        .map_or(end, |d| end.min(d))
        .saturating_duration_since(start);
    (agg, None)
}

/// The start line: every worker connects, then all start at once; the
/// deadline is set when the last one is ready.
pub(crate) struct Gate {
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
    pub(crate) fn new(parties: usize) -> Gate {
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

    /// The coordinator's side: waits for every worker, then (with `at`,
    /// `--start-at`) until the wall clock reaches `at` or `stop` is set; sets
    /// the end of the warm-up and the deadline (or aborts when a worker
    /// could not connect, or `at` had passed when the last one was ready),
    /// lets them go.
    pub(crate) fn open(
        &self,
        warmup: Duration,
        time: Duration,
        at: Option<SystemTime>,
        stop: &AtomicBool,
    ) -> Opened {
        self.ready.wait();
        let late = at.and_then(|at| wait_until(at, stop));
        // With `--start-at`, the window starts at `at` itself (plus the warm-up), the
        // instant every client agreed on, not when this thread woke after it: on a
        // loaded machine two clients wake tens of ms apart, and their windows must
        // still be one (`oltp merge` checks the overlap). The wake-up's lag is then
        // inside the window, as time this client was late.
        let (now, now_wall) = (Instant::now(), SystemTime::now());
        let lag = match (at, late) {
            (Some(at), None) => now_wall.duration_since(at).unwrap_or_default(),
            _ => Duration::ZERO,
        };
        let start = now.checked_sub(lag).unwrap_or(now) + warmup;
        let start_wall = now_wall.checked_sub(lag).unwrap_or(now_wall) + warmup;
        let (connect_error, deadline) = {
            let mut st = self.lock();
            st.warmup_until = (!warmup.is_zero()).then_some(start);
            st.abort = st.connect_error.is_some() || late.is_some();
            st.deadline = (!time.is_zero() && !st.abort).then_some(start + time);
            (st.connect_error.clone(), st.deadline)
        };
        self.go.wait();
        Opened {
            start,
            start_wall,
            deadline,
            connect_error,
            late,
        }
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

/// What [`Gate::open`] tells the coordinator.
pub(crate) struct Opened {
    /// The start of the measured window (after the warm-up).
    pub(crate) start: Instant,
    /// The same instant on the wall clock.
    pub(crate) start_wall: SystemTime,
    /// The end of the measured window, the one the workers were given
    /// (`None`: no `--time`, or the run was aborted).
    pub(crate) deadline: Option<Instant>,
    /// The first worker's connection error (the run was aborted).
    pub(crate) connect_error: Option<String>,
    /// How long `--start-at` had passed when every worker was ready (the
    /// run was aborted).
    pub(crate) late: Option<Duration>,
}

/// Sleeps until the wall clock reaches `at` (in slices of at most 100 ms, so
/// `stop` is seen); `Some(by how much)` when `at` had already passed.
fn wait_until(at: SystemTime, stop: &AtomicBool) -> Option<Duration> {
    if let Err(e) = at.duration_since(SystemTime::now()) {
        return Some(e.duration());
    }
    while !stop.load(Ordering::Relaxed) {
        match at.duration_since(SystemTime::now()) {
            Ok(left) if !left.is_zero() => {
                std::thread::sleep(left.min(Duration::from_millis(100)));
            }
            _ => break,
        }
    }
    None
}

/// What one worker thread needs. Each worker is an OS thread with its own
/// single-threaded tokio runtime and one connection, as sysbench runs one
/// thread per connection: no cross-thread wake-ups on the per-query path.
pub(crate) struct WorkerSpec<C> {
    pub(crate) opts: ConnectOptions,
    pub(crate) workload: Workload,
    pub(crate) codec: Codec,
    pub(crate) params: Params,
    pub(crate) rand_type: RandType,
    pub(crate) rand_seed: Option<u64>,
    pub(crate) events_left: Option<Arc<std::sync::atomic::AtomicU64>>,
    pub(crate) mean_interarrival: Option<Duration>,
    pub(crate) latency_limit: Option<Duration>,
    pub(crate) reconnect_window: Duration,
    pub(crate) on_decrypt: OnDecryptError,
    pub(crate) live: Arc<Live>,
    pub(crate) stop: Arc<AtomicBool>,
    pub(crate) gate: Arc<Gate>,
    /// The driver the worker connects with.
    pub(crate) driver: std::marker::PhantomData<fn() -> C>,
}

impl<C: Connection> WorkerSpec<C> {
    /// The worker thread's body: its own runtime, connect, wait at the gate,
    /// run, and return the aggregate and the error that stopped it.
    pub(crate) fn run(self) -> (Aggregate, Option<String>) {
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
            let session =
                Session::<C>::connect(self.opts.clone(), self.workload, self.codec, self.params)
                    .await;
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
                latency_limit: self.latency_limit,
            };
            let (agg, err) = run_worker(
                &mut session,
                rng,
                &limits,
                self.reconnect_window,
                self.on_decrypt,
                &self.live,
                &self.stop,
            )
            .await;
            session.close().await;
            // A value that did not open is named with its database too
            // (`sbtest_aes_256_gcm.sbtest1.c id=6: ...`), as the check before
            // the run names it.
            let db = self.opts.database.as_deref().unwrap_or("");
            let err = err.map(|e| {
                if e.is_decrypt_failure() && !db.is_empty() {
                    format!("{db}.{e}")
                } else {
                    e.to_string()
                }
            });
            (agg, err)
        })
    }
}
