//! encbench-proxy: a MySQL-protocol proxy between any MySQL client (stock sysbench, the
//! `mariadb` CLI, oltp) and a MariaDB/MySQL server, forwarding packets (`forward` mode) or
//! encrypting columns on the way (`encrypt` mode, to come: its statement analysis is [`analysis`]).
//!
//! Shape: [`cli`] (flags) -> [`server`] (listener, one task per client, stop) ->
//! [`conn`] (login relay, forwarding) over `encbench-mysql-wire`, replies followed by
//! [`reply`]; counters, interval lines and the JSON summary in [`stats`].

pub mod analysis;
pub mod cli;
pub mod conn;
pub mod reply;
pub mod server;
pub mod stats;
pub mod tls;

use anyhow::Context as _;

/// Runs the proxy the command line asks for until SIGTERM/SIGINT; then writes the summary
/// (`--summary`) and prints it on standard error.
///
/// # Errors
/// The listen address cannot be bound, the signal handlers cannot be installed, or the
/// summary cannot be written.
pub async fn run(cli: cli::Cli) -> anyhow::Result<()> {
    let stop = server::stop_signal()?;
    let tls = match (&cli.tls_cert, &cli.tls_key) {
        (Some(cert), Some(key)) => Some(tls::acceptor(cert, key)?),
        _ => None,
    };
    let backend_tls = match &cli.backend_tls_ca {
        Some(ca) if cli.backend_tls => Some(tls::connector(ca, &cli.backend.host)?),
        _ => None,
    };
    let proxy = server::Proxy::bind(cli.listen, cli.backend.clone(), tls, backend_tls).await?;
    let addr = proxy
        .local_addr()
        .context("cannot read the listen address")?;
    eprintln!(
        "encbench-proxy: listening on {addr}, backend {}, mode forward, client TLS {}, backend TLS {}",
        cli.backend,
        if cli.tls_cert.is_some() { "on" } else { "off" },
        if cli.backend_tls { "on" } else { "off" }
    );
    let summary = proxy.run(stop, cli.report_interval).await;
    eprintln!(
        "encbench-proxy: stopped: {} queries in {:.1} s ({:.1} per s), {} connections, {} errors, CPU {:.2} s",
        summary.queries,
        summary.duration_s,
        summary.qps,
        summary.connections,
        summary.errors,
        summary.cpu_user_s + summary.cpu_sys_s
    );
    if let Some(path) = &cli.summary {
        let json = serde_json::to_vec_pretty(&summary).context("cannot encode the summary")?;
        encbench_common::output::write_atomically(path, &json, "--summary")?;
    }
    Ok(())
}
