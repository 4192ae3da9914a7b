//! `oltp run`: the validated configuration, the grid, and its reports: each
//! run's sysbench report as it ends, then the summary and comparison.

use std::io::Write as _;
use std::sync::Arc;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::{Output, RunArgs};
use crate::config::RunConfig;
use crate::report::{Report, RunResult};
use crate::run::{Observer, run_grid};

use super::output::{print_report, write_atomically, write_svg};

/// The terminal side of a run: a progress bar on stderr (only on a
/// terminal), the interval lines, and each run's sysbench report on stdout
/// in text mode.
struct Console {
    bar: std::sync::Mutex<ProgressBar>,
    enabled: bool,
    text: bool,
    intervals_to_stderr: bool,
}

impl Console {
    fn bar(&self) -> ProgressBar {
        self.bar
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl Observer for Console {
    fn started(&self, label: &str, secs: u64) {
        use std::io::IsTerminal;
        let bar = if self.enabled && std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(secs);
            bar.set_style(
                ProgressStyle::with_template("{prefix:>28} [{bar:30}] {pos}/{len} s  {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar.set_prefix(label.to_string());
            bar
        } else {
            ProgressBar::hidden()
        };
        *self
            .bar
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = bar;
    }

    fn phase(&self, what: &str) {
        self.bar().set_message(what.to_string());
    }

    fn tick(&self, elapsed_s: u64, qps: f64) {
        let bar = self.bar();
        bar.set_position(elapsed_s.min(bar.length().unwrap_or(0)));
        bar.set_message(format!("{qps:.0} qps"));
    }

    fn interval(&self, line: &str) {
        self.bar().suspend(|| {
            if self.intervals_to_stderr {
                eprintln!("{line}");
            } else {
                println!("{line}");
            }
        });
    }

    fn finished(&self, r: &RunResult) {
        self.bar().finish_and_clear();
        if self.text {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", r.to_text());
            let _ = out.flush();
        }
    }
}

/// The grid of every configuration: one as [`run_grid`] runs it; several (one per
/// `--at-rest` mode, each its own server) in interleaved rounds, round r running the
/// modes rotated by r, each mode's whole grid once per round, so every mode sees the same
/// drift of the machine.
///
/// # Errors
/// As [`run_grid`].
async fn run_modes(cfgs: &[RunConfig], observer: Arc<dyn Observer>) -> Result<Vec<RunResult>> {
    if let [cfg] = cfgs {
        return run_grid(cfg, observer).await;
    }
    let n = cfgs.len();
    let rounds = cfgs.first().map_or(1, |c| c.repeat.max(1));
    let mut results = Vec::new();
    for round in 0..rounds {
        for i in 0..n {
            let mut cfg = cfgs[(i + round as usize) % n].clone();
            cfg.repeat = 1;
            if round > 0 || i > 0 {
                cfg.start_at = None;
            } else {
                cfg.start_at = cfgs[0].start_at;
            }
            let runs = run_grid(&cfg, observer.clone()).await?;
            let stop = runs.iter().any(|r| !r.complete);
            results.extend(runs.into_iter().map(|mut r| {
                r.round = round + 1;
                r
            }));
            if stop {
                return Ok(results);
            }
        }
    }
    Ok(results)
}

/// Runs `oltp run` with `cfgs`, one per `--at-rest` mode; false when a run stopped early.
///
/// # Errors
/// A check fails before the runs, or a report cannot be written.
pub async fn run(a: &RunArgs, cfgs: &[RunConfig]) -> Result<bool> {
    let Some(cfg) = cfgs.first() else {
        anyhow::bail!("no --at-rest mode to run");
    };
    let text = a.output == Output::Text;
    let console = Arc::new(Console {
        bar: std::sync::Mutex::new(ProgressBar::hidden()),
        enabled: cfg.progress,
        text,
        intervals_to_stderr: cfg.intervals_to_stderr,
    });
    let mut header = Report::begin();
    let outcome = run_modes(cfgs, console.clone()).await;
    header.end();
    console.bar().finish_and_clear();
    let results = outcome?;
    let report = Report::new(header, results);
    print_report(&report, a.output, false);
    write_svg(a.svg.as_deref(), &report)?;
    if let Some(path) = &a.json_out {
        write_atomically(path, report.to_json()?.as_bytes(), "--json-out")?;
        if text {
            println!("JSON report written to {}", path.display());
        }
    }
    if !report.complete {
        let why = report
            .runs
            .iter()
            .find_map(|r| r.error.clone())
            .unwrap_or_default();
        // Each cause once (the MySQL driver repeats "Input/output error:").
        let why = encbench_common::cli_error::error_line(anyhow::anyhow!(why).as_ref());
        eprintln!("Error: run stopped early: {why}");
    }
    Ok(report.complete)
}
