//! What each subcommand does, one file each; the only place that prints.

use anyhow::{Result, bail};
use clap::ValueEnum as _;

use crate::cli::{CleanupArgs, Cli, Command, DataArgs, DbDriver, PrepareArgs, RunArgs};
use crate::config::{RunConfig, check_driver_flags, data_set, parse_encrypts, resolve_password};
use crate::server::postgres::PgServer;
use crate::server::{Lease, Profile, private_server_of};
use crate::server_cpu::{NO_SERVER_PID_MESSAGE, ServerCpu, ServerProcess};

mod at_rest;
mod cleanup;
mod loading;
mod merge;
mod output;
mod prepare;
mod prepare_pgbench;
pub mod reproduce;
mod run;
mod server;

pub use at_rest::verify as verify_at_rest;
pub use cleanup::cleanup;
pub use output::{check_writable, write_atomically};
pub use prepare::prepare;

/// Runs a parsed command line. Returns `false` when a run stopped early (the
/// report then says so and the process should exit non-zero).
///
/// # Errors
/// Anything that prevents the command from doing its job; messages name the fix.
pub async fn execute(mut cli: Cli) -> Result<bool> {
    // Before any connection, so that no TLS configuration can panic for want of one.
    crate::driver::install_tls_provider();
    if let Some(data) = cli.command.data_mut() {
        // Validate everything before starting anything.
        check_iops_limit(
            data.iops_limit,
            data.db_driver == DbDriver::Pgsql,
            data.mysql_url.is_some(),
            &data.at_rest,
        )?;
        check_driver_flags(data)?;
        // The password of --password-file or the environment into the URL: every
        // later step reads the URL alone.
        resolve_password(data)?;
    }
    let data = match &cli.command {
        Command::Prepare(a) => &a.data,
        Command::Run(a) => &a.data,
        Command::Cleanup(a) => &a.data,
        Command::Server(a) => return server::server(a).await.map(|()| true),
        Command::Merge(a) => return merge::merge(a),
        Command::Reproduce(a) => return reproduce::reproduce(a),
    };
    data_set(data)?;
    if data.url().is_some() && data.profile != Profile::Default {
        bail!(
            "--profile {} sets up the private server only: with --mysql-url, set the server's variables yourself (or omit --mysql-url)",
            data.profile
                .to_possible_value()
                .map_or(String::new(), |v| v.get_name().to_string())
        );
    }
    let modes = data.at_rest_modes();
    match &cli.command {
        Command::Prepare(a) => {
            let encrypts = parse_encrypts(&a.encrypt, data_set(data)?.columns)?;
            crate::config::check_pgbench_flags(
                a.workload,
                a.scale,
                a.fillfactor,
                data,
                encrypts.iter().any(|e| e.algorithm().is_some()),
            )?;
            let mut sysbench_only = data.sysbench_flags_changed();
            for (changed, flag) in [
                (!a.auto_inc, "--auto-inc"),
                (a.secondary, "--secondary"),
                (!a.create_secondary, "--create-secondary"),
            ] {
                if changed {
                    sysbench_only.push(flag);
                }
            }
            crate::config::check_sysbench_only(a.workload, &sysbench_only)?;
            // Each mode is a server of its own: prepared in turn; `off` beside
            // `innodb` is its control, searched too.
            let off_as_control = modes.contains(&crate::at_rest::AtRest::Innodb);
            for m in modes {
                let a = PrepareArgs {
                    data: a.data.with_at_rest(m),
                    ..a.clone()
                };
                let server = open_lease(&a.data).await?;
                let data_dir = server.data_dir();
                let outcome = match prepare::prepare(&a, &server.url, data_dir.as_deref()).await {
                    Ok(()) => at_rest::verify(&a, &server.url, off_as_control).await,
                    Err(e) => Err(e),
                };
                finish(server, outcome).await?;
            }
            Ok(true)
        }
        Command::Cleanup(a) => {
            for m in modes {
                let a = CleanupArgs {
                    data: a.data.with_at_rest(m),
                    ..a.clone()
                };
                let server = open_lease(&a.data).await?;
                let outcome = cleanup::cleanup(&a, &server.url).await;
                finish(server, outcome).await?;
            }
            Ok(true)
        }
        Command::Run(a) => {
            // Every mode's configuration first: nothing starts if one is wrong.
            let mut per_mode = Vec::new();
            for m in modes {
                let a = RunArgs {
                    data: a.data.with_at_rest(m),
                    ..(**a).clone()
                };
                let cfg = RunConfig::from_args(&a)?;
                per_mode.push((a, cfg));
            }
            if let Some(path) = &a.json_out {
                check_writable(path, "--json-out")?;
            }
            if let Some(path) = &a.svg {
                check_writable(path, "--svg")?;
            }
            if let (Some(json), Some(svg)) = (&a.json_out, &a.svg)
                && json == svg
            {
                bail!(
                    "--json-out and --svg are the same file ({}): give each its own path",
                    json.display()
                );
            }
            let mut servers = Vec::new();
            let mut cfgs = Vec::new();
            for (ma, mut cfg) in per_mode {
                let server = match open_lease(&ma.data).await {
                    Ok(s) => s,
                    Err(e) => {
                        for s in servers {
                            let _ = Lease::finish(s).await;
                        }
                        return Err(e);
                    }
                };
                cfg.url = server.url.clone().into();
                cfg.iops_cap = server.iops_cap();
                if let Some(line) = shared_warning(&server.shared_with) {
                    eprintln!("{line}");
                }
                cfg.shared_with = server.shared_with.clone();
                if a.server_pid.is_none() {
                    cfg.server_cpu = private_server_cpu(&server, &ma.data);
                }
                servers.push(server);
                cfgs.push(cfg);
            }
            let outcome = run::run(a, &cfgs).await;
            let mut stopped = Ok(());
            for s in servers {
                let r = s.finish().await;
                if stopped.is_ok() {
                    stopped = r;
                }
            }
            let complete = outcome?;
            stopped?;
            Ok(complete)
        }
        Command::Server(_) | Command::Merge(_) | Command::Reproduce(_) => Ok(true),
    }
}

/// Refuses `--iops-limit` where it would not hold the server's IO: PostgreSQL (`pgsql`:
/// not built), a server given by URL (`url`: not ours to put in a cgroup), or a filesystem
/// `--at-rest` mode (FUSE or a loop device: the disk IO is then done by the filesystem's
/// own threads, outside the server's cgroup). Checked first, before the other flags'
/// checks, which may look at the machine.
///
/// # Errors
/// One line naming the flag at fault and what to drop.
pub(crate) fn check_iops_limit(
    limit: Option<u32>,
    pgsql: bool,
    url: bool,
    modes: &[crate::at_rest::AtRest],
) -> Result<()> {
    if limit.is_none() {
        return Ok(());
    }
    if pgsql {
        bail!(
            "--iops-limit caps the private MariaDB: the private PostgreSQL has no IOPS cap yet; omit --iops-limit with --db-driver pgsql"
        );
    }
    if url {
        bail!(
            "--iops-limit caps the private server only: with --mysql-url, cap the server's disk yourself (or omit --mysql-url)"
        );
    }
    if let Some(m) = modes.iter().find(|m| m.is_filesystem()) {
        bail!(
            "--iops-limit caps the IO the server submits to its disk, and with --at-rest {} the disk IO is done by the filesystem's own threads, which the cap does not hold: use --at-rest off or innodb, or omit --iops-limit",
            m.name()
        );
    }
    Ok(())
}

/// The server `data` names: its URL, or the private server of its (one) `--at-rest`
/// mode, started or reused.
///
/// # Errors
/// The server cannot start.
pub async fn open_lease(data: &DataArgs) -> Result<Lease> {
    let base = crate::config::base_dir(data);
    if data.url().is_none() {
        check_base_dir(&base, data.db_driver == DbDriver::Pgsql)?;
    }
    let mode = data.at_rest_mode();
    Ok(match data.db_driver {
        DbDriver::Mysql => {
            Lease::open(data.url(), &base, mode, data.profile, data.iops_limit).await?
        }
        DbDriver::Pgsql => Lease::open_postgres(data.url(), &base, mode).await?,
    })
}

/// The warning for a run whose private server other live `oltp` processes (`pids`) use
/// too; `None` when none do.
pub fn shared_warning(pids: &[u32]) -> Option<String> {
    if pids.is_empty() {
        return None;
    }
    let list: Vec<String> = pids.iter().map(u32::to_string).collect();
    let (pid, uses, it) = if pids.len() == 1 {
        ("pid", "uses", "it")
    } else {
        ("pids", "use", "them")
    };
    Some(format!(
        "Warning: oltp {pid} {} {uses} the same private server: the runs share its cores, so these figures are not comparable with a quiet run's (recorded as shared_with in the JSON); wait for {it} to end, or give each run its own --base-dir (or ENCBENCH_HOME)",
        list.join(", ")
    ))
}

/// Creates `base` (the base directory, `--base-dir` or its default) if missing, before a
/// private server of the engine (`pgsql`: PostgreSQL, else MariaDB) is set up in it, once
/// that server's user (as root) is known to reach it.
///
/// # Errors
/// The server's user cannot reach it, or it cannot be created: one line naming it, the
/// cause and the fix.
pub fn check_base_dir(base: &std::path::Path, pgsql: bool) -> Result<()> {
    // Before anything is made: a refused base directory leaves none behind.
    crate::server::check_reachable(base, pgsql)?;
    std::fs::create_dir_all(base).map_err(|e| {
        anyhow::anyhow!(
            "--base-dir {}: cannot create it: {e}: give a directory you can write as --base-dir DIR (or set ENCBENCH_HOME)",
            base.display()
        )
    })
}

/// Ends `server`'s lease after `outcome`; the outcome's error first.
///
/// # Errors
/// `outcome`'s, else the server's stop.
async fn finish(server: Lease, outcome: Result<()>) -> Result<()> {
    let stopped = server.finish().await;
    outcome?;
    Ok(stopped?)
}

/// The server CPU source without `--server-pid`: the private server's
/// process (held by `server`, or a `--mysql-url` / `--pgsql-url` of a private
/// server of this base directory, from its pid file), else unavailable with the reason.
pub fn private_server_cpu(server: &Lease, data: &crate::cli::DataArgs) -> ServerCpu {
    let pid = server.server_pid().or_else(|| {
        let (url, base) = (data.url()?, crate::config::base_dir(data));
        match data.db_driver {
            DbDriver::Mysql => private_server_of(url, &base)?.read_pid(),
            DbDriver::Pgsql => PgServer::of_url(url, &base).map(|s| s.pid()),
        }
    });
    match pid.map(ServerProcess::open) {
        Some(Ok(p)) => ServerCpu::Process(p),
        Some(Err(e)) => ServerCpu::Unavailable(format!("the private server's process: {e}")),
        None => ServerCpu::Unavailable(NO_SERVER_PID_MESSAGE.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::shared_warning;

    #[test]
    fn the_shared_server_warning_names_every_other_pid() {
        assert_eq!(shared_warning(&[]), None);
        let one = shared_warning(&[41]).expect("a warning");
        assert!(
            one.starts_with("Warning: oltp pid 41 uses the same private server: "),
            "{one}"
        );
        assert!(
            one.ends_with(
                "wait for it to end, or give each run its own --base-dir (or ENCBENCH_HOME)"
            ),
            "{one}"
        );
        let two = shared_warning(&[41, 42]).expect("a warning");
        assert!(
            two.starts_with("Warning: oltp pids 41, 42 use the same private server: "),
            "{two}"
        );
        assert!(two.contains("wait for them to end"), "{two}");
    }
}
