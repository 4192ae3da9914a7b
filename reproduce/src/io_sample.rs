//! What one of report 004's runs read: the buffer pool's miss rate and the
//! data device's reads over the run (the counters of [`super::buffer_pool`]
//! and [`super::diskstats`] before and after the `oltp run` of one profile at
//! one thread count), and per (profile, thread count) the median over the
//! rounds. A miss rate, not QPS, decides whether a run
//! counts as IO-bound ([`IO_BOUND_MIN_MISS_PCT`]).

use serde::Serialize;

use super::buffer_pool::PoolCounters;
use super::diskstats::DeviceCounters;

/// The miss rate from which a run counts as IO-bound, % of buffer-pool page
/// requests: oltp_read_write makes about 130 page requests per transaction
/// here (measured: 36,806 requests/s at 5,582 QPS, 20 queries per
/// transaction), so 1% is about one data-file read per transaction; below
/// it nearly every transaction runs from memory. The cached profile counts
/// as cached below it.
pub const IO_BOUND_MIN_MISS_PCT: f64 = 1.0;

/// The counters before or after a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Counters {
    /// The server's buffer pool.
    pub pool: PoolCounters,
    /// The data directory's device, or why there is none.
    pub device: Result<DeviceCounters, String>,
}

/// One run's reads: a grid (profile) at one thread count in one round, from
/// the counters before and after its `oltp run --threads N` (its warm-up and
/// connections included).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IoSample {
    /// The grid (`cached`, `io-bound`).
    pub grid: String,
    /// The run's client threads.
    pub threads: u32,
    /// The round, from 1.
    pub round: u32,
    /// Wall-clock seconds between the two readings.
    pub seconds: f64,
    /// Buffer-pool page requests (`Innodb_buffer_pool_read_requests`).
    pub read_requests: u64,
    /// Of them, misses read from the data files (`Innodb_buffer_pool_reads`).
    pub pool_reads: u64,
    /// pool_reads / read_requests x 100.
    pub miss_pct: f64,
    /// The data directory's device (e.g. `vda`), or `null`.
    pub device: Option<String>,
    /// Reads the device completed (every process's, the server's nearly all
    /// while it runs).
    pub device_reads: Option<u64>,
    /// device_reads / seconds.
    pub device_reads_per_s: Option<f64>,
    /// Average time per device read, ms (`iostat`'s `r_await`: ms spent
    /// reading / reads).
    pub device_read_await_ms: Option<f64>,
    /// Why there are no device figures, when there are none.
    pub device_unavailable: Option<String>,
}

impl IoSample {
    /// The reads of `grid` at `threads` in `round` between `before` and
    /// `after`, `seconds` apart.
    pub fn between(
        grid: &str,
        threads: u32,
        round: u32,
        before: &Counters,
        after: &Counters,
        seconds: f64,
    ) -> IoSample {
        let read_requests = after
            .pool
            .read_requests
            .saturating_sub(before.pool.read_requests);
        let pool_reads = after.pool.reads.saturating_sub(before.pool.reads);
        let dev = match (&before.device, &after.device) {
            (Ok(b), Ok(a)) if a.name == b.name => Ok((
                a.name.clone(),
                a.reads.saturating_sub(b.reads),
                a.read_ms.saturating_sub(b.read_ms),
            )),
            (Err(e), _) | (_, Err(e)) => Err(e.clone()),
            _ => Err("the data directory's device changed during the run".into()),
        };
        let ok = dev.as_ref().ok();
        IoSample {
            grid: grid.to_string(),
            threads,
            round,
            seconds,
            read_requests,
            pool_reads,
            miss_pct: pct(pool_reads, read_requests),
            device: ok.map(|d| d.0.clone()),
            device_reads: ok.map(|d| d.1),
            device_reads_per_s: ok.map(|d| d.1 as f64 / seconds.max(1e-9)),
            device_read_await_ms: ok.and_then(|d| (d.1 > 0).then(|| d.2 as f64 / d.1 as f64)),
            device_unavailable: dev.err(),
        }
    }
}

fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64 * 100.0
    }
}

/// One profile's reads at one thread count over its rounds: medians.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfileIo {
    /// The grid.
    pub grid: String,
    /// The client threads.
    pub threads: u32,
    /// Rounds measured.
    pub rounds: usize,
    /// Median miss rate, %.
    pub miss_pct: f64,
    /// Median device reads per second, when known.
    pub device_reads_per_s: Option<f64>,
    /// Median ms per device read, when known.
    pub device_read_await_ms: Option<f64>,
    /// Whether the median miss rate reaches [`IO_BOUND_MIN_MISS_PCT`].
    pub io_bound: bool,
}

/// The medians of `grid`'s samples at `threads`; `None` without any.
pub fn profile(samples: &[IoSample], grid: &str, threads: u32) -> Option<ProfileIo> {
    let mine: Vec<&IoSample> = samples
        .iter()
        .filter(|s| s.grid == grid && s.threads == threads)
        .collect();
    if mine.is_empty() {
        return None;
    }
    let miss_pct = median(mine.iter().map(|s| Some(s.miss_pct)))?;
    Some(ProfileIo {
        grid: grid.to_string(),
        threads,
        rounds: mine.len(),
        miss_pct,
        device_reads_per_s: median(mine.iter().map(|s| s.device_reads_per_s)),
        device_read_await_ms: median(mine.iter().map(|s| s.device_read_await_ms)),
        io_bound: miss_pct >= IO_BOUND_MIN_MISS_PCT,
    })
}

/// The median of the known values (the mean of the middle two for an even
/// count); `None` when none is known.
fn median(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let mut v: Vec<f64> = values.flatten().collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

impl ProfileIo {
    /// The profile in words, e.g. `io-bound at 16 threads: buffer-pool miss
    /// rate 5.00% (at or above the 1% from which a run counts as IO-bound),
    /// 1838 device reads/s at 0.121 ms each`.
    pub fn text(&self) -> String {
        let device = match (self.device_reads_per_s, self.device_read_await_ms) {
            (Some(r), Some(ms)) => format!(", {r:.0} device reads/s at {ms:.3} ms each"),
            (Some(r), None) => format!(", {r:.0} device reads/s"),
            _ => String::new(),
        };
        format!(
            "{} at {} threads: buffer-pool miss rate {:.2}% ({} the {IO_BOUND_MIN_MISS_PCT}% from which a run counts as IO-bound){device}",
            self.grid,
            self.threads,
            self.miss_pct,
            if self.io_bound {
                "at or above"
            } else {
                "below"
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counters(requests: u64, reads: u64, dev_reads: u64, ms: u64) -> Counters {
        Counters {
            pool: PoolCounters {
                read_requests: requests,
                reads,
            },
            device: Ok(DeviceCounters {
                name: "vda".into(),
                reads: dev_reads,
                sectors_read: 0,
                read_ms: ms,
            }),
        }
    }

    #[test]
    fn a_sample_is_the_difference_of_the_counters() {
        let s = IoSample::between(
            "io-bound",
            16,
            2,
            &counters(1_000, 10, 500, 100),
            &counters(101_000, 5_010, 5_500, 700),
            10.0,
        );
        assert_eq!((s.read_requests, s.pool_reads), (100_000, 5_000));
        assert_eq!(s.miss_pct, 5.0);
        assert_eq!(s.device_reads, Some(5_000));
        assert_eq!(s.device_reads_per_s, Some(500.0));
        assert_eq!(s.device_read_await_ms, Some(0.12));
        assert_eq!(s.device_unavailable, None);
    }

    #[test]
    fn no_device_gives_its_reason_and_the_pool_figures() {
        let mut b = counters(0, 0, 0, 0);
        b.device = Err("no block device".into());
        let s = IoSample::between("cached", 16, 1, &b, &counters(200, 1, 9, 9), 1.0);
        assert_eq!(s.miss_pct, 0.5);
        assert_eq!(s.device, None);
        assert_eq!(s.device_unavailable.as_deref(), Some("no block device"));
    }

    #[test]
    fn the_profile_is_io_bound_from_the_threshold_on() {
        let at = |grid: &str, threads, round, requests, reads| {
            IoSample::between(
                grid,
                threads,
                round,
                &counters(0, 0, 0, 0),
                &counters(requests, reads, reads, reads / 8),
                1.0,
            )
        };
        let samples = [
            at("io-bound", 16, 1, 1_000, 9),
            at("io-bound", 16, 2, 1_000, 10),
            at("io-bound", 16, 3, 1_000, 50),
            // Another thread count of the same profile: a median of its own.
            at("io-bound", 64, 1, 1_000, 2),
            at("cached", 16, 1, 1_000, 1),
        ];
        let io = profile(&samples, "io-bound", 16).expect("io-bound");
        assert_eq!((io.rounds, io.miss_pct, io.io_bound), (3, 1.0, true));
        let io64 = profile(&samples, "io-bound", 64).expect("io-bound at 64");
        assert_eq!((io64.rounds, io64.miss_pct, io64.io_bound), (1, 0.2, false));
        assert!(
            io64.text()
                .starts_with("io-bound at 64 threads: buffer-pool miss rate 0.20%"),
            "{}",
            io64.text()
        );
        let c = profile(&samples, "cached", 16).expect("cached");
        assert!(!c.io_bound);
        assert!(c.text().contains("below the 1% from which"), "{}", c.text());
        assert_eq!(profile(&samples, "other", 16), None);
        assert_eq!(profile(&samples, "cached", 32), None);
    }
}
