//! What the bench files share: the criterion configuration and its quick mode.

use std::time::Duration;

use criterion::Criterion;

/// criterion's defaults (3 s warm-up, 5 s measurement, 100 samples per point),
/// or, with `ENCBENCH_BENCH_QUICK` set in the environment, a quick mode of
/// 0.5 s warm-up, 1 s measurement and 20 samples per point.
pub fn config() -> Criterion {
    let c = Criterion::default();
    if std::env::var_os("ENCBENCH_BENCH_QUICK").is_some() {
        c.warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(1))
            .sample_size(20)
    } else {
        c
    }
}
