//! `oltp server start|stop`: keep the private server running between commands, or stop it.
//! `start` prints the URL without its password and names the password's file
//! (`--password-file`).

use anyhow::Result;
use encbench_common::password::without_password;

use crate::at_rest::check_available;
use crate::cli::{DbDriver, ServerAction, ServerArgs};
use crate::server::{Layout, StandingServer, default_base_dir, server_base};

mod postgres;

/// Runs `oltp server`.
///
/// # Errors
/// The server cannot start or stop.
pub async fn server(a: &ServerArgs) -> Result<()> {
    let base = a.base_dir.clone().unwrap_or_else(default_base_dir);
    super::check_iops_limit(
        a.iops_limit,
        a.db_driver == DbDriver::Pgsql,
        false,
        &[a.at_rest],
    )?;
    check_available(a.at_rest, a.db_driver == DbDriver::Pgsql, false)?;
    if a.db_driver == DbDriver::Pgsql {
        return postgres::server(a, &base).await;
    }
    if a.action == ServerAction::Stop {
        let layout = Layout::new(server_base(&base, a.at_rest));
        if !StandingServer::running(&layout) {
            // Its filesystem may still be mounted (a server killed), as PostgreSQL's.
            crate::at_rest::unmount_for(layout.base(), layout.dir())?;
            eprintln!("private MariaDB was not running");
            return Ok(());
        }
    }
    let standing = StandingServer::open(&base, a.at_rest, a.profile, a.iops_limit).await?;
    let server = standing.server();
    match a.action {
        ServerAction::Start => {
            // The URL without the password, which stays in its 0600 file: a
            // command line that carries it is readable by every local user.
            println!("{}", without_password(&server.url()));
            eprintln!(
                "private MariaDB running (pid {}, socket {}, password in {}: connect with --mysql-url URL --password-file {}, TLS CA {}{}); stop it with `oltp server stop{}`",
                server.pid(),
                server.socket_path().display(),
                server.password_file().display(),
                server.password_file().display(),
                standing.layout().tls_files().ca.display(),
                server
                    .iops_cap()
                    .map(|c| format!(", IOPS cap {}", c.text()))
                    .unwrap_or_default(),
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
