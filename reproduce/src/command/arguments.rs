//! The `oltp` command lines reproduce builds and runs in-process: `oltp
//! prepare`, `oltp run` and `oltp cleanup` of a plan's data sets and grids.

use std::path::Path;

use anyhow::{Result, bail};
use clap::Parser as _;

use encbench_oltp::cli::{Cli, Command, PrepareArgs, RunArgs};

use crate::cli::ReproduceArgs;
use crate::plan::{DataSetStep, Plan};

/// `args` with its `--threads` value replaced by `threads` (added when absent).
pub(super) fn with_threads(args: &[String], threads: u32) -> Vec<String> {
    let mut out = args.to_vec();
    match out.iter().position(|x| x == "--threads") {
        Some(k) if k + 1 < out.len() => out[k + 1] = threads.to_string(),
        _ => out.extend(["--threads".into(), threads.to_string()]),
    }
    out
}

/// One in-process `oltp` command (`argv` from `oltp` on); false when a run
/// stopped early.
///
/// # Errors
/// The command's own.
pub(super) fn run_command(
    argv: &[String],
) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<bool>> + Send + '_>> {
    Box::pin(async move {
        let cli = Cli::try_parse_from(argv)
            .map_err(|e| anyhow::anyhow!("internal: {}: {}", argv.join(" "), e.kind()))?;
        encbench_oltp::commands::execute(cli).await
    })
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
pub(super) fn cleanup_argv(plan: &Plan, a: &ReproduceArgs, step: &DataSetStep) -> Vec<String> {
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
