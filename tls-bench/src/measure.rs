//! Measurement: latency histograms (HdrHistogram, nanoseconds) that workers
//! record into and merge, and thread CPU time.

use std::time::Duration;

use hdrhistogram::Histogram;

/// A latency aggregate: every sample in ns, 3 significant digits, up to 1 hour.
#[derive(Clone, Debug)]
pub struct Latency {
    hist: Histogram<u64>,
}

impl Default for Latency {
    fn default() -> Self {
        Self::new()
    }
}

impl Latency {
    /// An empty aggregate.
    pub fn new() -> Self {
        Latency {
            // 1 ns .. 1 h at 3 significant digits; the bounds are constants that
            // hdrhistogram accepts, so this cannot fail.
            hist: Histogram::new_with_bounds(1, 3_600_000_000_000, 3)
                .expect("constant bounds that hdrhistogram accepts"),
        }
    }

    /// Records one sample (saturating at the upper bound).
    pub fn record(&mut self, d: Duration) {
        let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX).max(1);
        self.hist.saturating_record(ns);
    }

    /// Adds every sample of `other`.
    pub fn merge(&mut self, other: &Latency) {
        // Same bounds on both sides, so `add` cannot fail; saturate if it ever did.
        if self.hist.add(&other.hist).is_err() {
            for v in other.hist.iter_recorded() {
                self.hist
                    .saturating_record_n(v.value_iterated_to(), v.count_at_value());
            }
        }
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    /// Mean, µs.
    pub fn mean_us(&self) -> f64 {
        self.hist.mean() / 1e3
    }

    /// The `q` quantile (0..=1), µs.
    pub fn quantile_us(&self, q: f64) -> f64 {
        self.hist.value_at_quantile(q) as f64 / 1e3
    }
}

/// CPU time consumed so far by the calling thread (CLOCK_THREAD_CPUTIME_ID).
///
/// # Errors
/// The operating system's error if the clock cannot be read.
pub fn thread_cpu() -> std::io::Result<Duration> {
    let ts = nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map_err(std::io::Error::from)?;
    Ok(Duration::from(ts))
}

/// [`thread_cpu`] for hot paths: zero if the clock cannot be read. Callers check
/// the clock once with [`thread_cpu`] before relying on this.
pub fn thread_cpu_now() -> Duration {
    thread_cpu().unwrap_or(Duration::ZERO)
}

/// User and system CPU time of the calling thread so far (getrusage RUSAGE_THREAD).
///
/// # Errors
/// The operating system's error.
pub fn thread_user_system() -> std::io::Result<(Duration, Duration)> {
    use nix::sys::resource::{UsageWho, getrusage};
    let u = getrusage(UsageWho::RUSAGE_THREAD).map_err(std::io::Error::from)?;
    let tv = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(t.tv_sec().max(0) as u64)
            + Duration::from_micros(t.tv_usec().max(0) as u64)
    };
    Ok((tv(u.user_time()), tv(u.system_time())))
}
