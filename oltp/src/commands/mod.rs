//! What each subcommand does, one file each; the only place that prints.

use anyhow::{Result, bail};
use clap::ValueEnum as _;

use crate::cli::{Cli, Command, DbDriver};
use crate::config::{RunConfig, check_driver_flags, data_set, parse_encrypts};
use crate::server::postgres::PgServer;
use crate::server::{Lease, Profile, private_server_of};
use crate::server_cpu::{PID_UNKNOWN, ServerCpu, ServerProcess};

use output::check_writable;

mod at_rest;
mod cleanup;
mod merge;
mod output;
mod prepare;
mod run;
mod server;

pub use output::write_atomically;

/// Runs a parsed command line. Returns `false` when a run stopped early (the
/// report then says so and the process should exit non-zero).
///
/// # Errors
/// Anything that prevents the command from doing its job; messages name the fix.
pub async fn execute(cli: Cli) -> Result<bool> {
    let data = match &cli.command {
        Command::Prepare(a) => &a.data,
        Command::Run(a) => &a.data,
        Command::Cleanup(a) => &a.data,
        Command::Server(a) => return server::server(a).await.map(|()| true),
        Command::Merge(a) => return merge::merge(a),
    };
    // Validate everything before starting anything.
    check_driver_flags(data)?;
    data_set(data)?;
    if data.url().is_some() && data.profile != Profile::Default {
        bail!(
            "--profile {} sets up the private server only: with --mysql-url, set the server's variables yourself (or omit --mysql-url)",
            data.profile
                .to_possible_value()
                .map_or(String::new(), |v| v.get_name().to_string())
        );
    }
    let mut run_cfg = None;
    match &cli.command {
        Command::Prepare(a) => drop(parse_encrypts(&a.encrypt, data_set(data)?.columns)?),
        Command::Run(a) => {
            run_cfg = Some(RunConfig::from_args(a)?);
            if let Some(path) = &a.json_out {
                check_writable(path, "--json-out")?;
            }
            if let Some(path) = &a.svg {
                check_writable(path, "--svg")?;
            }
        }
        Command::Cleanup(_) | Command::Server(_) | Command::Merge(_) => {}
    }
    let base = crate::config::base_dir(data);
    let server = match data.db_driver {
        DbDriver::Mysql => Lease::open(data.url(), &base, data.at_rest, data.profile).await?,
        DbDriver::Pgsql => Lease::open_postgres(data.url(), &base, data.at_rest).await?,
    };
    let outcome = match &cli.command {
        Command::Prepare(a) => match prepare::prepare(a, &server.url).await {
            Ok(()) => at_rest::verify(a).map(|()| true),
            Err(e) => Err(e),
        },
        Command::Run(a) => match run_cfg {
            Some(mut cfg) => {
                cfg.url = server.url.clone();
                if a.server_pid.is_none() {
                    cfg.server_cpu = private_server_cpu(&server, data);
                }
                run::run(a, &cfg).await
            }
            None => Ok(true),
        },
        Command::Cleanup(a) => cleanup::cleanup(a, &server.url).await.map(|()| true),
        Command::Server(_) | Command::Merge(_) => Ok(true),
    };
    let stopped = server.finish().await;
    let complete = outcome?;
    stopped?;
    Ok(complete)
}

/// The server CPU source without `--server-pid`: the private server's
/// process (held by `server`, or a `--mysql-url` / `--pgsql-url` of a private
/// server of this base directory, from its pid file), else unavailable with the reason.
fn private_server_cpu(server: &Lease, data: &crate::cli::DataArgs) -> ServerCpu {
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
        None => ServerCpu::Unavailable(PID_UNKNOWN.to_string()),
    }
}
