//! `encbench-reproduce 000`'s proxy prediction runs column-bench's library
//! with `encbench_reproduce::proxy::column_bench_config` and reads its
//! report with `proxy::from_report`: both checked here, on column-bench's
//! library, and the configuration is the one of the command line the report
//! prints (`proxy::column_bench_args`).

use clap::Parser as _;
use column_bench::measure::Timing;
use encbench_reproduce::ReportId;
use encbench_reproduce::proxy::{self, COLUMNS};
use encbench_reproduce::published::Published;

/// A short measurement: ms of warm-up, ms measured, values per column.
const QUICK: Timing = Timing {
    warmup_ms: 1,
    measure_ms: 3,
    corpus_rows: 40,
};

#[test]
fn the_configuration_runs_and_its_reader_finds_every_figure() {
    let backend = "ring:aes-256-gcm";
    let cfg = proxy::column_bench_config(backend, QUICK).expect("column-bench's configuration");
    // The command line the report prints builds the same configuration.
    let mut args = proxy::column_bench_args(backend, "/x.json");
    args.extend(
        [
            "--warmup-ms",
            "1",
            "--measure-ms",
            "3",
            "--corpus-rows",
            "40",
        ]
        .map(String::from),
    );
    let cli = column_bench::cli::Cli::try_parse_from(
        std::iter::once("column-bench").chain(args.iter().map(String::as_str)),
    )
    .expect("column-bench's arguments");
    assert_eq!(
        format!(
            "{:?}",
            cli.config().expect("the command line's configuration")
        ),
        format!("{cfg:?}")
    );
    let report = column_bench::bench::run(&cfg, false).expect("column-bench runs");
    let m = proxy::from_report(
        &report.results,
        &report.capacity,
        backend,
        "column-bench ...".into(),
    )
    .expect("every figure found");
    assert_eq!(m.ns_per_open.len(), COLUMNS.len());
    assert!(
        m.ns_per_open.iter().all(|ns| *ns > 0.0),
        "{:?}",
        m.ns_per_open
    );
    assert_eq!(m.mixes.len(), 2);
    for x in &m.mixes {
        // column-bench's decrypt time is the mix's opens x ns per open of each column.
        let expect: f64 = x
            .mix
            .opens
            .iter()
            .zip(m.ns_per_open)
            .map(|(n, ns)| f64::from(*n) * ns / 1000.0)
            .sum();
        assert!(
            (x.decrypt_us_per_txn - expect).abs() <= 1e-6 * expect,
            "{}: {} vs {expect}",
            x.mix.workload,
            x.decrypt_us_per_txn
        );
        assert!(x.decryptions_per_s_per_core > 0.0);
    }
    // read_write seals, read_only does not.
    assert_eq!(m.mixes[0].seal_us_per_txn, 0.0);
    assert!(m.mixes[1].seal_us_per_txn > 0.0);
    // Every published QPS figure of 000 gets a prediction.
    let p = Published::of(ReportId::R000).expect("000.json");
    let n = p
        .figures
        .iter()
        .filter(|f| f.metric.as_deref() == Some("qps"))
        .count();
    assert_eq!(proxy::predict(&p, &m).len(), n);
    // Another backend's figures are not taken for this one's.
    let e = proxy::from_report(
        &report.results,
        &report.capacity,
        "openssl:aes-256-gcm",
        String::new(),
    )
    .expect_err("not measured");
    assert!(e.contains("no open of k for openssl:aes-256-gcm"), "{e}");
}
