//! What the bench files share: the criterion configuration and its quick mode.

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput};

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

/// One criterion group `name` over `sizes` (bytes): for each size, sets the group's
/// throughput to that many bytes and calls `bench(group, size)`, which adds that
/// size's benchmarks (one per backend).
#[allow(dead_code, reason = "not every bench file measures over a size list")]
pub fn per_size(
    c: &mut Criterion,
    name: String,
    sizes: &[usize],
    mut bench: impl FnMut(&mut BenchmarkGroup<'_, WallTime>, usize),
) {
    let mut group = c.benchmark_group(name);
    for &size in sizes {
        group.throughput(Throughput::Bytes(size as u64));
        bench(&mut group, size);
    }
    group.finish();
}
