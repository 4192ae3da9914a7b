//! The per-row path of a decrypting proxy, as `column-bench` and `oltp` run it:
//! `ColumnCipher::open_vec_in_place` (envelope header parse, AAD from table,
//! column and primary key, AEAD open, plaintext moved to the front) with a key
//! set up once, for every compiled-in `BACKEND:ALGORITHM`.
//!
//! One group per (column shape, algorithm): `c:119` (sysbench's `c`), `pad:59`
//! (sysbench's `pad`) and `row:c+pad` (both values of one sysbench row);
//! `BenchmarkId::new(backend, shape)`; throughput in plaintext bytes. `open`
//! opens valid envelopes, restored per batch (`iter_batched_ref`).
//!
//! `column-bench`'s single-thread `ns_per_value` (open, reused, envelope) of
//! `c` is the same code on the same sizes as `c:119/<algorithm>/open` here;
//! its `bare` path is `aead.rs`'s `<algorithm>/open/<backend>/119`.
//!
//! Quick mode: `ENCBENCH_BENCH_QUICK=1 cargo bench -p encbench-benches --bench column`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented `pub fn`; a bench has no public API"
)]

mod common;

use std::hint::black_box;

use column_bench::measure::Corpus;
use column_bench::shape::Shape;
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use encbench_registry::{Algorithm, all};

/// Values per corpus: the bench cycles through them, so primary keys (and the
/// AAD) vary as in a result set.
const ROWS: usize = 64;

fn bench_column(c: &mut Criterion) {
    let shape = Shape::sysbench();
    for algorithm in Algorithm::ALL.iter().copied() {
        let descriptors: Vec<_> = all()
            .into_iter()
            .filter(|d| d.algorithm == algorithm)
            .collect();
        if descriptors.is_empty() {
            continue;
        }
        // (backend, [c corpus, pad corpus])
        let corpora: Vec<_> = descriptors
            .iter()
            .map(|d| {
                let per_col: Vec<Corpus> = shape
                    .columns
                    .iter()
                    .map(|col| Corpus::new(d, &shape.table, col, ROWS).expect("corpus"))
                    .collect();
                (d.backend, per_col)
            })
            .collect();

        for (ci, col) in shape.columns.iter().enumerate() {
            let label = format!("{}:{}", col.name, col.lengths.describe());
            let mut group = c.benchmark_group(format!("{label}/{}/open", algorithm.name()));
            group.throughput(Throughput::Bytes(col.lengths.mean() as u64));
            for (backend, per_col) in &corpora {
                let corpus = &per_col[ci];
                let mut i = 0;
                group.bench_function(BenchmarkId::new(*backend, &label), |b| {
                    b.iter_batched_ref(
                        || {
                            i = (i + 1) % ROWS;
                            (i, corpus.envelope(i).to_vec())
                        },
                        |(i, buf)| {
                            corpus
                                .open_value(black_box(*i), black_box(buf))
                                .expect("open")
                        },
                        BatchSize::SmallInput,
                    )
                });
            }
            group.finish();
        }

        let label = "row:c+pad";
        let row_bytes: f64 = shape.columns.iter().map(|c| c.lengths.mean()).sum();
        let mut group = c.benchmark_group(format!("{label}/{}/open", algorithm.name()));
        group.throughput(Throughput::Bytes(row_bytes as u64));
        for (backend, per_col) in &corpora {
            let mut i = 0;
            group.bench_function(BenchmarkId::new(*backend, label), |b| {
                b.iter_batched_ref(
                    || {
                        i = (i + 1) % ROWS;
                        let bufs: Vec<Vec<u8>> =
                            per_col.iter().map(|c| c.envelope(i).to_vec()).collect();
                        (i, bufs)
                    },
                    |(i, bufs)| {
                        for (corpus, buf) in per_col.iter().zip(bufs.iter_mut()) {
                            corpus
                                .open_value(black_box(*i), black_box(buf))
                                .expect("open");
                        }
                    },
                    BatchSize::SmallInput,
                )
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench_column
}
criterion_main!(benches);
