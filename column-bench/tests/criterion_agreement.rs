//! column-bench's single-thread ns per value agrees with criterion's figure for
//! the same call at the same size (119 bytes, sysbench's `c`) within 15%.
//!
//! Two pairs per backend (AES-256-GCM):
//!
//! - the `bare` path (the AEAD call alone) against criterion timing
//!   `Aead::open_in_place_detached` exactly as `benches/benches/aead.rs` does
//!   (`aes-256-gcm/open/<backend>/119`: same call, 24-byte AAD, valid ciphertext
//!   restored per batch with `iter_batched_ref`);
//! - the `envelope` path against criterion timing `Corpus::open_value` as
//!   `benches/benches/column.rs` does (`c:119/aes-256-gcm/open`).
//!
//! Robust on a noisy, shared 2-core machine: both sides run in this one process,
//! interleaved (column-bench, criterion, column-bench, ...) three times, and the
//! medians of the three are compared; a failing pair is measured again up to
//! four more times before the test fails. Both sides take the median of short
//! samples of about the same length (column-bench: 1000 values, 0.2 to 1.5 ms;
//! criterion here: 300 flat samples in 0.4 s, about 1.3 ms each), because on a
//! loaded machine a sample that spans a preemption is slow, and criterion's
//! default samples (5 s / 100, linear, up to ~100 ms) nearly all do: measured
//! side by side at load 4-6 on 2 cores, criterion's defaults read up to 2x
//! higher than the same call timed in short samples. Criterion writes into a
//! temporary directory (`output_directory`, a hidden criterion API meant for tests).
//! Both crates are built at opt-level 3 in the dev profile (root Cargo.toml), so
//! neither loop is a debug build.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use column_bench::measure::{Corpus, KeyMode, Operation, PathKind, Timing, Variant, measure};
use column_bench::shape::Shape;
use criterion::{BatchSize, Criterion, SamplingMode};
use encbench_registry::{Algorithm, Descriptor};

const TOLERANCE: f64 = 0.15;
const REPEATS: usize = 3;
const ATTEMPTS: usize = 5;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// criterion's median ns per iteration of `routine`, read from its estimates.json.
fn criterion_median(dir: &Path, id: &str, routine: impl FnMut(&mut criterion::Bencher<'_>)) -> f64 {
    let mut c = Criterion::default()
        .output_directory(dir)
        .without_plots()
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_millis(400))
        .sample_size(300)
        .nresamples(1000);
    let mut group = c.benchmark_group("agreement");
    group.sampling_mode(SamplingMode::Flat);
    group.bench_function(id, routine);
    group.finish();
    let path = dir.join("agreement").join(id).join("new/estimates.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("criterion wrote no {}: {e}", path.display()));
    let est: serde_json::Value = serde_json::from_str(&text).expect("estimates.json is JSON");
    est["median"]["point_estimate"]
        .as_f64()
        .expect("median point estimate")
}

fn column_bench_median(corpus: &Corpus, path: PathKind) -> f64 {
    let v = Variant {
        operation: Operation::Open,
        key_mode: KeyMode::Reused,
        path,
        batch_rows: 1,
        threads: 1,
    };
    let t = Timing {
        warmup_ms: 50,
        measure_ms: 300,
        corpus_rows: corpus.len(),
    };
    measure(corpus, &v, &t).expect("measure").quantile(0.5)
}

/// (column-bench, criterion) medians of `REPEATS` interleaved runs, for one path.
fn compare(
    d: &Descriptor,
    corpus: &Corpus,
    path: PathKind,
    dir: &Path,
    attempt: usize,
) -> (f64, f64) {
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    // aead.rs's setup: fixed key, nonce and 24-byte AAD, 119 bytes sealed once.
    let alg = d.algorithm;
    let keyed = d.new_key(&vec![0x42u8; alg.key_len()]).expect("key");
    let aead = keyed.detached().expect("AES-256-GCM is length-preserving");
    let nonce = vec![0x24u8; alg.nonce_len()];
    let aad = [0x5au8; 24];
    let mut sealed = vec![0x11u8; 119];
    let mut tag = vec![0u8; alg.tag_len()];
    aead.seal_in_place_detached(&nonce, &aad, &mut sealed, &mut tag)
        .expect("seal");
    for r in 0..REPEATS {
        ours.push(column_bench_median(corpus, path));
        let id = format!("{}-{}-{attempt}-{r}", d.backend, path.name());
        theirs.push(match path {
            PathKind::Bare => criterion_median(dir, &id, |b| {
                b.iter_batched_ref(
                    || sealed.clone(),
                    |buf| {
                        aead.open_in_place_detached(
                            black_box(&nonce),
                            black_box(&aad),
                            buf,
                            black_box(&tag),
                        )
                        .expect("open")
                    },
                    BatchSize::SmallInput,
                )
            }),
            PathKind::Envelope => {
                let mut i = 0;
                criterion_median(dir, &id, |b| {
                    b.iter_batched_ref(
                        || {
                            i = (i + 1) % corpus.len();
                            (i, corpus.envelope(i).to_vec())
                        },
                        |(i, buf)| {
                            corpus
                                .open_value(black_box(*i), black_box(buf))
                                .expect("open")
                        },
                        BatchSize::SmallInput,
                    )
                })
            }
        });
    }
    (median(ours), median(theirs))
}

#[test]
fn single_thread_ns_per_value_matches_criterion_open_within_15_percent() {
    let dir = tempfile::tempdir().expect("tempdir");
    let shape = Shape::sysbench();
    let c = &shape.columns[0];
    assert_eq!(c.lengths.mean(), 119.0);
    let descriptors: Vec<&'static Descriptor> = encbench_registry::all()
        .into_iter()
        .filter(|d| d.algorithm == Algorithm::Aes256Gcm)
        .collect();
    assert!(!descriptors.is_empty());
    let mut report = Vec::new();
    for d in descriptors {
        let corpus = Corpus::new(d, &shape.table, c, 1000).expect("corpus");
        for path in [PathKind::Bare, PathKind::Envelope] {
            let mut last = (0.0, 0.0);
            let mut ok = false;
            for attempt in 0..ATTEMPTS {
                last = compare(d, &corpus, path, dir.path(), attempt);
                let ratio = last.0 / last.1;
                eprintln!(
                    "{} {}: column-bench {:.1} ns, criterion {:.1} ns, ratio {ratio:.3} (attempt {})",
                    d.name(),
                    path.name(),
                    last.0,
                    last.1,
                    attempt + 1
                );
                if (ratio - 1.0).abs() <= TOLERANCE {
                    ok = true;
                    break;
                }
            }
            if !ok {
                report.push(format!(
                    "{} {}: column-bench {:.1} ns vs criterion {:.1} ns",
                    d.name(),
                    path.name(),
                    last.0,
                    last.1
                ));
            }
        }
    }
    assert!(
        report.is_empty(),
        "column-bench and criterion disagree by more than 15% after {ATTEMPTS} attempts: {report:?}"
    );
}
