//! `encbench-reproduce ID` (`oltp reproduce ID`): the checks (id, output directory, memory), the
//! private server, the data sets (reused when they verify, else prepared,
//! after a disk check), the grids, and the reports written after every step
//! (atomically, marked partial until the last), so a stop (Ctrl-C, a failed
//! run) leaves the rows measured so far, marked partial.
//!
//! By job: this file the command and one report from the checks to the last
//! write; `shared_server` the steps on one private MariaDB (000, 003);
//! `by_commands` the steps as `oltp` commands of their own (001, 004);
//! `data_sets` which data sets verify and the disk check; `arguments`
//! the `oltp prepare` / `run` / `cleanup` command lines; `sibling_tools`
//! tls-bench and column-bench through their libraries; `outputs` the reports written.

mod arguments;
mod by_commands;
mod data_sets;
mod outputs;
mod shared_server;
mod sibling_tools;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Result;
use encbench_common::ResultHeader;

use crate::cli::ReproduceArgs;
use crate::io_sample::IoSample;
use crate::plan::{Plan, Scale, Servers, comma_separated, duration_text};
use crate::published::{Published, ScaleSpec};
use crate::row::Reproduction;
use crate::{
    ReportId, at_rest_pgbench, cached_vs_io_bound, column_encryption, footprint, parse_id, proxy,
    resources, tls_footprint,
};
use encbench_oltp::at_rest::{AtRest, check_available};
use encbench_oltp::config::base_dir;
use encbench_oltp::report::Report;
use encbench_oltp::server::{Lease, LeaseError, Profile};

use arguments::prepare_args;
use outputs::{markdown_rows, scale_text, update_reproduction, write_reports};
use sibling_tools::{column_bench_prediction, tls_bench_footprint};

/// Runs `encbench-reproduce` (`oltp reproduce`); false when a reproduction stopped early (its
/// partial report is written).
///
/// # Errors
/// Bad input or a failed check (before anything runs), the server, a
/// prepare, or writing the reports.
pub async fn reproduce(a: &ReproduceArgs) -> Result<bool> {
    // Before any connection, so that no TLS configuration can panic for want of one.
    encbench_oltp::driver::install_tls_provider();
    let ids = parse_id(&a.id)?;
    // Footprint programs the user names must be there (the default directory
    // without them only skips their row, with a note).
    if let Some(dir) = a.footprint_dir.as_deref()
        && let Err(e) = tls_bench::footprint::check_present(dir)
    {
        anyhow::bail!("--footprint-dir {}: {e}", dir.display());
    }
    let all = ids.len() > 1;
    let out_root = a.out.clone().unwrap_or_else(|| {
        if all {
            PathBuf::from("results/reproduce")
        } else {
            PathBuf::from("results/reproduce").join(&a.id)
        }
    });
    let scale = Scale {
        quick: a.quick,
        time_s: a.time,
        warmup_s: a.warmup,
        repeat: a.repeat,
        threads: a.threads.clone(),
        tables: a.tables,
        table_size: a.table_size,
        pgbench_scale: a.scale,
        iops_limit: a.iops_limit,
    };
    // Ctrl-C between the runs (the runs and prepare watch it themselves).
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupted.clone();
        tokio::spawn(async move {
            if encbench_oltp::run::interrupt_signal().await {
                flag.store(true, Ordering::SeqCst);
            }
        });
    }
    let mut complete = true;
    for id in ids {
        let out = if all {
            out_root.join(id.as_str())
        } else {
            out_root.clone()
        };
        complete &= reproduce_one(a, id, &scale, &out, &interrupted).await?;
        if interrupted.load(Ordering::SeqCst) {
            break;
        }
    }
    Ok(complete)
}

/// What a report needs besides the grids: 003's footprints, 001's modes
/// and timed loads.
struct SideMeasurements {
    footprint: Result<footprint::Footprint, String>,
    tls_bench: Result<Vec<tls_bench::footprint::FootprintRow>, String>,
    at_rest: at_rest_pgbench::Context,
    /// 004's buffer-pool and device reads, one per grid, thread count and round.
    io: Vec<IoSample>,
    /// 000's column-bench measurement for the proxy prediction, or why not.
    proxy: Result<proxy::Measurement, String>,
}

/// What every step of one report's reproduction reads: the command's
/// arguments, the report, its plan and where it works and writes.
#[derive(Clone, Copy)]
struct Job<'a> {
    /// `oltp reproduce`'s arguments.
    args: &'a ReproduceArgs,
    /// The report.
    id: ReportId,
    /// Its data file.
    published: &'a Published,
    /// Its data sets and grids at the scale asked for.
    plan: &'a Plan,
    /// The private servers' base directory.
    base: &'a Path,
    /// The output directory of the report.
    out: &'a Path,
    /// Set when Ctrl-C or SIGTERM came.
    interrupted: &'a AtomicBool,
}

/// 001's at-rest modes: the ones this machine provides (of
/// [`at_rest_pgbench::MODES`]), and the encrypting ones it refuses with why (the
/// report's block-device kind first).
fn at_rest_modes() -> (Vec<AtRest>, Vec<(AtRest, String)>) {
    let mut modes = Vec::new();
    let mut refused = Vec::new();
    if let Err(e) = check_available(at_rest_pgbench::BLOCK_DEVICE, true, false) {
        refused.push((at_rest_pgbench::BLOCK_DEVICE, e.to_string()));
    }
    for m in at_rest_pgbench::MODES {
        match check_available(m, true, false) {
            Ok(()) => modes.push(m),
            Err(e) if m.encrypts() => refused.push((m, e.to_string())),
            Err(e) => println!("at-rest mode {} left out: {e}", m.name()),
        }
    }
    // A mechanism without its control still runs (against off).
    (modes, refused)
}

/// The database of a sysbench report's data set: the report's own at the
/// full scale (and at a quick scale of the same size, 004's), `q` for
/// quick, the size for overridden scales, so each size is prepared once and
/// reused.
fn sized_db(base: &str, scale: &Scale, spec: &ScaleSpec, full: &ScaleSpec) -> String {
    // The IOPS cap changes no data set.
    let shaping = Scale {
        iops_limit: None,
        ..scale.clone()
    };
    if shaping.overridden() {
        format!("{base}_{}x{}", spec.tables, spec.table_size)
    } else if scale.quick && (spec.tables, spec.table_size) != (full.tables, full.table_size) {
        format!("{base}q")
    } else {
        base.to_string()
    }
}

/// One report, from the checks to the last write.
async fn reproduce_one(
    a: &ReproduceArgs,
    id: ReportId,
    scale: &Scale,
    out: &Path,
    interrupted: &AtomicBool,
) -> Result<bool> {
    let published = Published::of(id)?;
    let spec = scale.apply(published.scale(scale.quick));
    let (plan, at_rest) = plan_of(id, &published, scale, &spec);
    let base = check_before_anything_runs(a, &plan, &spec, scale, out)?;
    print_what_runs(id, &published, &plan, &spec, scale, out);
    let mut header = Report::begin();
    let mut repro = new_reproduction(id, &published, &plan, scale, &header);
    let mut extras = SideMeasurements {
        footprint: Err("not measured yet".into()),
        tls_bench: Err("not run yet".into()),
        at_rest,
        io: Vec::new(),
        proxy: Err("not run yet".into()),
    };
    measure_with_sibling_tools(a, id, &published, out, &mut extras).await;
    let job = Job {
        args: a,
        id,
        published: &published,
        plan: &plan,
        base: &base,
        out,
        interrupted,
    };
    let (outcome, stopped) = measure_on_servers(&job, &mut repro, &mut extras).await?;
    header.end();
    repro.header = header;
    match &outcome {
        Ok(true) => repro.partial = false,
        Ok(false) => {
            repro
                .stopped
                .get_or_insert_with(|| "stopped early".to_string());
        }
        Err(e) => repro.stopped = Some(encbench_common::cli_error::error_line(e.as_ref())),
    }
    update_reproduction(id, &mut repro, &published, &plan, &extras);
    write_reports(&repro, out)?;
    let complete = outcome?;
    stopped?;
    print!("{}", markdown_rows(&repro));
    if complete {
        println!(
            "report {id} written to {}/report.{{md,json,html}}",
            out.display()
        );
    } else {
        eprintln!(
            "Error: reproduction {id} stopped early ({}): the rows measured so far are in {}/report.json, marked partial",
            repro.stopped.as_deref().unwrap_or("stopped"),
            out.display()
        );
    }
    Ok(complete)
}

/// The plan of report `id` at `spec` (`scale` applied to its data file), and
/// 001's at-rest context (the modes this machine provides, the pgbench
/// scales; the default for the other reports).
fn plan_of(
    id: ReportId,
    published: &Published,
    scale: &Scale,
    spec: &ScaleSpec,
) -> (Plan, at_rest_pgbench::Context) {
    let mut at_rest = at_rest_pgbench::Context::default();
    let plan = match id {
        ReportId::R003 => tls_footprint::plan(spec),
        ReportId::R000 => column_encryption::plan(
            published,
            spec,
            &sized_db(column_encryption::DB, scale, spec, &published.full),
        ),
        ReportId::R004 => cached_vs_io_bound::plan(
            spec,
            &sized_db(cached_vs_io_bound::DB, scale, spec, &published.full),
            published.beyond.as_ref().filter(|_| !scale.quick),
        ),
        ReportId::R001 => {
            let (modes, refused) = at_rest_modes();
            at_rest = at_rest_pgbench::Context {
                cached: scale.pgbench_scale.unwrap_or(at_rest_pgbench::CACHED_SCALE),
                large: (!scale.quick && !scale.overridden())
                    .then_some(at_rest_pgbench::LARGE_SCALE),
                modes,
                refused,
                loads: Vec::new(),
            };
            at_rest_pgbench::plan(spec, &at_rest.modes, at_rest.cached, at_rest.large)
        }
    };
    (plan, at_rest)
}

/// The checks before anything starts: the output directory `out` (created,
/// writable), the memory for the plan's most threads, and the private
/// servers' base directory (for both engines' users: 001 runs PostgreSQL
/// beside MariaDB), which it returns.
///
/// # Errors
/// A check that fails, as one line naming the fix.
fn check_before_anything_runs(
    a: &ReproduceArgs,
    plan: &Plan,
    spec: &ScaleSpec,
    scale: &Scale,
    out: &Path,
) -> Result<PathBuf> {
    std::fs::create_dir_all(out).map_err(|e| {
        anyhow::anyhow!(
            "--out {}: cannot create the directory: {e}: give a directory you can write as --out DIR",
            out.display()
        )
    })?;
    encbench_oltp::commands::check_writable(&out.join("report.json"), "--out")?;
    let max_threads = spec.threads.iter().copied().max().unwrap_or(1);
    if let Some(avail) = resources::memory_available() {
        resources::check_memory(max_threads, avail, scale.quick)?;
    }
    let base = match &a.base_dir {
        Some(d) => d.clone(),
        None => base_dir(&prepare_args(plan, a, &plan.data_sets[0])?.data),
    };
    // Both engines' users: 001 runs PostgreSQL beside MariaDB. Before any step (the
    // footprint of 003 included) writes anything.
    encbench_oltp::commands::check_base_dir(&base, false)?;
    encbench_oltp::commands::check_base_dir(&base, true)?;
    Ok(base)
}

/// The line that says what is about to run, how long it takes, and where
/// the reports go.
fn print_what_runs(
    id: ReportId,
    published: &Published,
    plan: &Plan,
    spec: &ScaleSpec,
    scale: &Scale,
    out: &Path,
) {
    println!(
        "reproduce {id} ({} mode{}): {}; {} runs of {} s (+{} s warm-up) at {} threads in {} rounds, about {} in all (data sets included), reports in {}",
        if scale.quick { "quick" } else { "full" },
        if scale.overridden() {
            ", test overrides: not the report's scale"
        } else {
            ""
        },
        published.title,
        plan.runs(),
        spec.time_s,
        spec.warmup_s,
        comma_separated(&spec.threads),
        spec.repeat,
        duration_text(plan.estimate_secs()),
        out.display()
    );
}

/// The reproduction of report `id` before anything is measured: its
/// header, title, scale and tolerance, marked partial.
fn new_reproduction(
    id: ReportId,
    published: &Published,
    plan: &Plan,
    scale: &Scale,
    header: &ResultHeader,
) -> Reproduction {
    Reproduction {
        header: header.clone(),
        report: id.as_str().to_string(),
        title: published.title.clone(),
        seed_file: published.seed_file.clone(),
        quick: scale.quick,
        partial: true,
        stopped: None,
        scale: scale_text(plan, published, scale),
        tolerance: format!(
            "{} Default tolerance {} percentage points: {}",
            crate::verdict::RULE,
            published.tolerance_pct_points,
            published.tolerance_why
        ),
        setup_differences: Vec::new(),
        rows: Vec::new(),
        identity: Vec::new(),
        measurements: serde_json::Map::new(),
        tables: Vec::new(),
        runs: Vec::new(),
        charts: Vec::new(),
    }
}

/// What the sibling tools measure for report `id`, into `extras`: 003's
/// footprints (the installation's and tls-bench's), 000's column-bench
/// measurement for the proxy prediction; a tool that is missing or fails
/// leaves why, printed.
async fn measure_with_sibling_tools(
    a: &ReproduceArgs,
    id: ReportId,
    published: &Published,
    out: &Path,
    extras: &mut SideMeasurements,
) {
    if id == ReportId::R003 {
        extras.footprint = footprint::measure().map_err(|e| format!("{e:#}"));
        match &extras.footprint {
            Ok(f) => println!(
                "footprint: TLS packages {} KiB of {} KiB ({:.1}%)",
                f.tls_kib, f.total_kib, f.tls_share_pct
            ),
            Err(e) => println!("footprint: not measured: {e}"),
        }
        extras.tls_bench = tls_bench_footprint(a.footprint_dir.as_deref()).await;
        if let Err(e) = &extras.tls_bench {
            println!("tls-bench footprint: not run: {e}");
        }
    }
    if id == ReportId::R000 {
        let backend = published.backends.first().map_or("", String::as_str);
        extras.proxy = column_bench_prediction(backend, out).await;
        match &extras.proxy {
            Ok(m) => println!(
                "column-bench: {}: {} decryptions per second per core (oltp_read_only, every column)",
                m.backend,
                m.mixes
                    .first()
                    .map_or(0.0, |x| x.decryptions_per_s_per_core)
                    .round()
            ),
            Err(e) => println!("column-bench proxy prediction: not run: {e}"),
        }
    }
}

/// The data sets and grids of `job` on the servers its plan names: one
/// private MariaDB held throughout ([`Servers::Shared`]: 000, 003), or the
/// servers of each command (001, 004). Returns the outcome (false: stopped
/// early) and how the shared server stopped.
///
/// # Errors
/// The shared server does not open (nothing measured yet).
async fn measure_on_servers(
    job: &Job<'_>,
    repro: &mut Reproduction,
    extras: &mut SideMeasurements,
) -> Result<(Result<bool>, std::result::Result<(), LeaseError>)> {
    if job.plan.servers == Servers::Shared {
        let server = Lease::open(None, job.base, AtRest::Off, Profile::Default, None).await?;
        if let Some(line) = encbench_oltp::commands::shared_warning(&server.shared_with) {
            eprintln!("{line}");
        }
        let outcome = shared_server::measure(job, &server, repro, extras).await;
        Ok((outcome, server.finish().await))
    } else {
        let outcome = by_commands::measure_by_commands(job, repro, extras).await;
        Ok((outcome, Ok(())))
    }
}
