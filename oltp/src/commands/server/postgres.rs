//! `oltp server start|stop --db-driver pgsql`: the private PostgreSQL.

use std::path::Path;

use anyhow::{Context, Result, bail};
use encbench_common::password::without_password;

use crate::at_rest::unmount_for;
use crate::cli::{ServerAction, ServerArgs};
use crate::server::Profile;
use crate::server::postgres::{PgLayout, PgServer};
use crate::server::server_base;

/// Starts (or reuses) the private PostgreSQL and prints its URL, or stops it.
///
/// # Errors
/// The server cannot start or stop; flags the PostgreSQL server does not have.
pub async fn server(a: &ServerArgs, base: &Path) -> Result<()> {
    if a.profile != Profile::Default {
        bail!(
            "--profile sets MariaDB's buffer pool and durability: the private PostgreSQL has only its default settings yet; omit --profile with --db-driver pgsql"
        );
    }
    let base = server_base(base, a.at_rest);
    match a.action {
        ServerAction::Start => {
            let server = tokio::task::spawn_blocking(move || PgServer::start(&base))
                .await
                .context("server start task panicked")??;
            // The URL without the password (it stays in its 0600 file).
            println!("{}", without_password(&server.url()));
            eprintln!(
                "private PostgreSQL running (pid {}, data {}, password in {}: connect with --pgsql-url URL --password-file {}, TLS CA {}); stop it with `oltp server stop --db-driver pgsql{}`",
                server.pid(),
                server.layout().data().display(),
                server.layout().password_file().display(),
                server.layout().password_file().display(),
                server.layout().tls_files().ca.display(),
                a.base_dir
                    .as_ref()
                    .map(|d| format!(" --base-dir {}", d.display()))
                    .unwrap_or_default()
            );
            // No longer ephemeral: no command's lease stops it (`crate::server::Lease`).
            let _ = std::fs::remove_file(server.layout().ephemeral_marker());
            server.detach();
        }
        ServerAction::Stop => {
            let stopped = tokio::task::spawn_blocking(move || match PgServer::running(&base)? {
                Some(s) => Ok(s.stop().map(|()| true)?),
                // Not running: its filesystem may still be mounted (a server killed).
                None => {
                    let layout = PgLayout::new(&base);
                    unmount_for(layout.base(), layout.dir())?;
                    Ok::<_, anyhow::Error>(false)
                }
            })
            .await
            .context("server stop task panicked")??;
            eprintln!(
                "{}",
                if stopped {
                    "private PostgreSQL stopped"
                } else {
                    "private PostgreSQL was not running"
                }
            );
        }
    }
    Ok(())
}
