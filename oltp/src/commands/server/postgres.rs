//! `oltp server start|stop --db-driver pgsql`: the private PostgreSQL.

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::cli::{ServerAction, ServerArgs};
use crate::server::Profile;
use crate::server::postgres::PgServer;

/// Starts (or reuses) the private PostgreSQL and prints its URL, or stops it.
///
/// # Errors
/// The server cannot start or stop; flags the PostgreSQL server does not have.
pub async fn server(a: &ServerArgs, base: &Path) -> Result<()> {
    if a.at_rest {
        bail!(
            "--at-rest is MariaDB's InnoDB encryption: the private PostgreSQL has no at-rest mode yet; omit --at-rest with --db-driver pgsql"
        );
    }
    if a.profile != Profile::Default {
        bail!(
            "--profile sets MariaDB's buffer pool and durability: the private PostgreSQL has only its default settings yet; omit --profile with --db-driver pgsql"
        );
    }
    let base = base.to_path_buf();
    match a.action {
        ServerAction::Start => {
            let server = tokio::task::spawn_blocking(move || PgServer::start(&base))
                .await
                .context("server start task panicked")??;
            println!("{}", server.url());
            eprintln!(
                "private PostgreSQL running (pid {}, data {}, password in {}, TLS CA {}); stop it with `oltp server stop --db-driver pgsql{}`",
                server.pid(),
                server.layout().data().display(),
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
                Some(s) => s.stop().map(|()| true),
                None => Ok(false),
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
