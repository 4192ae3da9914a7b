//! The steps of 000 and 003 on one private MariaDB held throughout: the
//! data sets verified or prepared, then every grid run in-process, the
//! reports written after each.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use anyhow::Result;

use crate::plan::DataSetStep;
use crate::row::{GridRun, Reproduction};
use encbench_oltp::config::RunConfig;
use encbench_oltp::driver::{Connection, DbDriver, with_driver};
use encbench_oltp::report::{Report, RunKey, RunResult};
use encbench_oltp::run::{Observer, run_grid};
use encbench_oltp::schema;
use encbench_oltp::server::Lease;

use super::arguments::{prepare_args, run_args, run_argv};
use super::data_sets::{check_missing_fit, data_set_of, verify};
use super::outputs::{update_reproduction, write_reports};
use super::{Job, SideMeasurements};

/// The data sets, then every grid; after each step the reports are written
/// (partial). False when a run stopped early or Ctrl-C came.
pub(super) async fn measure(
    job: &Job<'_>,
    server: &Lease,
    repro: &mut Reproduction,
    extras: &SideMeasurements,
) -> Result<bool> {
    let Job {
        args: a,
        id,
        published,
        plan,
        base,
        out,
        interrupted,
    } = *job;
    let url = server.url.clone();
    // Which data sets verify (reused), which must be loaded.
    let mut missing: Vec<&DataSetStep> = Vec::new();
    for step in &plan.data_sets {
        let pa = prepare_args(plan, a, step)?;
        match verify(&url, &pa).await? {
            Ok(db) => println!(
                "reusing data set {db}: verified ({} x {} rows, prepare finished)",
                encbench_oltp::report::count(u64::from(plan.scale.tables), "table", "tables"),
                plan.scale.table_size
            ),
            Err(why) => {
                println!(
                    "data set for --encrypt {} to prepare: {}",
                    step.encrypt, why
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
        encbench_oltp::commands::prepare(&pa, &url, None).await?;
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
        cfg.server_cpu = encbench_oltp::commands::private_server_cpu(server, &ra.data);
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
        if let Some(line) = encbench_oltp::commands::shared_warning(
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
        update_reproduction(id, repro, published, plan, extras);
        write_reports(repro, out)?;
        if !complete {
            repro.stopped = Some(why.unwrap_or_else(|| "a run stopped early".into()));
            return Ok(false);
        }
    }
    Ok(true)
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
