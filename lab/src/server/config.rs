//! What a private server runs with: [`ServerConfig`] (extra `mariadbd` flags), the
//! `--profile` settings, TLS always on (certificates generated at first start, by
//! [`write_tls_files`], which the private PostgreSQL's use too) and, for the at-rest server,
//! the `file_key_management` plugin with a generated key.

use std::fs::{self, OpenOptions};
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use super::error::{Result, ServerError, io_err};
use super::layout::{Layout, TlsFiles, server_base};
use crate::at_rest::AtRest;

/// How to run a private server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The base directory; the server lives in `<base_dir>/mariadb/`. Relative paths are taken
    /// from the current directory.
    pub base_dir: PathBuf,
    /// Extra `mariadbd` flags, appended after ours (so they override them), e.g.
    /// `--ssl-cert=...` or `--innodb-encrypt-tables=ON`. A server already running on the
    /// directory with other extra flags is restarted by
    /// [`PrivateServer::start`](super::PrivateServer::start).
    pub extra_args: Vec<String>,
    /// `--iops-limit`: reads per second and writes per second (each) the server may submit
    /// to its data directory's disk, held by a cgroup of its own (`iops`); `None`: no cap. A
    /// running server with another cap (or none) is restarted, as for other flags.
    pub iops_limit: Option<u32>,
}

impl ServerConfig {
    /// A configuration for `base_dir` with no extra flags and no IOPS cap.
    pub fn new(base_dir: impl Into<PathBuf>) -> Self {
        Self {
            base_dir: base_dir.into(),
            extra_args: Vec::new(),
            iops_limit: None,
        }
    }

    /// What a server's `args.json` records and a running server is compared with: the
    /// extra flags, then `iops-limit=N` when capped (not a `mariadbd` flag).
    pub fn recorded_args(&self) -> Vec<String> {
        let mut args = self.extra_args.clone();
        if let Some(n) = self.iops_limit {
            args.push(format!("iops-limit={n}"));
        }
        args
    }

    /// Whether `recorded` (a server's `args.json`, [`recorded_args`](Self::recorded_args))
    /// holds these extra flags. Its `iops-limit=N` entry is left out: a running server's cap
    /// is checked once, against the kernel's cgroup ([`super::iops::of_pid`]), which holds
    /// the truth (a cap whose cgroup is gone no longer holds, whatever the file says).
    pub fn same_flags(&self, recorded: &[String]) -> bool {
        let flags = match recorded.split_last() {
            Some((last, rest)) if last.starts_with("iops-limit=") => rest,
            _ => recorded,
        };
        flags == self.extra_args.as_slice()
    }
}

/// Server settings of the private server (`--profile`), after the RDS report's
/// two test types (seed 004).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Profile {
    /// The launcher's settings: 1 GiB buffer pool, no binary log.
    #[default]
    Default,
    /// Buffer pool larger than the data (4 GiB), with the report's durability:
    /// binary log with sync_binlog=1, innodb_flush_log_at_trx_commit=1.
    Cached,
    /// Small buffer pool (128 MiB) so a data set several times larger is read
    /// from disk, with the same durability settings.
    IoBound,
}

impl Profile {
    /// The `mariadbd` flags of the profile (appended after the launcher's, so
    /// they override them).
    pub fn flags(self) -> Vec<String> {
        let durable = [
            "--log-bin=binlog",
            "--server-id=1",
            "--sync-binlog=1",
            "--innodb-flush-log-at-trx-commit=1",
        ];
        let pool = match self {
            Profile::Default => return Vec::new(),
            Profile::Cached => "--innodb-buffer-pool-size=4G",
            Profile::IoBound => "--innodb-buffer-pool-size=128M",
        };
        std::iter::once(pool)
            .chain(durable)
            .map(str::to_string)
            .collect()
    }
}

/// The private server's configuration: TLS always on (certificates created at
/// first start), the `profile`'s settings, and with `at_rest` `innodb` the
/// `file_key_management` plugin and InnoDB table and redo-log encryption, in
/// `server_base(base, at_rest)` (a filesystem mode needs no flag: its data directory is
/// on the mount, `crate::at_rest`). A server already running there with other
/// settings is restarted by [`PrivateServer::start`](super::PrivateServer::start).
///
/// # Errors
///
/// [`ServerError::Generate`] or [`ServerError::Io`]: the certificate or key files cannot be
/// created.
pub fn server_config(base: &Path, at_rest: AtRest, profile: Profile) -> Result<ServerConfig> {
    let sbase = server_base(base, at_rest);
    let layout = Layout::new(&sbase);
    let files = layout.tls_files();
    ensure_tls_files(&files, "MariaDB")?;
    let path = |p: &Path| p.display().to_string();
    let mut extra = vec![
        format!("--ssl-ca={}", path(&files.ca)),
        format!("--ssl-cert={}", path(&files.cert)),
        format!("--ssl-key={}", path(&files.key)),
    ];
    if at_rest == AtRest::Innodb {
        let keys = layout.at_rest_key_file();
        ensure_at_rest_key(&keys)?;
        extra.extend([
            "--plugin-load-add=file_key_management".to_string(),
            format!("--file-key-management-filename={}", path(&keys)),
            "--innodb-encrypt-tables=ON".to_string(),
            "--innodb-encrypt-log=ON".to_string(),
            "--innodb-encrypt-temporary-tables=ON".to_string(),
            "--innodb-encryption-threads=2".to_string(),
        ]);
    }
    extra.extend(profile.flags());
    let mut cfg = ServerConfig::new(sbase);
    cfg.extra_args = extra;
    Ok(cfg)
}

/// The host names every private server's certificate is issued for: the URLs
/// `oltp` prints use `127.0.0.1`.
pub const PRIVATE_HOSTS: [&str; 2] = ["127.0.0.1", "localhost"];

/// Creates the CA and server certificate in `files` unless all three files exist: as
/// [`write_tls_files`] for `engine`'s private server and [`PRIVATE_HOSTS`].
///
/// # Errors
///
/// As [`write_tls_files`].
pub fn ensure_tls_files(files: &TlsFiles, engine: &str) -> Result<()> {
    if files.ca.exists() && files.cert.exists() && files.key.exists() {
        return Ok(());
    }
    write_tls_files(files, engine, &PRIVATE_HOSTS)
}

/// Writes a new CA and a server certificate signed by it into `files` (replacing them): an
/// ECDSA P-256 CA named `encbench private <engine> CA` and a certificate named
/// `encbench private <engine>` whose subject alternative names are `hosts` (an IP address
/// or a DNS name each), both X.509 v3 ([`encbench_common::pki`]); the key gets mode 0600.
/// `engine` is the server's name as people write it (`MariaDB`, `PostgreSQL`).
///
/// # Errors
///
/// [`ServerError::Generate`] when certificate generation fails (e.g. a host that is no
/// valid name), [`ServerError::Io`] when a file cannot be written.
pub fn write_tls_files(files: &TlsFiles, engine: &str, hosts: &[&str]) -> Result<()> {
    use encbench_common::pki::{Chain, ChainSpec, KeyType, PkiError, ServerFiles};
    let written = Chain::generate(&ChainSpec {
        key_type: KeyType::EcdsaP256,
        ca_name: &format!("encbench private {engine} CA"),
        server_name: &format!("encbench private {engine}"),
        hosts,
    })
    .and_then(|chain| {
        chain.write(&ServerFiles {
            ca: &files.ca,
            cert: &files.cert,
            key: &files.key,
        })
    });
    written.map_err(|e| match e {
        PkiError::Write {
            action,
            path,
            source,
        } => ServerError::Io(crate::io_failure::IoFailure {
            action,
            path,
            source,
        }),
        PkiError::Generate { source, .. } => ServerError::Generate {
            what: "the private server's TLS certificates",
            detail: source.to_string(),
        },
        other => ServerError::Generate {
            what: "the private server's TLS certificates",
            detail: other.to_string(),
        },
    })
}

/// Creates the at-rest key file (`1;` + 64 hex digits, AES-256, MariaDB's
/// `file_key_management` format; mode 0600) unless it exists.
///
/// # Errors
///
/// [`ServerError::Generate`] when no key can be drawn, [`ServerError::Io`] when the file
/// cannot be written.
pub fn ensure_at_rest_key(path: &Path) -> Result<()> {
    if path.exists() {
        return Ok(());
    }
    // 32 bytes from the OS RNG (`getrandom(2)`), kept from logs and wiped on drop.
    let mut key = zeroize::Zeroizing::new([0u8; 32]);
    getrandom::fill(&mut key[..]).map_err(|_| ServerError::Generate {
        what: "the at-rest key",
        detail: "the operating system's random number generator failed".to_string(),
    })?;
    let text = zeroize::Zeroizing::new(format!(
        "# InnoDB at-rest key for the encbench private server (file_key_management)\n1;{}\n",
        zeroize::Zeroizing::new(hex::encode(&key[..])).as_str()
    ));
    write_private(path, text.as_bytes(), 0o600)
}

/// Writes `bytes` to `path` with `mode` through a temporary file and a rename (creating the
/// directory), so a reader never sees half a key.
fn write_private(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(io_err("create", dir))?;
    }
    let tmp = path.with_extension("tmp");
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .open(&tmp)
        .map_err(io_err("write", &tmp))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(io_err("write", &tmp))?;
    fs::rename(&tmp, path).map_err(io_err("write", path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The TLS files under `dir/tls/`, as a layout names them.
    fn tls_under(dir: &Path) -> TlsFiles {
        let tls = dir.join("tls");
        TlsFiles {
            ca: tls.join("ca.pem"),
            cert: tls.join("server-cert.pem"),
            key: tls.join("server-key.pem"),
        }
    }

    #[test]
    fn tls_files_are_written_with_their_modes_and_failures_are_one_line() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let files = tls_under(dir.path());
        write_tls_files(&files, "MariaDB", &PRIVATE_HOSTS).expect("written");
        let mode = |p: &Path| fs::metadata(p).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode(&files.key), 0o600);
        assert_eq!(mode(&files.cert), 0o644);
        assert_eq!(mode(&files.ca), 0o644);
        let ca = fs::read(&files.ca).expect("CA");
        // A host that is no name (a DNS name is ASCII): nothing is replaced.
        let e = write_tls_files(&files, "MariaDB", &["caf\u{e9}.test"]).expect_err("bad host");
        assert!(matches!(e, ServerError::Generate { .. }), "{e:?}");
        assert!(
            e.to_string()
                .starts_with("cannot generate the private server's TLS certificates: "),
            "{e}"
        );
        assert_eq!(fs::read(&files.ca).expect("CA"), ca);
        // A directory that cannot be created (under a regular file: even for root).
        let file = dir.path().join("a-file");
        fs::write(&file, b"x").expect("write");
        let e = write_tls_files(&tls_under(&file), "MariaDB", &PRIVATE_HOSTS)
            .expect_err("not a directory");
        assert!(matches!(e, ServerError::Io(_)), "{e:?}");
        assert_eq!(
            e.to_string(),
            format!(
                "cannot create {}: Not a directory (os error 20)",
                file.join("tls").display()
            )
        );
    }

    #[test]
    fn same_flags_leaves_the_cap_to_the_kernel() {
        let mut cfg = ServerConfig::new("/b");
        cfg.extra_args = vec!["--log-bin".to_string()];
        let flags = cfg.recorded_args();
        cfg.iops_limit = Some(500);
        let capped = cfg.recorded_args();
        assert_eq!(capped.last().map(String::as_str), Some("iops-limit=500"));
        // The recorded cap, whatever it says, is not compared: the kernel's is.
        assert!(cfg.same_flags(&capped));
        assert!(cfg.same_flags(&flags));
        cfg.iops_limit = None;
        assert!(cfg.same_flags(&capped));
        // Other flags are.
        assert!(!cfg.same_flags(&[]));
        assert!(!cfg.same_flags(&["--log-bin".into(), "--skip-log-bin".into()]));
        assert!(!ServerConfig::new("/b").same_flags(&flags));
    }
}
