//! `oltp server start|stop`: keep the private server running between commands, or stop it.

use anyhow::{Context, Result};

use crate::cli::{ServerAction, ServerArgs};
use crate::security::{server_config, tls_files};
use crate::server::{PrivateServer, default_base_dir};

use super::lease::{ephemeral_marker, other_users};

/// Runs `oltp server`.
///
/// # Errors
/// The server cannot start or stop.
pub async fn server(a: &ServerArgs) -> Result<()> {
    let cfg = server_config(
        &a.base_dir.clone().unwrap_or_else(default_base_dir),
        a.at_rest,
        a.profile,
    )?;
    let action = a.action;
    let server = tokio::task::spawn_blocking(move || PrivateServer::start(&cfg))
        .await
        .context("server start task panicked")??;
    match action {
        ServerAction::Start => {
            let _ = std::fs::remove_file(ephemeral_marker(server.base_dir()));
            println!("{}", server.url());
            eprintln!(
                "private MariaDB running (pid {}, socket {}, TLS CA {}); stop it with `oltp server stop{}`",
                server.pid(),
                server.socket_path().display(),
                tls_files(server.base_dir()).ca.display(),
                a.base_dir
                    .as_ref()
                    .map(|d| format!(" --base-dir {}", d.display()))
                    .unwrap_or_default()
            );
            server.detach();
        }
        ServerAction::Stop => {
            let _ = std::fs::remove_file(ephemeral_marker(server.base_dir()));
            if !server.started_here() && other_users(server.base_dir()) > 0 {
                eprintln!("note: other oltp commands are using this server; they will fail");
            }
            tokio::task::spawn_blocking(move || server.stop_any())
                .await
                .context("server stop task panicked")??;
            eprintln!("private MariaDB stopped");
        }
    }
    Ok(())
}
