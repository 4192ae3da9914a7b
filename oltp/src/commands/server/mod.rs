//! `oltp server start|stop`: keep the private server running between commands, or stop it.

use anyhow::Result;

use crate::at_rest::check_available;
use crate::cli::{DbDriver, ServerAction, ServerArgs};
use crate::server::{Standing, default_base_dir};

mod postgres;

/// Runs `oltp server`.
///
/// # Errors
/// The server cannot start or stop.
pub async fn server(a: &ServerArgs) -> Result<()> {
    let base = a.base_dir.clone().unwrap_or_else(default_base_dir);
    check_available(a.at_rest, a.db_driver == DbDriver::Pgsql, false)?;
    if a.db_driver == DbDriver::Pgsql {
        return postgres::server(a, &base).await;
    }
    let standing = Standing::open(&base, a.at_rest, a.profile).await?;
    let server = standing.server();
    match a.action {
        ServerAction::Start => {
            println!("{}", server.url());
            eprintln!(
                "private MariaDB running (pid {}, socket {}, TLS CA {}); stop it with `oltp server stop{}`",
                server.pid(),
                server.socket_path().display(),
                standing.layout().tls_files().ca.display(),
                a.base_dir
                    .as_ref()
                    .map(|d| format!(" --base-dir {}", d.display()))
                    .unwrap_or_default()
            );
            standing.keep();
        }
        ServerAction::Stop => {
            if !server.started_here() && standing.other_users() > 0 {
                eprintln!("note: other oltp commands are using this server; they will fail");
            }
            standing.stop().await?;
            eprintln!("private MariaDB stopped");
        }
    }
    Ok(())
}
