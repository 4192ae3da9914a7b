//! What the bench files share: the criterion configuration and its quick mode.

use std::time::Duration;

use criterion::Criterion;

/// Whether quick mode is on (`ENCBENCH_BENCH_QUICK` set in the environment).
#[allow(dead_code, reason = "not every bench file has a size list to shorten")]
pub fn quick() -> bool {
    std::env::var_os("ENCBENCH_BENCH_QUICK").is_some()
}

/// criterion's defaults (3 s warm-up, 5 s measurement, 100 samples per point),
/// or, in quick mode ([`quick`]), 0.3 s warm-up, 0.5 s measurement and 10 samples
/// per point.
pub fn config() -> Criterion {
    let c = Criterion::default();
    if quick() {
        c.warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_millis(500))
            .sample_size(10)
    } else {
        c
    }
}
