//! `oltp reproduce ID`: the checks (id, output directory, memory), the
//! private server, the data sets (reused when they verify, else prepared,
//! after a disk check), the grids, and the reports written after every step
//! (atomically, marked partial until the last), so a stop (Ctrl-C, a failed
//! run) leaves the rows measured so far, marked partial.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Result, bail};
use clap::Parser as _;
use serde_json::Value;

use crate::at_rest::{AtRest, check_available};
use crate::cli::{CleanupArgs, Cli, Command, PrepareArgs, ReproduceArgs, RunArgs};
use crate::columns::Encrypt;
use crate::config::{RunConfig, base_dir, data_set, parse_encrypts};
use crate::driver::{Connection, DbDriver, with_driver};
use crate::report::{Report, RunKey, RunResult};
use crate::reproduce::io_sample::{self, IoSample};
use crate::reproduce::plan::{DataSetStep, Plan, Scale, Servers, comma_separated, duration_text};
use crate::reproduce::published::{Published, ScaleSpec};
use crate::reproduce::row::{GridRun, Reproduction};
use crate::reproduce::{
    ReportId, at_rest_pgbench, buffer_pool, cached_vs_io_bound, column_encryption, diskstats,
    footprint, html, json, markdown, parse_id, proxy, resources, tls_footprint,
};
use crate::run::{Observer, run_grid};
use crate::schema;
use crate::schema::pgbench;
use crate::server::{Lease, Profile};

use super::output::write_atomically;

/// Runs `oltp reproduce`; false when a reproduction stopped early (its
/// partial report is written).
///
/// # Errors
/// Bad input or a failed check (before anything runs), the server, a
/// prepare, or writing the reports.
pub async fn reproduce(a: &ReproduceArgs) -> Result<bool> {
    let ids = parse_id(&a.id)?;
    // A sibling tool the user names must be there (one left to its default
    // that is missing only skips its step, with a note).
    let named = [
        (
            &a.tls_bench,
            "--tls-bench",
            "tls-bench",
            "-p tls-bench -p tls-bench-footprint",
        ),
        (
            &a.column_bench,
            "--column-bench",
            "column-bench",
            "-p column-bench",
        ),
    ];
    for (given, flag, name, packages) in named {
        if let Some(exe) = given.as_deref()
            && let Some(why) = not_runnable(exe)
        {
            anyhow::bail!(
                "{flag} {}: {why}: give the {name} binary (built by `cargo build --release {packages}`), or omit {flag} for the one next to oltp",
                exe.display()
            );
        }
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
            if crate::run::interrupt_signal().await {
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
struct Extras {
    footprint: Result<footprint::Footprint, String>,
    tls_bench: Result<Value, String>,
    at_rest: at_rest_pgbench::Context,
    /// 004's buffer-pool and device reads, one per grid, thread count and round.
    io: Vec<IoSample>,
    /// 000's column-bench measurement for the proxy prediction, or why not.
    proxy: Result<proxy::Measurement, String>,
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
    let mut at_rest = at_rest_pgbench::Context::default();
    let plan = match id {
        ReportId::R003 => tls_footprint::plan(&spec),
        ReportId::R000 => column_encryption::plan(
            &published,
            &spec,
            &sized_db(column_encryption::DB, scale, &spec, &published.full),
        ),
        ReportId::R004 => cached_vs_io_bound::plan(
            &spec,
            &sized_db(cached_vs_io_bound::DB, scale, &spec, &published.full),
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
            at_rest_pgbench::plan(&spec, &at_rest.modes, at_rest.cached, at_rest.large)
        }
    };
    // Checks before anything starts: the output directory, the memory.
    std::fs::create_dir_all(out).map_err(|e| {
        anyhow::anyhow!(
            "--out {}: cannot create the directory: {e}: give a directory you can write as --out DIR",
            out.display()
        )
    })?;
    super::output::check_writable(&out.join("report.json"), "--out")?;
    let max_threads = spec.threads.iter().copied().max().unwrap_or(1);
    if let Some(avail) = resources::memory_available() {
        resources::check_memory(max_threads, avail, scale.quick)?;
    }
    let base = match &a.base_dir {
        Some(d) => d.clone(),
        None => base_dir(&prepare_args(&plan, a, &plan.data_sets[0])?.data),
    };
    // Both engines' users: 001 runs PostgreSQL beside MariaDB. Before any step (the
    // footprint of 003 included) writes anything.
    super::check_base_dir(&base, false)?;
    super::check_base_dir(&base, true)?;
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
    let mut header = Report::begin();
    let mut repro = Reproduction {
        header: header.clone(),
        report: id.as_str().to_string(),
        title: published.title.clone(),
        seed_file: published.seed_file.clone(),
        quick: scale.quick,
        partial: true,
        stopped: None,
        scale: scale_text(&plan, &published, scale),
        tolerance: format!(
            "{} Default tolerance {} percentage points: {}",
            crate::reproduce::verdict::RULE,
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
    };
    let mut extras = Extras {
        footprint: Err("not measured yet".into()),
        tls_bench: Err("not run yet".into()),
        at_rest,
        io: Vec::new(),
        proxy: Err("not run yet".into()),
    };
    if id == ReportId::R003 {
        extras.footprint = footprint::measure().map_err(|e| format!("{e:#}"));
        match &extras.footprint {
            Ok(f) => println!(
                "footprint: TLS packages {} KiB of {} KiB ({:.1}%)",
                f.tls_kib, f.total_kib, f.tls_share_pct
            ),
            Err(e) => println!("footprint: not measured: {e}"),
        }
        extras.tls_bench = tls_bench_footprint(a.tls_bench.as_deref(), out).await;
        if let Err(e) = &extras.tls_bench {
            println!("tls-bench footprint: not run: {e}");
        }
    }
    if id == ReportId::R000 {
        let backend = published.backends.first().map_or("", String::as_str);
        extras.proxy = column_bench_prediction(a.column_bench.as_deref(), backend, out).await;
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
    let (outcome, stopped) = if plan.servers == Servers::Shared {
        let server = Lease::open(None, &base, AtRest::Off, Profile::Default, None).await?;
        if let Some(line) = super::shared_warning(&server.shared_with) {
            eprintln!("{line}");
        }
        let outcome = measure(
            a,
            id,
            &published,
            &plan,
            &server,
            &base,
            out,
            &mut repro,
            &extras,
            interrupted,
        )
        .await;
        (outcome, server.finish().await)
    } else {
        let outcome = measure_by_commands(
            a,
            id,
            &published,
            &plan,
            &base,
            out,
            &mut repro,
            &mut extras,
            interrupted,
        )
        .await;
        (outcome, Ok(()))
    };
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
    fill(id, &mut repro, &published, &plan, &extras);
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

/// The data sets, then every grid; after each step the reports are written
/// (partial). False when a run stopped early or Ctrl-C came.
#[allow(clippy::too_many_arguments)]
async fn measure(
    a: &ReproduceArgs,
    id: ReportId,
    published: &Published,
    plan: &Plan,
    server: &Lease,
    base: &Path,
    out: &Path,
    repro: &mut Reproduction,
    extras: &Extras,
    interrupted: &AtomicBool,
) -> Result<bool> {
    let url = server.url.clone();
    // Which data sets verify (reused), which must be loaded.
    let mut missing: Vec<&DataSetStep> = Vec::new();
    for step in &plan.data_sets {
        let pa = prepare_args(plan, a, step)?;
        match verify(&url, &pa).await? {
            Ok(db) => println!(
                "reusing data set {db}: verified ({} x {} rows, prepare finished)",
                crate::report::count(u64::from(plan.scale.tables), "table", "tables"),
                plan.scale.table_size
            ),
            Err(why) => {
                println!(
                    "data set for --encrypt {} to prepare: {}",
                    step.encrypt,
                    without_fix(&why)
                );
                missing.push(step);
            }
        }
    }
    check_missing_fit(
        plan,
        repro.quick,
        &missing,
        base,
        &format!("report {id}'s data sets ({} rows each)", plan.rows()),
    )?;
    for step in missing {
        if interrupted.load(Ordering::SeqCst) {
            repro.stopped = Some("interrupted (Ctrl-C or SIGTERM) before the runs".into());
            return Ok(false);
        }
        let pa = prepare_args(plan, a, step)?;
        let (data, e) = data_set_of(&pa)?;
        let exists = with_driver!(DbDriver::of_url(&url), C => {
            schema::database_exists(
                &mut schema::connect::<C>(&url, None, None).await?,
                C::DRIVER.dialect(),
                &data.database(e),
            )
            .await?
        });
        if exists {
            println!("dropping the unfinished or different {}", data.database(e));
            schema::cleanup(&url, &data, &[e]).await?;
        }
        // Its disk was checked for every data set of the plan at once.
        super::prepare::prepare(&pa, &url, None).await?;
    }
    for grid in &plan.grids {
        if interrupted.load(Ordering::SeqCst) {
            repro.stopped = Some("interrupted (Ctrl-C or SIGTERM)".into());
            return Ok(false);
        }
        let argv = run_argv(plan, a, &grid.args);
        let command = argv[..argv.len() - 2].join(" ");
        println!("running {}: `{command}`", grid.name);
        let ra = run_args(&argv)?;
        let mut cfg = RunConfig::from_args(&ra)?;
        cfg.url = url.clone().into();
        cfg.server_cpu = super::private_server_cpu(server, &ra.data);
        // Every other oltp on the server, from before this reproduction and since.
        let mut shared: std::collections::BTreeSet<u32> =
            server.shared_with.iter().copied().collect();
        shared.extend(server.shared_with_now());
        cfg.shared_with = shared.iter().copied().collect();
        let total = plan.scale.threads.len() as u64
            * u64::from(plan.scale.repeat)
            * u64::from(grid.runs_per_round);
        let progress = Arc::new(Progress {
            total,
            done: std::sync::atomic::AtomicU64::new(0),
        });
        let mut head = Report::begin();
        let results = run_grid(&cfg, progress).await;
        head.end();
        let mut results = results?;
        // One that came during the grid (and is still there) shared it too.
        let during = server.shared_with_now();
        if let Some(line) = super::shared_warning(
            &during
                .iter()
                .copied()
                .filter(|p| !shared.contains(p))
                .collect::<Vec<_>>(),
        ) {
            eprintln!("{line}");
        }
        shared.extend(during);
        for r in &mut results {
            r.settings.shared_with = shared.iter().copied().collect();
        }
        let report = Report::new(head, results);
        let complete = report.complete;
        let why = report.runs.iter().find_map(|r| r.error.clone());
        repro.runs.push(GridRun {
            name: grid.name.clone(),
            command,
            report,
        });
        fill(id, repro, published, plan, extras);
        write_reports(repro, out)?;
        if !complete {
            repro.stopped = Some(why.unwrap_or_else(|| "a run stopped early".into()));
            return Ok(false);
        }
    }
    Ok(true)
}

/// 001 and 004: every step an `oltp prepare`/`oltp run` command of its own
/// (each opens the servers its arguments name: an at-rest mode's private
/// PostgreSQL, the private MariaDB with a `--profile`), the data sets
/// verified first and loaded when they do not (001's loads timed), then the
/// grids; after each step the reports are written (partial). False when a
/// run stopped early or Ctrl-C came.
#[allow(clippy::too_many_arguments)]
async fn measure_by_commands(
    a: &ReproduceArgs,
    id: ReportId,
    published: &Published,
    plan: &Plan,
    base: &Path,
    out: &Path,
    repro: &mut Reproduction,
    extras: &mut Extras,
    interrupted: &AtomicBool,
) -> Result<bool> {
    // 001: every mode's server started once and held to the end, so the
    // commands inside find it running and use it (the loads are timed
    // without a server start). 004 holds none: each run restarts the server
    // with its profile.
    let mut held: Vec<(AtRest, Lease)> = Vec::new();
    if plan.servers == Servers::PerCommand {
        for step in &plan.data_sets {
            let pa = prepare_args(plan, a, step)?;
            let mode = pa.data.at_rest_mode();
            if held.iter().any(|(m, _)| *m == mode) {
                continue;
            }
            match super::open_lease(&pa.data).await {
                Ok(l) => held.push((mode, l)),
                Err(e) => {
                    for (_, l) in held {
                        let _ = l.finish().await;
                    }
                    return Err(e);
                }
            }
        }
    }
    let outcome = measure_steps(
        a,
        id,
        published,
        plan,
        base,
        out,
        repro,
        extras,
        interrupted,
        &held,
    )
    .await;
    let mut stopped = Ok(());
    for (_, l) in held {
        let r = l.finish().await;
        if stopped.is_ok() {
            stopped = r;
        }
    }
    let complete = outcome?;
    stopped?;
    Ok(complete)
}

/// The steps of [`measure_by_commands`], with the servers it holds.
#[allow(clippy::too_many_arguments)]
async fn measure_steps(
    a: &ReproduceArgs,
    id: ReportId,
    published: &Published,
    plan: &Plan,
    base: &Path,
    out: &Path,
    repro: &mut Reproduction,
    extras: &mut Extras,
    interrupted: &AtomicBool,
    held: &[(AtRest, Lease)],
) -> Result<bool> {
    let held_url = |pa: &PrepareArgs| {
        held.iter()
            .find(|(m, _)| *m == pa.data.at_rest_mode())
            .map(|(_, l)| l.url.clone())
    };
    let mut missing: Vec<&DataSetStep> = Vec::new();
    for step in &plan.data_sets {
        let pa = prepare_args(plan, a, step)?;
        let got = match held_url(&pa) {
            Some(url) => verify_pgbench(&url, &pa).await,
            None => {
                let lease = super::open_lease(&pa.data).await?;
                let got = if plan.db.is_empty() {
                    verify_pgbench(&lease.url, &pa).await
                } else {
                    verify(&lease.url, &pa).await
                };
                lease.finish().await?;
                got
            }
        };
        let what = step_name(plan, &pa);
        match got? {
            Ok(db) => println!("reusing data set {db} ({what}): verified, prepare finished"),
            Err(why) => {
                println!("data set {what} to prepare: {}", without_fix(&why));
                missing.push(step);
            }
        }
    }
    check_missing_fit(
        plan,
        repro.quick,
        &missing,
        base,
        &format!("report {id}'s {} data sets to load", missing.len()),
    )?;
    for step in missing {
        if interrupted.load(Ordering::SeqCst) {
            repro.stopped = Some("interrupted (Ctrl-C or SIGTERM) before the runs".into());
            return Ok(false);
        }
        let pa = prepare_args(plan, a, step)?;
        // An unfinished or different data set of the same name goes first.
        let t0 = match held_url(&pa) {
            Some(url) => {
                let ca = CleanupArgs {
                    data: pa.data.clone(),
                    encrypt: vec![step.encrypt.clone()],
                    tls: pa.tls,
                };
                super::cleanup::cleanup(&ca, &url).await?;
                let t0 = std::time::Instant::now();
                super::prepare::prepare(&pa, &url, None).await?;
                super::at_rest::verify(&pa, &url, false).await?;
                t0
            }
            None => {
                run_command(&cleanup_argv(plan, a, step)).await?;
                let t0 = std::time::Instant::now();
                if !run_command(&prepare_argv(plan, a, step)).await? {
                    bail!("oltp prepare of {} stopped", step_name(plan, &pa));
                }
                t0
            }
        };
        let secs = t0.elapsed().as_secs_f64();
        if let (ReportId::R001, Some(scale)) = (id, pa.scale) {
            extras
                .at_rest
                .loads
                .push((pa.data.at_rest_mode(), scale, secs));
        }
    }
    let json_out = |i: usize| out.join(format!("grid-{}.json", i + 1));
    match plan.servers {
        Servers::PerCommandInterleaved => {
            let n = plan.grids.len();
            let mut runs: Vec<Vec<RunResult>> = vec![Vec::new(); n];
            let mut heads: Vec<_> = (0..n).map(|_| Report::begin()).collect();
            for round in 0..plan.scale.repeat {
                for k in 0..n {
                    let i = (k + round as usize) % n;
                    if interrupted.load(Ordering::SeqCst) {
                        repro.stopped = Some("interrupted (Ctrl-C or SIGTERM)".into());
                        return Ok(false);
                    }
                    let grid = &plan.grids[i];
                    // One command per thread count, so the counters around
                    // each give that thread count's reads.
                    let commands: Vec<(u32, Vec<String>)> = grid
                        .threads
                        .iter()
                        .map(|&t| {
                            let args = with_threads(&grid.args, t);
                            (t, command_run_argv(plan, a, &args, 1, &json_out(i)))
                        })
                        .collect();
                    println!(
                        "round {}/{} of {}: `{}` (one command per thread count: {})",
                        round + 1,
                        plan.scale.repeat,
                        grid.name,
                        command_run_argv(plan, a, &grid.args, 1, &json_out(i)).join(" "),
                        comma_separated(&grid.threads)
                    );
                    let warm = cached_vs_io_bound::warms(grid);
                    let (complete, io, got) =
                        run_observed(&commands, &grid.name, warm, plan, round + 1, &json_out(i))
                            .await?;
                    extras.io.extend(io);
                    runs[i].extend(got.into_iter().map(|mut r| {
                        r.round = round + 1;
                        r
                    }));
                    heads[i].end();
                    repro.runs = plan
                        .grids
                        .iter()
                        .enumerate()
                        .map(|(j, g)| GridRun {
                            name: g.name.clone(),
                            command: command_run_argv(
                                plan,
                                a,
                                &g.args,
                                plan.scale.repeat,
                                &json_out(j),
                            )
                            .join(" "),
                            report: Report::new(heads[j].clone(), runs[j].clone()),
                        })
                        .collect();
                    fill(id, repro, published, plan, extras);
                    write_reports(repro, out)?;
                    if !complete {
                        repro.stopped = Some(format!("a run of {} stopped early", grid.name));
                        return Ok(false);
                    }
                }
            }
        }
        _ => {
            for (i, grid) in plan.grids.iter().enumerate() {
                if interrupted.load(Ordering::SeqCst) {
                    repro.stopped = Some("interrupted (Ctrl-C or SIGTERM)".into());
                    return Ok(false);
                }
                let argv = command_run_argv(plan, a, &grid.args, plan.scale.repeat, &json_out(i));
                let command = argv.join(" ");
                println!("running {}: `{command}`", grid.name);
                let mut head = Report::begin();
                let complete = run_command(&argv).await?;
                head.end();
                let file = crate::report::json::parse(&std::fs::read(json_out(i))?)
                    .map_err(|e| anyhow::anyhow!("{} {e}", json_out(i).display()))?;
                repro.runs.push(GridRun {
                    name: grid.name.clone(),
                    command,
                    report: Report::new(head, file.runs),
                });
                fill(id, repro, published, plan, extras);
                write_reports(repro, out)?;
                if !complete {
                    repro.stopped = Some(format!("a run of {} stopped early", grid.name));
                    return Ok(false);
                }
            }
        }
    }
    Ok(true)
}

/// `args` with its `--threads` value replaced by `threads` (added when absent).
fn with_threads(args: &[String], threads: u32) -> Vec<String> {
    let mut out = args.to_vec();
    match out.iter().position(|x| x == "--threads") {
        Some(k) if k + 1 < out.len() => out[k + 1] = threads.to_string(),
        _ => out.extend(["--threads".into(), threads.to_string()]),
    }
    out
}

/// One round of a profile of an interleaved plan (004): its `oltp run`
/// commands (one per thread count, each writing its report to `json_out`)
/// on the private server of its `--profile`, held open around them and
/// stopped after them: the buffer pool's load at startup awaited, the pool
/// warmed first when `warm` (the cached profile), and the buffer-pool and
/// device counters read before and after each command (the sample of `grid`
/// at its thread count in `round`). Returns whether every command completed
/// (it stops at the first that did not), the samples, and the runs.
///
/// # Errors
/// The server, the counters, a command's own, or its report file.
async fn run_observed(
    commands: &[(u32, Vec<String>)],
    grid: &str,
    warm: bool,
    plan: &Plan,
    round: u32,
    json_out: &Path,
) -> Result<(bool, Vec<IoSample>, Vec<RunResult>)> {
    let Some((_, first)) = commands.first() else {
        return Ok((true, Vec::new(), Vec::new()));
    };
    let ra = run_args(first)?;
    // Held as `oltp server start` holds it, so the server outlives the
    // in-process commands' own leases and is still up when the counters after
    // each are read. (Each `Lease` now registers on its own, `users/<pid>-<n>`,
    // so a lease here would also do; `Standing` says the intent.)
    let standing = crate::server::Standing::open(
        &base_dir(&ra.data),
        ra.data.at_rest_mode(),
        ra.data.profile,
        ra.data.iops_limit,
    )
    .await?;
    let url = standing.server().url();
    let data_dir = standing.layout().data().to_path_buf();
    let read = |url: String| {
        let dir = data_dir.clone();
        async move {
            Ok::<_, anyhow::Error>(io_sample::Counters {
                pool: buffer_pool::counters(&url).await?,
                device: diskstats::of_dir(&dir),
            })
        }
    };
    let outcome = async {
        buffer_pool::wait_for_load(&url).await?;
        if warm {
            for db in databases_read(&ra)? {
                buffer_pool::warm(&url, &db, plan.scale.tables).await?;
            }
        }
        let mut samples = Vec::new();
        let mut runs = Vec::new();
        for (threads, argv) in commands {
            let before = read(url.clone()).await?;
            let t0 = std::time::Instant::now();
            let complete = run_command(argv).await?;
            let after = read(url.clone()).await?;
            samples.push(IoSample::between(
                grid,
                *threads,
                round,
                &before,
                &after,
                t0.elapsed().as_secs_f64(),
            ));
            let file = crate::report::json::parse(&std::fs::read(json_out)?)
                .map_err(|e| anyhow::anyhow!("{} {e}", json_out.display()))?;
            runs.extend(file.runs);
            if !complete {
                return Ok::<_, anyhow::Error>((false, samples, runs));
            }
        }
        Ok((true, samples, runs))
    }
    .await;
    let stopped = standing.stop().await;
    let got = outcome?;
    stopped?;
    Ok(got)
}

/// The databases `oltp run` with `ra` reads: one per `--encrypt` choice's
/// algorithm, in its order.
///
/// # Errors
/// A database name or `--encrypt` choice `oltp run` would refuse.
fn databases_read(ra: &RunArgs) -> Result<Vec<String>> {
    let data = data_set(&ra.data)?;
    let mut dbs: Vec<String> = Vec::new();
    for e in parse_encrypts(&ra.encrypt, data.columns)? {
        let db = data.database(e);
        if !dbs.contains(&db) {
            dbs.push(db);
        }
    }
    Ok(dbs)
}

/// Whether the data sets `missing` (none: nothing to check) fit the disk of
/// `base`; `what` names them in the error, `quick` (a `--quick` run) leaves
/// `--quick` out of the fix.
///
/// # Errors
/// They would not fit (how much they need and how much is free), or the
/// free space cannot be read.
fn check_missing_fit(
    plan: &Plan,
    quick: bool,
    missing: &[&DataSetStep],
    base: &Path,
    what: &str,
) -> Result<()> {
    if missing.is_empty() {
        return Ok(());
    }
    let free = resources::disk_free(base)?;
    crate::space::check_disk(
        plan.disk_bytes(missing),
        free,
        &base.display().to_string(),
        what,
        resources::disk_fix(quick),
    )
}

/// One in-process `oltp` command (`argv` from `oltp` on); false when a run
/// stopped early.
///
/// # Errors
/// The command's own.
fn run_command(
    argv: &[String],
) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<bool>> + Send + '_>> {
    Box::pin(async move {
        let cli = Cli::try_parse_from(argv)
            .map_err(|e| anyhow::anyhow!("internal: {}: {}", argv.join(" "), e.kind()))?;
        super::execute(cli).await
    })
}

/// The `oltp run` argv of a grid run as a command of its own, its report
/// written to `json_out`.
fn command_run_argv(
    plan: &Plan,
    a: &ReproduceArgs,
    grid: &[String],
    repeat: u32,
    json_out: &Path,
) -> Vec<String> {
    let s = &plan.scale;
    let mut rest: Vec<String> = grid.to_vec();
    rest.extend([
        "--time".into(),
        s.time_s.to_string(),
        "--warmup".into(),
        s.warmup_s.to_string(),
        "--repeat".into(),
        repeat.to_string(),
        "--no-progress".into(),
        "--output".into(),
        "markdown".into(),
        "--json-out".into(),
        json_out.display().to_string(),
    ]);
    argv("run", plan, a, &rest)
}

/// The `oltp cleanup` argv of one data set: its database (and at-rest
/// mode), plaintext tables only.
fn cleanup_argv(plan: &Plan, a: &ReproduceArgs, step: &DataSetStep) -> Vec<String> {
    let mut rest = vec!["--encrypt".to_string(), step.encrypt.clone()];
    for pair in step.args.chunks(2) {
        if let [k, v] = pair
            && (k == "--pgsql-db" || k == "--at-rest")
        {
            rest.extend([k.clone(), v.clone()]);
        }
    }
    argv("cleanup", plan, a, &rest)
}

/// A data set in words: database, at-rest mode, scale.
fn step_name(plan: &Plan, pa: &PrepareArgs) -> String {
    if plan.db.is_empty() {
        format!(
            "{} at rest {} (pgbench scale {})",
            pa.data.pgsql_db.as_deref().unwrap_or(""),
            pa.data.at_rest_mode().name(),
            pa.scale.unwrap_or(1)
        )
    } else {
        let db = data_set_of(pa).map_or_else(|_| plan.db.clone(), |(d, e)| d.database(e));
        let at_rest = match pa.data.at_rest_mode() {
            AtRest::Off => String::new(),
            m => format!(", at rest {}", m.name()),
        };
        format!(
            "{db} ({} x {} rows{at_rest})",
            crate::report::count(u64::from(plan.scale.tables), "table", "tables"),
            plan.scale.table_size
        )
    }
}

/// Whether pgbench's tables of `pa` are prepared, finished, of its scale:
/// `Ok(db)` to reuse them, `Err(why)` to (re)load them.
async fn verify_pgbench(
    url: &str,
    pa: &PrepareArgs,
) -> Result<std::result::Result<String, String>> {
    with_driver!(DbDriver::of_url(url), C => verify_pgbench_with::<C>(url, pa).await)
}

/// [`verify_pgbench`] over driver `C`.
async fn verify_pgbench_with<C: Connection>(
    url: &str,
    pa: &PrepareArgs,
) -> Result<std::result::Result<String, String>> {
    let data = data_set(&pa.data)?;
    let db = data.database(crate::columns::Encrypt::None);
    let mut admin: C = schema::connect(url, None, None).await?;
    let got = pgbench::check_prepared(
        &mut admin,
        url,
        pa.workload.name(),
        &data,
        &db,
        crate::columns::Encrypt::None,
        pgbench::Fillers::Accounts,
        pa.scale,
    )
    .await;
    admin.close().await;
    Ok(match got {
        Ok((_, conn)) => {
            conn.close().await;
            Ok(db)
        }
        Err(why) => Err(format!("{why:#}")),
    })
}

/// One line per finished run, on stderr.
struct Progress {
    total: u64,
    done: std::sync::atomic::AtomicU64,
}

impl Observer for Progress {
    fn started(&self, _: &str, _: u64) {}
    fn phase(&self, _: &str) {}
    fn tick(&self, _: u64, _: f64) {}
    fn interval(&self, _: &str) {}
    fn finished(&self, r: &RunResult) {
        let n = self.done.fetch_add(1, Ordering::SeqCst) + 1;
        eprintln!(
            "  [{n}/{}] {} {} thr, {}{} round {}: {:.0} QPS, RT {:.2} ms{}",
            self.total,
            r.settings.workload,
            r.settings.threads,
            RunKey::of(r).mode(),
            if r.control { " (A/A control)" } else { "" },
            r.round,
            r.qps,
            r.latency_ms.avg,
            if r.complete { "" } else { " (stopped early)" }
        );
    }
}

/// The report's rows and words from what has been measured.
fn fill(id: ReportId, r: &mut Reproduction, p: &Published, plan: &Plan, extras: &Extras) {
    match id {
        ReportId::R003 => tls_footprint::fill(r, p, plan, &extras.footprint, &extras.tls_bench),
        ReportId::R000 => column_encryption::fill(r, p, plan, r.quick, &extras.proxy),
        ReportId::R001 => at_rest_pgbench::fill(r, p, plan, &extras.at_rest),
        ReportId::R004 => cached_vs_io_bound::fill(r, p, plan, r.quick, &extras.io),
    }
}

/// Writes report.md, report.json, report.html and chart-N.svg into `out`,
/// each atomically.
fn write_reports(r: &Reproduction, out: &Path) -> Result<()> {
    write_atomically(
        &out.join("report.json"),
        json::to_json(r)?.as_bytes(),
        "--out",
    )?;
    write_atomically(
        &out.join("report.md"),
        markdown::to_markdown(r).as_bytes(),
        "--out",
    )?;
    write_atomically(
        &out.join("report.html"),
        html::to_html(r).as_bytes(),
        "--out",
    )?;
    for (i, c) in r.charts.iter().enumerate() {
        write_atomically(
            &out.join(format!("chart-{}.svg", i + 1)),
            c.svg.as_bytes(),
            "--out",
        )?;
    }
    Ok(())
}

/// The rows table of `report.md` (for stdout).
fn markdown_rows(r: &Reproduction) -> String {
    let md = markdown::to_markdown(r);
    let start = md.find("| figure |").unwrap_or(0);
    let end = md[start..].find("\n\n").map_or(md.len(), |e| start + e + 1);
    md[start..end].to_string()
}

/// The scale in words.
fn scale_text(plan: &Plan, p: &Published, scale: &Scale) -> String {
    let s = &plan.scale;
    if plan.db.is_empty() {
        return format!(
            "pgbench, {} connections, {} interleaved rounds of {} s runs after {} s of warm-up; {}{}",
            comma_separated(&s.threads),
            s.repeat,
            s.time_s,
            s.warmup_s,
            s.scaled_how.as_deref().unwrap_or(""),
            if scale.overridden() {
                "; test overrides given: not the report's scale"
            } else {
                ""
            }
        );
    }
    format!(
        "{} x {} rows (report: {} x {}), threads {}, {} interleaved rounds of {} s runs after {} s of warm-up, the baseline twice per round (--control: A/A noise floor){}{}",
        crate::report::count(u64::from(s.tables), "table", "tables"),
        s.table_size,
        p.full.tables,
        p.full.table_size,
        comma_separated(&s.threads),
        s.repeat,
        s.time_s,
        s.warmup_s,
        s.scaled_how
            .as_deref()
            .filter(|_| scale.quick)
            .map(|h| format!("; quick: {h}"))
            .unwrap_or_default(),
        if scale.overridden() {
            "; test overrides given: not the report's scale"
        } else {
            ""
        }
    )
}

/// `oltp` + subcommand + the plan's data arguments + `rest` + `--base-dir`.
fn argv(sub: &str, plan: &Plan, a: &ReproduceArgs, rest: &[String]) -> Vec<String> {
    let mut v = vec!["oltp".to_string(), sub.to_string()];
    v.extend(plan.data_args());
    v.extend(rest.iter().cloned());
    if let Some(d) = &a.base_dir {
        v.push("--base-dir".into());
        v.push(d.display().to_string());
    }
    v
}

/// The `oltp prepare` argv of one data set.
fn prepare_argv(plan: &Plan, a: &ReproduceArgs, step: &DataSetStep) -> Vec<String> {
    let mut rest = vec![
        "--encrypt".to_string(),
        step.encrypt.clone(),
        "--encrypt-columns".into(),
        step.encrypt_columns.clone(),
        "--threads".into(),
        "2".into(),
    ];
    rest.extend(step.args.iter().cloned());
    argv("prepare", plan, a, &rest)
}

/// `oltp prepare` of one data set.
fn prepare_args(plan: &Plan, a: &ReproduceArgs, step: &DataSetStep) -> Result<PrepareArgs> {
    match parse(&prepare_argv(plan, a, step))? {
        Command::Prepare(p) => Ok(p),
        _ => bail!("internal: not a prepare command"),
    }
}

/// The `oltp run` argv of a grid (ending in `--output json`, left out of
/// the command shown).
fn run_argv(plan: &Plan, a: &ReproduceArgs, grid: &[String]) -> Vec<String> {
    let s = &plan.scale;
    let mut rest: Vec<String> = grid.to_vec();
    rest.extend([
        "--time".into(),
        s.time_s.to_string(),
        "--warmup".into(),
        s.warmup_s.to_string(),
        "--repeat".into(),
        s.repeat.to_string(),
        "--no-progress".into(),
    ]);
    let mut v = argv("run", plan, a, &rest);
    v.extend(["--output".into(), "json".into()]);
    v
}

fn run_args(argv: &[String]) -> Result<RunArgs> {
    match parse(argv)? {
        Command::Run(r) => Ok(*r),
        _ => bail!("internal: not a run command"),
    }
}

fn parse(argv: &[String]) -> Result<Command> {
    Cli::try_parse_from(argv)
        .map(|c| c.command)
        .map_err(|e| anyhow::anyhow!("internal: {}: {}", argv.join(" "), e.kind()))
}

/// The data set of a sysbench-table prepare step and its one `--encrypt`
/// choice (a step prepares one database).
///
/// # Errors
/// A database name or `--encrypt` choice `oltp prepare` would refuse.
fn data_set_of(pa: &PrepareArgs) -> Result<(crate::schema::DataSet, Encrypt)> {
    let data = data_set(&pa.data)?;
    let e = parse_encrypts(&pa.encrypt, data.columns)?[0];
    Ok((data, e))
}

/// Whether the data set of `pa` is prepared and verifies: `Ok(db)` to
/// reuse it, `Err(why)` to (re)load it.
async fn verify(url: &str, pa: &PrepareArgs) -> Result<std::result::Result<String, String>> {
    with_driver!(DbDriver::of_url(url), C => verify_with::<C>(url, pa).await)
}

/// [`verify`] over driver `C`.
async fn verify_with<C: Connection>(
    url: &str,
    pa: &PrepareArgs,
) -> Result<std::result::Result<String, String>> {
    let (data, e) = data_set_of(pa)?;
    let mut admin: C = schema::connect(url, None, None).await?;
    let got = schema::check_prepared(C::DRIVER.dialect(), &mut admin, url, &data, e).await;
    admin.close().await;
    Ok(match got {
        Ok((_, conn)) => {
            conn.close().await;
            Ok(data.database(e))
        }
        Err(why) => Err(format!("{why:#}")),
    })
}

/// What a failed check of a data set found, without the fix it names for a user (`run
/// \`oltp prepare ...\``, `use --tables N`): reproduce prepares the data set itself.
fn without_fix(why: &str) -> &str {
    [": run `", "; run `", ": use ", ": give "]
        .iter()
        .filter_map(|m| why.find(m))
        .min()
        .map_or(why, |i| &why[..i])
}

/// A sibling tool of encbench: `given`, or the binary `name` next to this oltp
/// binary; `Err` naming `build` (the cargo command) and `flag` when it is missing.
fn sibling_tool(
    given: Option<&Path>,
    name: &str,
    build: &str,
    flag: &str,
) -> std::result::Result<std::path::PathBuf, String> {
    let exe = match given {
        Some(p) => p.to_path_buf(),
        None => std::env::current_exe()
            .map_err(|e| format!("cannot find oltp's own path: {e}"))?
            .with_file_name(name),
    };
    match not_runnable(&exe) {
        Some(why) => Err(format!(
            "{} {}: build it with `{build}`, or pass {flag} FILE",
            exe.display(),
            if why == "no such file" {
                "not found"
            } else {
                why
            }
        )),
        None => Ok(exe),
    }
}

/// Why `exe` cannot be run as a sibling tool: `no such file`, `not a regular
/// file` or `not executable` (no execute bit); `None` when it can.
fn not_runnable(exe: &Path) -> Option<&'static str> {
    use std::os::unix::fs::PermissionsExt as _;
    match std::fs::metadata(exe) {
        Err(_) => Some("no such file"),
        Ok(m) if !m.is_file() => Some("not a regular file"),
        Ok(m) if m.permissions().mode() & 0o111 == 0 => Some("not executable"),
        Ok(_) => None,
    }
}

/// Runs `exe` with `args` (stdout discarded) and reads the JSON it wrote to
/// `json_out`; `Err` with the last line of its stderr when it fails.
async fn run_for_json(
    exe: std::path::PathBuf,
    args: Vec<String>,
    json_out: &Path,
) -> std::result::Result<Value, String> {
    let cmd_exe = exe.clone();
    let got = tokio::task::spawn_blocking(move || {
        std::process::Command::new(&cmd_exe)
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .output()
    })
    .await
    .map_err(|e| format!("cannot run {}: {e}", exe.display()))?
    .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    if !got.status.success() {
        let err = String::from_utf8_lossy(&got.stderr);
        return Err(format!(
            "{} failed: {}",
            exe.display(),
            err.lines().last().unwrap_or("no message")
        ));
    }
    let text =
        std::fs::read_to_string(json_out).map_err(|e| format!("{}: {e}", json_out.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", json_out.display()))
}

/// tls-bench's footprint section, run once into `out`/tls-bench.json.
async fn tls_bench_footprint(
    given: Option<&Path>,
    out: &Path,
) -> std::result::Result<Value, String> {
    let exe = sibling_tool(
        given,
        "tls-bench",
        "cargo build --release -p tls-bench -p tls-bench-footprint",
        "--tls-bench",
    )?;
    let json_out = out.join("tls-bench.json");
    let args = ["--sections", "footprint", "--output", "json", "--json-out"]
        .map(String::from)
        .into_iter()
        .chain([json_out.display().to_string()])
        .collect();
    run_for_json(exe, args, &json_out).await
}

/// 000's proxy prediction: column-bench (`given`, or the one next to this
/// oltp binary) measures `backend` on sbtest's row with every column
/// encrypted ([`proxy::column_bench_args`]), its JSON written into `out`;
/// `Err(why)` when it is missing or fails (the report says so).
async fn column_bench_prediction(
    given: Option<&Path>,
    backend: &str,
    out: &Path,
) -> std::result::Result<proxy::Measurement, String> {
    let exe = sibling_tool(
        given,
        "column-bench",
        "cargo build --release -p column-bench",
        "--column-bench",
    )?;
    let json_out = out.join("column-bench.json");
    let args = proxy::column_bench_args(backend, &json_out.display().to_string());
    let command = format!(
        "column-bench {}",
        args.iter()
            .map(|a| if a.contains(';') {
                format!("'{a}'")
            } else {
                a.clone()
            })
            .collect::<Vec<_>>()
            .join(" ")
    );
    let v = run_for_json(exe, args, &json_out).await?;
    proxy::parse(&v, backend, command)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_data_set_to_prepare_is_named_without_the_users_fix() {
        // New-user finding: reproduce printed "run `oltp prepare ...` first" while it
        // prepares by itself.
        for (why, found) in [
            (
                "sbtest_none.sbtest1 not found: run `oltp prepare --tables 2 --table-size 10 --encrypt none` first",
                "sbtest_none.sbtest1 not found",
            ),
            (
                "pg is half loaded (a prepare of pgbench's tables did not finish): run `oltp cleanup`, then `oltp prepare`",
                "pg is half loaded (a prepare of pgbench's tables did not finish)",
            ),
            (
                "sbtest1 holds 3 rows and no encbench_meta: a prepare did not finish; run `oltp cleanup`, then `oltp prepare`",
                "sbtest1 holds 3 rows and no encbench_meta: a prepare did not finish",
            ),
            (
                "pg's pgbench tables have scale 1 (count(*) of pgbench_branches), the run asks for --scale 2: use --scale 1, or run `oltp cleanup` and `oltp prepare`",
                "pg's pgbench tables have scale 1 (count(*) of pgbench_branches), the run asks for --scale 2",
            ),
            ("no hint here", "no hint here"),
        ] {
            assert_eq!(without_fix(why), found);
            assert!(!without_fix(why).contains("oltp prepare"));
        }
    }
}
