//! The two server-side encryption layers `oltp` measures besides column
//! encryption: TLS between client and server (`--tls`) and InnoDB encryption at
//! rest (`--at-rest`), for the private server and for any `--mysql-url`.
//!
//! - TLS: the private server always listens with a certificate chain generated
//!   at its first start (rcgen: an ECDSA P-256 CA and a server certificate for
//!   `127.0.0.1` and `localhost`, in `<server dir>/tls/`), so plaintext and TLS
//!   runs share one server. The client (mysql_async over rustls with the
//!   aws-lc-rs provider) verifies the server against that CA only, always over
//!   TCP, and every TLS connection checks that the server reports a non-empty
//!   `Ssl_cipher`: a silent plaintext fallback cannot pass.
//! - At rest: a separate private server (`<base-dir>/at-rest/mariadb/`) runs with
//!   the `file_key_management` plugin, a key file generated at its first start
//!   and `innodb_encrypt_tables`/`innodb_encrypt_log` on; before a run every
//!   `sbtest` tablespace must read `ENCRYPTION_SCHEME = 1` in
//!   `information_schema.INNODB_TABLESPACES_ENCRYPTION`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::server::ServerConfig;

/// Where the private server's TLS files live.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    /// The CA certificate (PEM) the client trusts.
    pub ca: PathBuf,
    /// The server certificate (PEM), signed by the CA.
    pub cert: PathBuf,
    /// The server's private key (PKCS#8 PEM, mode 0600).
    pub key: PathBuf,
}

/// The TLS files of the private server whose directory is `<base>/mariadb`.
pub fn tls_files(server_base: &Path) -> TlsFiles {
    let dir = server_base.join("mariadb").join("tls");
    TlsFiles {
        ca: dir.join("ca.pem"),
        cert: dir.join("server-cert.pem"),
        key: dir.join("server-key.pem"),
    }
}

/// The at-rest key file of a private server base directory.
pub fn at_rest_key_file(server_base: &Path) -> PathBuf {
    server_base.join("mariadb").join("at-rest.keys")
}

/// The base directory of the private server: `base`, or `base/at-rest` for the
/// server that encrypts InnoDB at rest (its own data: tables written without
/// encryption are never mixed with encrypted ones).
pub fn server_base(base: &Path, at_rest: bool) -> PathBuf {
    if at_rest {
        base.join("at-rest")
    } else {
        base.to_path_buf()
    }
}

fn write_private(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .open(&tmp)
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Creates the CA and server certificate in `files` unless all three files exist.
///
/// # Errors
/// Certificate generation or writing failed.
pub fn ensure_tls_files(files: &TlsFiles) -> Result<()> {
    if files.ca.exists() && files.cert.exists() && files.key.exists() {
        return Ok(());
    }
    let generate = || -> std::result::Result<(String, String, String), rcgen::Error> {
        let ca_key = rcgen::KeyPair::generate()?;
        let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new())?;
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "encbench private MariaDB CA");
        ca_params.key_usages = vec![
            rcgen::KeyUsagePurpose::KeyCertSign,
            rcgen::KeyUsagePurpose::CrlSign,
        ];
        let ca_cert = ca_params.self_signed(&ca_key)?;
        let issuer = rcgen::Issuer::new(ca_params, ca_key);
        let key = rcgen::KeyPair::generate()?;
        let mut params =
            rcgen::CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()])?;
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "encbench private MariaDB");
        let cert = params.signed_by(&key, &issuer)?;
        Ok((ca_cert.pem(), cert.pem(), key.serialize_pem()))
    };
    let (ca, cert, key) =
        generate().context("cannot generate the private server's TLS certificates")?;
    write_private(&files.key, key.as_bytes(), 0o600)?;
    write_private(&files.cert, cert.as_bytes(), 0o644)?;
    write_private(&files.ca, ca.as_bytes(), 0o644)?;
    Ok(())
}

/// Creates the at-rest key file (`1;` + 64 hex digits, AES-256, MariaDB's
/// `file_key_management` format) unless it exists.
///
/// # Errors
/// Key generation or writing failed.
pub fn ensure_at_rest_key(path: &Path) -> Result<()> {
    if path.exists() {
        return Ok(());
    }
    let key = encbench_crypto::Key::generate(32)?;
    let text = format!(
        "# InnoDB at-rest key for the encbench private server (file_key_management)\n1;{}\n",
        key.to_hex().as_str()
    );
    write_private(path, text.as_bytes(), 0o600)
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
/// first start), the `profile`'s settings, and with `at_rest` the
/// `file_key_management` plugin and InnoDB table and redo-log encryption, in
/// `server_base(base, at_rest)`. A server already running there with other
/// settings is restarted by [`crate::server::PrivateServer::start`].
///
/// # Errors
/// The certificate or key files cannot be created.
pub fn server_config(base: &Path, at_rest: bool, profile: Profile) -> Result<ServerConfig> {
    let sbase = server_base(base, at_rest);
    let files = tls_files(&sbase);
    ensure_tls_files(&files)?;
    let path = |p: &Path| p.display().to_string();
    let mut extra = vec![
        format!("--ssl-ca={}", path(&files.ca)),
        format!("--ssl-cert={}", path(&files.cert)),
        format!("--ssl-key={}", path(&files.key)),
    ];
    if at_rest {
        let keys = at_rest_key_file(&sbase);
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
