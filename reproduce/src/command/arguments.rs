//! The `oltp` command lines reproduce builds and runs in-process: `oltp
//! prepare`, `oltp run` and `oltp cleanup` of a plan's data sets and grids.

use std::path::Path;

use anyhow::{Result, bail};
use clap::Parser as _;

use encbench_oltp::cli::{CleanupArgs, Cli, Command, PrepareArgs, RunArgs};

use crate::cli::ReproduceArgs;
use crate::plan::{DataSetStep, Plan};

/// Runs `command` in-process, as `oltp` runs it once its command line is
/// parsed; false when a run stopped early.
///
/// # Errors
/// The command's own.
pub(super) async fn execute(command: Command) -> Result<bool> {
    encbench_oltp::commands::execute(Cli { command }).await
}

/// The `oltp cleanup` arguments of the data set `pa` prepares: its database
/// (and at-rest mode), the one `--encrypt` choice `encrypt` only.
pub(super) fn cleanup_args(pa: &PrepareArgs, encrypt: &str) -> CleanupArgs {
    CleanupArgs {
        data: pa.data.clone(),
        encrypt: vec![encrypt.to_string()],
        tls: pa.tls,
    }
}

/// The `oltp run` argv of a grid run as a command of its own, its report
/// written to `json_out`.
pub(super) fn command_run_argv(
    plan: &Plan,
    a: &ReproduceArgs,
    grid: &[String],
    repeat: u32,
    json_out: &Path,
) -> Vec<String> {
    let mut rest = grid_run_args(plan, grid, repeat);
    rest.extend([
        "--output".into(),
        "markdown".into(),
        "--json-out".into(),
        json_out.display().to_string(),
    ]);
    argv("run", plan, a, &rest)
}

/// The arguments of an `oltp run` of `grid` after the common data
/// arguments: the grid's own, then the plan's time and warm-up, `repeat`
/// rounds, no progress bar.
fn grid_run_args(plan: &Plan, grid: &[String], repeat: u32) -> Vec<String> {
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
    ]);
    rest
}

/// `oltp` + subcommand + the plan's data arguments + `rest` + `--base-dir`.
pub(super) fn argv(sub: &str, plan: &Plan, a: &ReproduceArgs, rest: &[String]) -> Vec<String> {
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
pub(super) fn prepare_argv(plan: &Plan, a: &ReproduceArgs, step: &DataSetStep) -> Vec<String> {
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
pub(super) fn prepare_args(
    plan: &Plan,
    a: &ReproduceArgs,
    step: &DataSetStep,
) -> Result<PrepareArgs> {
    match parse(&prepare_argv(plan, a, step))? {
        Command::Prepare(p) => Ok(p),
        _ => bail!("internal: not a prepare command"),
    }
}

/// The `oltp run` argv of a grid (ending in `--output json`, left out of
/// the command shown).
pub(super) fn run_argv(plan: &Plan, a: &ReproduceArgs, grid: &[String]) -> Vec<String> {
    let mut v = argv(
        "run",
        plan,
        a,
        &grid_run_args(plan, grid, plan.scale.repeat),
    );
    v.extend(["--output".into(), "json".into()]);
    v
}

pub(super) fn run_args(argv: &[String]) -> Result<RunArgs> {
    match parse(argv)? {
        Command::Run(r) => Ok(*r),
        _ => bail!("internal: not a run command"),
    }
}

pub(super) fn parse(argv: &[String]) -> Result<Command> {
    Cli::try_parse_from(argv)
        .map(|c| c.command)
        .map_err(|e| anyhow::anyhow!("internal: {}: {}", argv.join(" "), e.kind()))
}
