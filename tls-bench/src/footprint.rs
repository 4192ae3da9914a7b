//! Footprint, the study's "about 5%": the same minimal MySQL-style client
//! (`tls-bench/footprint`: connect, greeting, COM_QUERY, OK) built without
//! TLS, with rustls, and with OpenSSL linked dynamically; each binary stripped
//! (a copy, with `strip`), and for OpenSSL the libssl and libcrypto it loads
//! (found with `ldd`) counted too. Every program is also run once against a
//! live server of its kind, so a size is never reported for a program that
//! does not work.
//!
//! The programs are built ahead of time, not by tls-bench:
//! `cargo build --release -p tls-bench-footprint`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::config::{TlsVersion, Transport};
use crate::error::{Error, Result};
use crate::net;
use crate::pki::Pki;
use crate::tls::{BoxIo, Server, TlsParams, with_timeout};

/// The command that builds the programs.
pub const BUILD_COMMAND: &str = "cargo build --release -p tls-bench-footprint";

/// One variant's size.
#[derive(Clone, Debug, Serialize)]
pub struct FootprintRow {
    /// `plain`, `rustls-aws-lc-rs`, `openssl` (binary alone), `openssl+libs`
    /// (binary + libssl + libcrypto).
    pub variant: &'static str,
    /// Stripped size, bytes (sum of the files for `openssl+libs`).
    pub bytes: u64,
    /// Size before stripping, bytes (the shared objects as installed).
    pub unstripped_bytes: u64,
    /// Difference to `plain`, %.
    pub pct_vs_plain: f64,
    /// The files counted.
    pub files: Vec<String>,
}

struct Program {
    variant: &'static str,
    file: &'static str,
    transport: Transport,
}

const PROGRAMS: [Program; 3] = [
    Program {
        variant: "plain",
        file: "footprint-plain",
        transport: Transport::Plain,
    },
    Program {
        variant: "rustls-aws-lc-rs",
        file: "footprint-rustls",
        transport: Transport::RustlsAwsLcRs,
    },
    Program {
        variant: "openssl",
        file: "footprint-openssl",
        transport: Transport::Openssl,
    },
];

/// The directory tls-bench itself runs from (`target/release` for
/// `cargo run --release`), where the programs are looked for by default.
///
/// # Errors
/// [`Error::Footprint`] if the executable's path is unknown.
pub fn default_dir() -> Result<PathBuf> {
    let exe = std::env::current_exe()
        .map_err(|e| Error::Footprint(format!("cannot find tls-bench's own path: {e}")))?;
    // Integration tests run from target/<profile>/deps.
    let dir = exe
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| Error::Footprint("tls-bench's path has no directory".to_string()))?;
    Ok(if dir.ends_with("deps") {
        dir.parent().map(Path::to_path_buf).unwrap_or(dir)
    } else {
        dir
    })
}

fn size(p: &Path) -> Result<u64> {
    std::fs::metadata(p)
        .map(|m| m.len())
        .map_err(|e| Error::Footprint(format!("{}: {e}", p.display())))
}

fn stripped_size(p: &Path, tmp: &Path) -> Result<u64> {
    let name = p
        .file_name()
        .ok_or_else(|| Error::Footprint(format!("{}: not a file", p.display())))?;
    let copy = tmp.join(name);
    std::fs::copy(p, &copy).map_err(|e| Error::Footprint(format!("copy {}: {e}", p.display())))?;
    let out = Command::new("strip")
        .arg(&copy)
        .output()
        .map_err(|e| Error::Footprint(format!("cannot run strip: {e} (install binutils)")))?;
    if !out.status.success() {
        return Err(Error::Footprint(format!(
            "strip {}: {}",
            p.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    size(&copy)
}

/// The libssl and libcrypto shared objects `binary` loads, from `ldd`.
///
/// # Errors
/// [`Error::Footprint`] if ldd fails or does not list both.
pub fn openssl_libraries(binary: &Path) -> Result<Vec<PathBuf>> {
    let out = Command::new("ldd")
        .arg(binary)
        .output()
        .map_err(|e| Error::Footprint(format!("cannot run ldd: {e}")))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut libs = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with("libssl.so") || line.starts_with("libcrypto.so") {
            // "libssl.so.3 => /lib/x86_64-linux-gnu/libssl.so.3 (0x...)"
            let path = line
                .split("=>")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .ok_or_else(|| Error::Footprint(format!("ldd: cannot read '{line}'")))?;
            let path = std::fs::canonicalize(path)
                .map_err(|e| Error::Footprint(format!("{path}: {e}")))?;
            libs.push(path);
        }
    }
    if libs.len() != 2 {
        return Err(Error::Footprint(format!(
            "ldd {} lists {} of libssl/libcrypto, expected both: is it linked dynamically?",
            binary.display(),
            libs.len()
        )));
    }
    Ok(libs)
}

async fn serve_exchange(mut s: BoxIo, timeout: Duration) -> Result<()> {
    with_timeout("footprint exchange", timeout, async {
        // Greeting: protocol 10, server version "tls-bench".
        let greeting = b"\x0atls-bench\x00";
        let mut pkt = vec![greeting.len() as u8, 0, 0, 0];
        pkt.extend_from_slice(greeting);
        s.write_all(&pkt).await?;
        s.flush().await?;
        let mut h = [0u8; 4];
        s.read_exact(&mut h).await?;
        let mut q = vec![0u8; usize::from(h[0])];
        s.read_exact(&mut q).await?;
        // OK packet: header 0x00, affected rows 0, last insert id 0, status 2, warnings 0.
        s.write_all(&[7, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]).await?;
        s.flush().await
    })
    .await?
    .map_err(|e| Error::io("footprint exchange", e))
}

async fn check_runs(
    program: &Path,
    transport: Transport,
    pki: &Pki,
    timeout: Duration,
) -> Result<()> {
    let params = TlsParams::new(transport, TlsVersion::Tls13);
    let chain = pki.chain(params.cert);
    let server = net::serve(
        Server::new(&params, chain)?,
        "127.0.0.1:0"
            .parse()
            .map_err(|_| Error::Protocol("address".to_string()))?,
        timeout,
        move |s| serve_exchange(s, timeout),
    )?;
    let dir = tempfile::tempdir().map_err(|e| Error::io("create a temporary directory", e))?;
    let ca = dir.path().join("ca.der");
    std::fs::write(&ca, &chain.ca).map_err(|e| Error::io("write the CA file", e))?;
    let mut cmd = tokio::process::Command::new(program);
    // Its own process group: a program that times out is killed with all it
    // started (a wrapper script's children too), not just the direct child.
    cmd.arg(server.addr.to_string())
        .arg(&ca)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let child = cmd
        .spawn()
        .map_err(|e| Error::Footprint(format!("run {}: {e}", program.display())))?;
    let group = child.id();
    let out = with_timeout("footprint program", timeout, bounded_output(child)).await;
    if out.is_err()
        && let Some(pid) = group.and_then(|p| i32::try_from(p).ok())
    {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let stopped = server.stop().await;
    let out = out?.map_err(|e| Error::Footprint(format!("run {}: {e}", program.display())))?;
    stopped?;
    if !out.status.success() || String::from_utf8_lossy(&out.stdout).trim() != "ok" {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(Error::Footprint(format!(
            "{} did not complete its exchange ({}): {}",
            program.display(),
            out.status,
            match stderr.trim() {
                "" => "it printed nothing on stderr and not `ok` on stdout",
                s => s,
            }
        )));
    }
    Ok(())
}

/// What a footprint program may print that is kept: its `ok` and a short error
/// line fit many times over; a program printing without end is cut there.
const OUTPUT_CAP: u64 = 64 * 1024;

/// The exit status and the first [`OUTPUT_CAP`] bytes of `child`'s stdout and
/// stderr: the pipes are closed after that many, so a program that prints
/// without end gets EPIPE (or SIGPIPE) instead of filling memory.
async fn bounded_output(mut child: tokio::process::Child) -> std::io::Result<std::process::Output> {
    use tokio::io::AsyncReadExt as _;
    async fn first(pipe: Option<impl tokio::io::AsyncRead + Unpin>) -> std::io::Result<Vec<u8>> {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            (&mut p).take(OUTPUT_CAP).read_to_end(&mut buf).await?;
        }
        Ok(buf)
    }
    let (stdout, stderr) = tokio::join!(first(child.stdout.take()), first(child.stderr.take()));
    let status = child.wait().await?;
    Ok(std::process::Output {
        status,
        stdout: stdout?,
        stderr: stderr?,
    })
}

/// Checks that the three footprint programs are in `dir` (run before any measuring,
/// so a missing build fails at once rather than after the other sections).
///
/// # Errors
/// [`Error::Footprint`] naming the missing program and [`BUILD_COMMAND`].
pub fn check_present(dir: &Path) -> Result<()> {
    for p in &PROGRAMS {
        let path = dir.join(p.file);
        if !path.is_file() {
            return Err(Error::Footprint(format!(
                "{} is missing: build the programs with `{BUILD_COMMAND}` or point --footprint-dir at them",
                path.display()
            )));
        }
    }
    Ok(())
}

/// Measures the footprint programs in `dir` (each run once against a live server first).
///
/// # Errors
/// [`Error::Footprint`] naming the missing program and [`BUILD_COMMAND`], or a
/// program that fails its exchange.
pub async fn measure(dir: &Path, pki: &Pki, timeout: Duration) -> Result<Vec<FootprintRow>> {
    let tmp = tempfile::tempdir().map_err(|e| Error::io("create a temporary directory", e))?;
    let mut rows: Vec<FootprintRow> = Vec::new();
    check_present(dir)?;
    for p in &PROGRAMS {
        let path = dir.join(p.file);
        check_runs(&path, p.transport, pki, timeout).await?;
        rows.push(FootprintRow {
            variant: p.variant,
            bytes: stripped_size(&path, tmp.path())?,
            unstripped_bytes: size(&path)?,
            pct_vs_plain: 0.0,
            files: vec![path.display().to_string()],
        });
        if p.transport == Transport::Openssl {
            let libs = openssl_libraries(&path)?;
            let mut row = FootprintRow {
                variant: "openssl+libs",
                bytes: rows.last().map_or(0, |r| r.bytes),
                unstripped_bytes: rows.last().map_or(0, |r| r.unstripped_bytes),
                pct_vs_plain: 0.0,
                files: vec![path.display().to_string()],
            };
            for lib in libs {
                row.bytes += stripped_size(&lib, tmp.path())?;
                row.unstripped_bytes += size(&lib)?;
                row.files.push(lib.display().to_string());
            }
            rows.push(row);
        }
    }
    let plain = rows.first().map_or(1, |r| r.bytes.max(1)) as f64;
    for r in &mut rows {
        r.pct_vs_plain = 100.0 * (r.bytes as f64 - plain) / plain;
    }
    Ok(rows)
}
