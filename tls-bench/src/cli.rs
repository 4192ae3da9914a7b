//! The command line: flags, their defaults and units, and the one call a
//! `main` makes.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use encbench_common::output;

use crate::config::{self, Section};
use crate::error::{Error, Result};
use crate::latency::{CONNECTIONS, Exchange};
use crate::report::{self, Format};
use crate::run::{RunConfig, run};

/// The sections a run without `--sections` measures.
pub const DEFAULT_SECTIONS: &str = "handshake,record,latency,bulk,footprint";

/// tls-bench: what TLS costs a database connection, against plain TCP, over loopback.
///
/// Sections: handshake (full and resumed handshakes per second and their
/// latency), record (bytes and records on the wire for MySQL-sized messages),
/// latency (request/response round trip at 1..64 connections, the MySQL SSL
/// study's Figure 2), bulk (MB/s per cipher suite), footprint (stripped size of a
/// minimal client without TLS, with rustls, with OpenSSL).
#[derive(Debug, Parser)]
#[command(version, about, long_about = None)]
pub struct Cli {
    /// Sections to run, comma-separated: handshake, record, latency, bulk, footprint
    /// [default: all five; footprint is skipped with a note when its programs are not
    /// built and neither --sections nor --footprint-dir names it].
    #[arg(long, value_name = "LIST")]
    pub sections: Option<String>,
    /// Transports, comma-separated: plain, rustls-aws-lc-rs, rustls-ring, openssl.
    #[arg(long, default_value = "plain,rustls-aws-lc-rs,rustls-ring,openssl")]
    pub transports: String,
    /// TLS versions, comma-separated: 1.2, 1.3 (or TLSv1_2, TLSv1_3).
    #[arg(long, default_value = "1.2,1.3")]
    pub tls_versions: String,
    /// Server certificate key types for the handshake section: Rsa2048, EcdsaP256.
    #[arg(long, default_value = "Rsa2048,EcdsaP256")]
    pub certs: String,
    /// Quick mode: every section in about a minute on 2 cores (3 rounds of
    /// 0.1 s per handshake configuration, of 0.1 s per latency point, of 16
    /// MiB per bulk suite), with the A/A control (--control) unless
    /// --no-control.
    #[arg(long)]
    pub quick: bool,
    /// Rounds, 1 to 1000: the handshake, latency and bulk sections run every
    /// variant once per round, in an order rotated by one per round, and
    /// compare each with its baseline over the paired rounds (median change
    /// and interval; one round prints no %) [default: 5, quick 3].
    #[arg(long, alias = "latency-rounds", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1000))]
    pub repeat: Option<usize>,
    /// Run the baseline of each compared section twice per round (plain TCP
    /// for latency and bulk, the first TLS transport for handshakes), half a
    /// round apart, and report the A/A difference as the noise floor: an
    /// effect whose interval overlaps it is "within noise floor" [default:
    /// off, on with --quick].
    #[arg(long)]
    pub control: bool,
    /// No A/A control, also with --quick: no noise floor, and every effect
    /// found says "no noise floor measured: add --control".
    #[arg(long, conflicts_with = "control")]
    pub no_control: bool,
    /// Measured seconds per handshake configuration and round [default: 0.2, quick 0.1].
    #[arg(long)]
    pub handshake_secs: Option<f64>,
    /// Measured seconds per latency point and round [default: 0.5, quick 0.1].
    #[arg(long)]
    pub latency_secs: Option<f64>,
    /// MiB sent per bulk suite and round, 1 to 1048576 [default: 48, quick 16].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub bulk_mib: Option<u64>,
    /// Connection counts of the latency section, comma-separated.
    #[arg(long, default_value = "1,2,4,8,16,32,64")]
    pub connections: String,
    /// Request bytes per round trip (20: a COM_STMT_EXECUTE of a point SELECT).
    #[arg(long, default_value_t = 20)]
    pub request_bytes: usize,
    /// Response bytes per round trip (200: one sysbench row).
    #[arg(long, default_value_t = 200)]
    pub response_bytes: usize,
    /// Skip the in-memory rustls handshakes (the harness-overhead comparison).
    #[arg(long)]
    pub no_in_memory: bool,
    /// Timeout of every network step (connect, handshake, read, write), seconds.
    #[arg(long, default_value_t = 10.0)]
    pub timeout_secs: f64,
    /// Address the servers listen on; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:0")]
    pub bind: SocketAddr,
    /// Pin the handshake thread to this core (default: not pinned).
    #[arg(long)]
    pub core: Option<usize>,
    /// Directory holding footprint-plain, footprint-rustls, footprint-openssl
    /// [default: tls-bench's own directory, e.g. target/release].
    #[arg(long)]
    pub footprint_dir: Option<PathBuf>,
    /// Output format: text, json, csv, markdown.
    #[arg(long, default_value = "text")]
    pub output: String,
    /// Write the report to this file (atomically) instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write the report as JSON to this file (atomically), whatever `--output` is.
    #[arg(long)]
    pub json_out: Option<PathBuf>,
    /// Write latency.svg and handshakes.svg into this directory.
    #[arg(long)]
    pub svg_dir: Option<PathBuf>,
}

fn secs(name: &str, v: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(v)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            Error::Unsupported(format!("--{name} {v}: give a positive number of seconds"))
        })
}

impl Cli {
    /// Turns the flags into a [`RunConfig`] and an output format.
    ///
    /// # Errors
    /// [`Error::UnknownName`] for an unknown name; [`Error::Unsupported`] for a bad number.
    pub fn config(&self) -> Result<(RunConfig, Format)> {
        let format: Format = self.output.parse()?;
        let connections = self
            .connections
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<u32>()
                    .ok()
                    .filter(|n| (1..=4096).contains(n))
                    .ok_or_else(|| {
                        Error::Unsupported(format!(
                            "--connections '{s}': give counts from 1 to 4096, e.g. {}",
                            CONNECTIONS.map(|c| c.to_string()).join(",")
                        ))
                    })
            })
            .collect::<Result<Vec<u32>>>()?;
        if self.request_bytes == 0 || self.response_bytes == 0 {
            return Err(Error::Unsupported(
                "--request-bytes and --response-bytes must be at least 1".to_string(),
            ));
        }
        let quick = self.quick;
        let cfg = RunConfig {
            sections: config::parse_list::<Section>(
                "section",
                self.sections.as_deref().unwrap_or(DEFAULT_SECTIONS),
            )?,
            transports: config::parse_list("transport", &self.transports)?,
            versions: config::parse_list("TLS version", &self.tls_versions)?,
            certs: config::parse_list("certificate type", &self.certs)?,
            repeat: self.repeat.unwrap_or(if quick { 3 } else { 5 }),
            control: self.control || (quick && !self.no_control),
            handshake_time: secs(
                "handshake-secs",
                self.handshake_secs.unwrap_or(if quick { 0.1 } else { 0.2 }),
            )?,
            in_memory: !self.no_in_memory,
            latency_time: secs(
                "latency-secs",
                self.latency_secs.unwrap_or(if quick { 0.1 } else { 0.5 }),
            )?,
            latency_warmup: Duration::from_millis(if quick { 20 } else { 100 }),
            connections,
            exchange: Exchange {
                request: self.request_bytes,
                response: self.response_bytes,
            },
            bulk_bytes: self.bulk_mib.unwrap_or(if quick { 16 } else { 48 }) * 1024 * 1024,
            timeout: secs("timeout-secs", self.timeout_secs)?,
            bind: self.bind,
            core: self.core,
            footprint_dir: match &self.footprint_dir {
                Some(d) => d.clone(),
                None => crate::footprint::default_dir()?,
            },
            footprint_required: self.sections.is_some() || self.footprint_dir.is_some(),
            quick,
        };
        Ok((cfg, format))
    }
}

/// Runs the command line: configure, run, write the report and charts.
///
/// # Errors
/// Any configuration or measurement error; the report is written only whole.
pub async fn execute(cli: Cli) -> Result<()> {
    let (cfg, format) = cli.config()?;
    // Check the outputs before minutes of measurement, not after.
    if let Some(path) = &cli.out {
        output::check_writable(path, "--out")?;
    }
    if let Some(path) = &cli.json_out {
        output::check_writable(path, "--json-out")?;
    }
    if let Some(dir) = &cli.svg_dir {
        if let Ok(meta) = std::fs::metadata(dir) {
            if !meta.is_dir() {
                return Err(Error::Usage(format!(
                    "--svg-dir {} exists and is not a directory: give a directory (created when missing)",
                    dir.display()
                )));
            }
        }
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::io(
                format!("--svg-dir {}: create the directory", dir.display()),
                e,
            )
        })?;
    }
    let report = run(&cfg).await?;
    let text = report::render(&report, format, cli.json_out.as_deref())?;
    if let Some(dir) = &cli.svg_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::io(format!("create {}", dir.display()), e))?;
        if !report.latency.is_empty() {
            crate::chart::latency(&report, &dir.join("latency.svg"))?;
        }
        if !report.handshake.is_empty() {
            crate::chart::handshakes(&report, &dir.join("handshakes.svg"))?;
        }
    }
    if let Some(path) = &cli.json_out {
        let json = report::render(&report, Format::Json, None)?;
        output::write_atomically(path, json.as_bytes(), "--json-out")?;
    }
    match &cli.out {
        Some(path) => Ok(output::write_atomically(path, text.as_bytes(), "--out")?),
        None => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| Error::io("write the report to standard output", e))
        }
    }
}
