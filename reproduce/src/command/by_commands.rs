//! The steps of 001 and 004, each an `oltp prepare`/`oltp run` command of
//! its own (each opens the servers its arguments name: an at-rest mode's
//! private PostgreSQL, the private MariaDB with a `--profile`): the data
//! sets verified first and loaded when they do not (001's loads timed), then
//! the grids, in turn (001) or rotated per round with the buffer-pool and
//! device reads around each command (004); the reports written after each.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use anyhow::{Result, bail};

use crate::io_sample::{self, IoSample};
use crate::plan::{DataSetStep, Grid, Plan, Servers, comma_separated};
use crate::row::{GridRun, Reproduction};
use crate::{ReportId, buffer_pool, cached_vs_io_bound, diskstats};
use encbench_oltp::at_rest::AtRest;
use encbench_oltp::cli::{Command, PrepareArgs, RunArgs};
use encbench_oltp::config::base_dir;
use encbench_oltp::report::{Report, RunResult};
use encbench_oltp::server::Lease;

use super::arguments::{cleanup_args, command_run_argv, execute, prepare_args, run_args};
use super::data_sets::{check_missing_fit, databases_read, step_name, verify, verify_pgbench};
use super::outputs::{update_reproduction, write_reports};
use super::{Job, SideMeasurements};

/// 001 and 004: the servers 001's data sets need opened and held (001:
/// every mode's server started once and held to the end, so the commands
/// inside find it running and use it, and the loads are timed without a
/// server start; 004 holds none: each run restarts the server with its
/// profile), then [`measure_steps`], then the held servers stopped. False
/// when a run stopped early or Ctrl-C came.
///
/// # Errors
/// A server, a step's own, or stopping a held server.
pub(super) async fn measure_by_commands(
    job: &Job<'_>,
    repro: &mut Reproduction,
    extras: &mut SideMeasurements,
) -> Result<bool> {
    let (plan, a) = (job.plan, job.args);
    let mut held: Vec<(AtRest, Lease)> = Vec::new();
    if plan.servers == Servers::PerCommand {
        for step in &plan.data_sets {
            let pa = prepare_args(plan, a, step)?;
            let mode = pa.data.at_rest_mode();
            if held.iter().any(|(m, _)| *m == mode) {
                continue;
            }
            match encbench_oltp::commands::open_lease(&pa.data).await {
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
    let outcome = measure_steps(job, repro, extras, &held).await;
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

/// The steps of [`measure_by_commands`], with the servers it holds: the
/// data sets to load found and loaded, then the grids.
async fn measure_steps(
    job: &Job<'_>,
    repro: &mut Reproduction,
    extras: &mut SideMeasurements,
    held: &[(AtRest, Lease)],
) -> Result<bool> {
    let missing = data_sets_to_load(job, repro.quick, held).await?;
    if !load_data_sets(job, &missing, repro, extras, held).await? {
        return Ok(false);
    }
    match job.plan.servers {
        Servers::PerCommandInterleaved => run_rotated_rounds(job, repro, extras).await,
        _ => run_grids_in_turn(job, repro, extras).await,
    }
}

/// The URL of the server in `held` of the at-rest mode of `pa`, if one is
/// held.
fn held_url(held: &[(AtRest, Lease)], pa: &PrepareArgs) -> Option<String> {
    held.iter()
        .find(|(m, _)| *m == pa.data.at_rest_mode())
        .map(|(_, l)| l.url.clone())
}

/// The data sets of the plan that do not verify (each checked on its held
/// server, or on its server opened for the check), after checking they fit
/// the disk; `quick` (a `--quick` run) leaves `--quick` out of the disk
/// check's fix.
///
/// # Errors
/// A server, a check, or the data sets would not fit the disk.
async fn data_sets_to_load<'p>(
    job: &Job<'p>,
    quick: bool,
    held: &[(AtRest, Lease)],
) -> Result<Vec<&'p DataSetStep>> {
    let Job { args: a, plan, .. } = *job;
    let mut missing: Vec<&DataSetStep> = Vec::new();
    for step in &plan.data_sets {
        let pa = prepare_args(plan, a, step)?;
        let got = match held_url(held, &pa) {
            Some(url) => verify_pgbench(&url, &pa).await,
            None => {
                let lease = encbench_oltp::commands::open_lease(&pa.data).await?;
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
                println!("data set {what} to prepare: {}", why);
                missing.push(step);
            }
        }
    }
    check_missing_fit(
        plan,
        quick,
        &missing,
        job.base,
        &format!("report {}'s {} data sets to load", job.id, missing.len()),
    )?;
    Ok(missing)
}

/// Loads the data sets `missing` (an unfinished or different one of the
/// same name dropped first), on its held server in-process or as `oltp
/// cleanup` and `oltp prepare` commands; 001's loads timed into `extras`.
/// False when Ctrl-C came first.
///
/// # Errors
/// A command's own, or a prepare that stopped.
async fn load_data_sets(
    job: &Job<'_>,
    missing: &[&DataSetStep],
    repro: &mut Reproduction,
    extras: &mut SideMeasurements,
    held: &[(AtRest, Lease)],
) -> Result<bool> {
    let Job {
        args: a,
        id,
        plan,
        interrupted,
        ..
    } = *job;
    for &step in missing {
        if interrupted.load(Ordering::SeqCst) {
            repro.stopped = Some("interrupted (Ctrl-C or SIGTERM) before the runs".into());
            return Ok(false);
        }
        let pa = prepare_args(plan, a, step)?;
        // An unfinished or different data set of the same name goes first.
        let ca = cleanup_args(&pa, &step.encrypt);
        let t0 = match held_url(held, &pa) {
            Some(url) => {
                encbench_oltp::commands::cleanup(&ca, &url).await?;
                let t0 = std::time::Instant::now();
                encbench_oltp::commands::prepare(&pa, &url, None).await?;
                encbench_oltp::commands::verify_at_rest(&pa, &url, false).await?;
                t0
            }
            None => {
                execute(Command::Cleanup(ca)).await?;
                let t0 = std::time::Instant::now();
                if !execute(Command::Prepare(pa.clone())).await? {
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
    Ok(true)
}

/// Where the `oltp run` command of grid `i` (from 0) writes its JSON report:
/// `out`/grid-N.json, N from 1.
fn grid_json_out(out: &Path, i: usize) -> PathBuf {
    out.join(format!("grid-{}.json", i + 1))
}

/// 004: every grid once per round, rotated by one grid each round, each
/// round of a grid on the server of its profile ([`run_observed`]); the
/// reports written after each. False when a run stopped early or Ctrl-C
/// came.
///
/// # Errors
/// A server, the counters, a command's own, or writing the reports.
async fn run_rotated_rounds(
    job: &Job<'_>,
    repro: &mut Reproduction,
    extras: &mut SideMeasurements,
) -> Result<bool> {
    let Job {
        args: a,
        plan,
        out,
        interrupted,
        ..
    } = *job;
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
            let (complete, io, got) = run_round_of_grid(job, grid, i, round).await?;
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
                        &grid_json_out(out, j),
                    )
                    .join(" "),
                    report: Report::new(heads[j].clone(), runs[j].clone()),
                })
                .collect();
            if !record_grid(job, repro, extras, &grid.name, complete)? {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// Round `round` (from 0) of `grid` (the plan's `i`-th): one `oltp run`
/// command per thread count, so the counters around each give that thread
/// count's reads, run by [`run_observed`] (the cached profile's pool warmed
/// first). Returns what [`run_observed`] returns.
///
/// # Errors
/// As [`run_observed`].
async fn run_round_of_grid(
    job: &Job<'_>,
    grid: &Grid,
    i: usize,
    round: u32,
) -> Result<(bool, Vec<IoSample>, Vec<RunResult>)> {
    let Job {
        args: a, plan, out, ..
    } = *job;
    let json_out = grid_json_out(out, i);
    let argv = command_run_argv(plan, a, &grid.args, 1, &json_out);
    let base = run_args(&argv)?;
    // One command per thread count, so the counters around
    // each give that thread count's reads.
    let commands: Vec<(u32, RunArgs)> = grid
        .threads
        .iter()
        .map(|&t| {
            let run = RunArgs {
                threads: vec![t],
                ..base.clone()
            };
            (t, run)
        })
        .collect();
    println!(
        "round {}/{} of {}: `{}` (one command per thread count: {})",
        round + 1,
        plan.scale.repeat,
        grid.name,
        argv.join(" "),
        comma_separated(&grid.threads)
    );
    let warm = cached_vs_io_bound::warms_buffer_pool(grid);
    run_observed(&commands, &grid.name, warm, plan, round + 1, &json_out).await
}

/// 001: every grid as one `oltp run` command, in turn, its JSON report read
/// back; the reports written after each. False when a run stopped early or
/// Ctrl-C came.
///
/// # Errors
/// A command's own, its report file, or writing the reports.
async fn run_grids_in_turn(
    job: &Job<'_>,
    repro: &mut Reproduction,
    extras: &mut SideMeasurements,
) -> Result<bool> {
    let Job {
        args: a,
        plan,
        out,
        interrupted,
        ..
    } = *job;
    for (i, grid) in plan.grids.iter().enumerate() {
        if interrupted.load(Ordering::SeqCst) {
            repro.stopped = Some("interrupted (Ctrl-C or SIGTERM)".into());
            return Ok(false);
        }
        let json_out = grid_json_out(out, i);
        let argv = command_run_argv(plan, a, &grid.args, plan.scale.repeat, &json_out);
        let command = argv.join(" ");
        println!("running {}: `{command}`", grid.name);
        let mut head = Report::begin();
        let complete = execute(Command::Run(Box::new(run_args(&argv)?))).await?;
        head.end();
        let file = encbench_oltp::report::json::parse(&std::fs::read(&json_out)?)
            .map_err(|e| anyhow::anyhow!("{} {e}", json_out.display()))?;
        repro.runs.push(GridRun {
            name: grid.name.clone(),
            command,
            report: Report::new(head, file.runs),
        });
        if !record_grid(job, repro, extras, &grid.name, complete)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// After a grid's run (`grid` its name, `complete` whether it completed):
/// the reproduction updated from `repro.runs` and the reports written;
/// false, with the reason in `repro.stopped`, when the run stopped early.
///
/// # Errors
/// Writing the reports.
fn record_grid(
    job: &Job<'_>,
    repro: &mut Reproduction,
    extras: &SideMeasurements,
    grid: &str,
    complete: bool,
) -> Result<bool> {
    update_reproduction(job.id, repro, job.published, job.plan, extras);
    write_reports(repro, job.out)?;
    if !complete {
        repro.stopped = Some(format!("a run of {grid} stopped early"));
        return Ok(false);
    }
    Ok(true)
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
    commands: &[(u32, RunArgs)],
    grid: &str,
    warm: bool,
    plan: &Plan,
    round: u32,
    json_out: &Path,
) -> Result<(bool, Vec<IoSample>, Vec<RunResult>)> {
    let Some((_, ra)) = commands.first() else {
        return Ok((true, Vec::new(), Vec::new()));
    };
    // Held as `oltp server start` holds it, so the server outlives the
    // in-process commands' own leases and is still up when the counters after
    // each are read. (Each `Lease` now registers on its own, `users/<pid>-<n>`,
    // so a lease here would also do; `StandingServer` says the intent.)
    let standing = encbench_oltp::server::StandingServer::open(
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
            for db in databases_read(ra)? {
                buffer_pool::warm(&url, &db, plan.scale.tables).await?;
            }
        }
        let mut samples = Vec::new();
        let mut runs = Vec::new();
        for (threads, run) in commands {
            let before = read(url.clone()).await?;
            let t0 = std::time::Instant::now();
            let complete = execute(Command::Run(Box::new(run.clone()))).await?;
            let after = read(url.clone()).await?;
            samples.push(IoSample::between(
                grid,
                *threads,
                round,
                &before,
                &after,
                t0.elapsed().as_secs_f64(),
            ));
            let file = encbench_oltp::report::json::parse(&std::fs::read(json_out)?)
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
