//! The private server's lease: commands that use the private server register
//! as its users; the last one out stops a server that a command started.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::cli::DataArgs;
use crate::security::{server_base, server_config, tls_files};
use crate::server::PrivateServer;

/// The server to use: `--mysql-url`, or the private server (started here if it
/// was not running, and stopped by [`ServerGuard::finish`] when the last `oltp`
/// command using it ends, unless `oltp server start` keeps it).
///
/// Commands that use the private server register in `<base>/mariadb/users/<pid>`;
/// a server started by a command carries the marker `<base>/mariadb/ephemeral`.
pub struct ServerGuard {
    /// URL of the server.
    pub url: String,
    server: Option<(PrivateServer, PathBuf)>,
}

pub(super) fn users_dir(base: &Path) -> PathBuf {
    base.join("mariadb").join("users")
}

pub(super) fn ephemeral_marker(base: &Path) -> PathBuf {
    base.join("mariadb").join("ephemeral")
}

/// Other live processes registered as users of the private server.
pub(super) fn other_users(base: &Path) -> usize {
    let me = std::process::id().to_string();
    let Ok(entries) = std::fs::read_dir(users_dir(base)) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let alive = Path::new("/proc").join(&name).exists();
            if !alive {
                let _ = std::fs::remove_file(e.path());
            }
            alive && name != me
        })
        .count()
}

impl ServerGuard {
    /// Uses `--mysql-url` or starts (or attaches to) the private server in `base_dir`.
    ///
    /// # Errors
    /// The private server cannot start (e.g. MariaDB is not installed).
    pub async fn open(data: &DataArgs) -> Result<ServerGuard> {
        if let Some(url) = &data.mysql_url {
            return Ok(ServerGuard {
                url: url.clone(),
                server: None,
            });
        }
        let base = crate::config::server_base_dir(data);
        let me = users_dir(&base).join(std::process::id().to_string());
        std::fs::create_dir_all(users_dir(&base))
            .with_context(|| format!("cannot create {}", users_dir(&base).display()))?;
        std::fs::write(&me, b"").with_context(|| format!("cannot write {}", me.display()))?;
        let cfg = server_config(&crate::config::base_dir(data), data.at_rest, data.profile)?;
        // A server that other oltp commands are using is not restarted under
        // them for other settings: refuse instead.
        let recorded: Option<Vec<String>> =
            std::fs::read_to_string(base.join("mariadb").join("args.json"))
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok());
        if other_users(&base) > 0 && recorded.is_some_and(|r| r != cfg.extra_args) {
            let _ = std::fs::remove_file(&me);
            bail!(
                "the private server in {} is in use by another oltp command with other settings (--profile): wait for it to finish, or use another --base-dir",
                base.display()
            );
        }
        let started = tokio::task::spawn_blocking(move || PrivateServer::start(&cfg))
            .await
            .context("server start task panicked")?;
        let server = match started {
            Ok(s) => s,
            Err(e) => {
                let _ = std::fs::remove_file(&me);
                return Err(e.into());
            }
        };
        if server.started_here() {
            std::fs::write(ephemeral_marker(&base), b"")
                .with_context(|| format!("cannot write {}", ephemeral_marker(&base).display()))?;
        }
        Ok(ServerGuard {
            url: server.url(),
            server: Some((server, base)),
        })
    }

    /// Leaves the private server running if another `oltp` command uses it or
    /// `oltp server start` keeps it; stops it otherwise.
    ///
    /// # Errors
    /// The server did not shut down.
    pub async fn finish(self) -> Result<()> {
        let Some((server, base)) = self.server else {
            return Ok(());
        };
        let _ = std::fs::remove_file(users_dir(&base).join(std::process::id().to_string()));
        if other_users(&base) > 0 || !ephemeral_marker(&base).exists() {
            server.detach();
            return Ok(());
        }
        let _ = std::fs::remove_file(ephemeral_marker(&base));
        tokio::task::spawn_blocking(move || server.stop_any())
            .await
            .context("server stop task panicked")??;
        Ok(())
    }
}

/// The private server base directory (plain or at rest) under `base` whose
/// loopback port `url` names, if any.
pub fn private_server_of(url: &str, base: &Path) -> Option<PathBuf> {
    let opts = mysql_async::Opts::from_url(url).ok()?;
    if !matches!(opts.ip_or_hostname(), "127.0.0.1" | "localhost") {
        return None;
    }
    [false, true]
        .into_iter()
        .map(|at_rest| server_base(base, at_rest))
        .find(|sbase| {
            std::fs::read_to_string(sbase.join("mariadb").join("port"))
                .ok()
                .and_then(|p| p.trim().parse::<u16>().ok())
                == Some(opts.tcp_port())
                && tls_files(sbase).ca.exists()
        })
}
