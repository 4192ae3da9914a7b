//! A whole run: the configured sections in order, with progress, into one [`Report`].

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::bulk::BulkRow;
use crate::comparison::ControlRuns;
use crate::config::{CertType, Cipher, Resumption, Section, TlsVersion, Transport};
use crate::error::{Error, Result};
use crate::handshake::HandshakeRow;
use crate::handshake::{self, HandshakeOptions};
use crate::latency::Exchange;
use crate::pki::Pki;
use crate::record::MESSAGES;
use crate::report::{Environment, Report, SCHEMA_VERSION};
use crate::rounds::measure_rounds;
use crate::tls::TlsParams;
use crate::{bulk, comparison, footprint, latency, record};
use encbench_common::{ResultHeader, tool_info};

/// What to run and for how long.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// Sections, in report order.
    pub sections: Vec<Section>,
    /// Transports (plain is the baseline of every section that has one).
    pub transports: Vec<Transport>,
    /// TLS versions.
    pub versions: Vec<TlsVersion>,
    /// Certificate key types for the handshake section.
    pub certs: Vec<CertType>,
    /// Rounds (`--repeat`): every measuring section runs each of its variants
    /// once per round, in the order of [`crate::rounds::order`].
    pub repeat: usize,
    /// `--control`: the baseline of each compared section (plain TCP for
    /// latency and bulk, every handshake configuration of the first TLS
    /// transport, socket and memory harness) runs a second time per round (A'), half a
    /// round after its first run ([`crate::rounds::schedule`]), for the A/A
    /// noise floor.
    pub control: bool,
    /// Measured time per handshake configuration and round.
    pub handshake_time: Duration,
    /// Also run rustls handshakes in memory, for the harness comparison.
    pub in_memory: bool,
    /// Measured time per latency point and round.
    pub latency_time: Duration,
    /// Unmeasured time at the start of each latency point.
    pub latency_warmup: Duration,
    /// Connection counts of the latency section.
    pub connections: Vec<u32>,
    /// Request and response sizes of the latency section.
    pub exchange: Exchange,
    /// Bytes per bulk measurement (per suite and round).
    pub bulk_bytes: u64,
    /// Timeout of every network step.
    pub timeout: Duration,
    /// Listening address (port 0: any free port).
    pub bind: SocketAddr,
    /// Core for the handshake thread.
    pub core: Option<usize>,
    /// Directory of the footprint programs.
    pub footprint_dir: PathBuf,
    /// Whether missing footprint programs are an error (the user named the section
    /// or the directory); otherwise the section is skipped with a note.
    pub footprint_required: bool,
    /// True for `--quick`.
    pub quick: bool,
}

fn handshake_params(cfg: &RunConfig) -> (Vec<TlsParams>, Vec<String>) {
    let mut out = Vec::new();
    let skipped = Vec::new();
    if cfg.transports.contains(&Transport::Plain) {
        out.push(TlsParams::new(Transport::Plain, TlsVersion::Tls13));
    }
    for &t in cfg.transports.iter().filter(|t| t.is_tls()) {
        for &v in &cfg.versions {
            for &c in &cfg.certs {
                for &r in Resumption::for_version(v) {
                    let mut p = TlsParams::new(t, v);
                    p.cert = c;
                    p.resumption = r;
                    out.push(p);
                }
            }
        }
    }
    (out, skipped)
}

/// The handshake runs of a round: each configuration over sockets, followed
/// by the same configuration in memory (rustls only, unless `--no-in-memory`).
fn handshake_runs(cfg: &RunConfig, hs: &[TlsParams]) -> Vec<(TlsParams, bool)> {
    let mut out = Vec::new();
    for &p in hs {
        out.push((p, false));
        if cfg.in_memory
            && matches!(
                p.transport,
                Transport::RustlsAwsLcRs | Transport::RustlsRing
            )
        {
            out.push((p, true));
        }
    }
    out
}

fn latency_params(cfg: &RunConfig) -> Vec<TlsParams> {
    let mut out = Vec::new();
    for &t in &cfg.transports {
        if t.is_tls() {
            for &v in &cfg.versions {
                out.push(TlsParams::new(t, v));
            }
        } else {
            out.push(TlsParams::new(t, TlsVersion::Tls13));
        }
    }
    out
}

fn bulk_params(cfg: &RunConfig) -> Vec<TlsParams> {
    let mut out = Vec::new();
    for p in latency_params(cfg) {
        if p.transport.is_tls() {
            for c in Cipher::ALL {
                let mut q = p;
                q.cipher = c;
                out.push(q);
            }
        } else {
            out.push(p);
        }
    }
    out
}

fn progress(total: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(total);
    pb.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb
}

/// The variants each section runs, and the baselines that run twice per
/// round with `--control` (indexes into the variants).
struct Plan {
    /// Handshake configurations, (params, in memory).
    hs_runs: Vec<(TlsParams, bool)>,
    hs_controls: Vec<usize>,
    /// Notes on handshake configurations left out.
    skipped: Vec<String>,
    /// Latency (and record) variants.
    lat: Vec<TlsParams>,
    lat_controls: Vec<usize>,
    /// Bulk variants, one per suite.
    bulk_p: Vec<TlsParams>,
    bulk_controls: Vec<usize>,
}

impl Plan {
    /// The variants of `cfg`.
    fn of(cfg: &RunConfig) -> Plan {
        let (hs, skipped) = handshake_params(cfg);
        let lat = latency_params(cfg);
        let bulk_p = bulk_params(cfg);
        let hs_runs = handshake_runs(cfg, &hs);
        // The baselines that run twice per round with --control.
        let first_tls = cfg.transports.iter().copied().find(|t| t.is_tls());
        let controls = |baseline: &dyn Fn(usize) -> bool, n: usize| -> Vec<usize> {
            if cfg.control {
                (0..n).filter(|&i| baseline(i)).collect()
            } else {
                Vec::new()
            }
        };
        // Socket and memory harness alike: every handshake comparison has a floor.
        let hs_controls = controls(
            &|i| Some(hs_runs[i].0.transport) == first_tls,
            hs_runs.len(),
        );
        let lat_controls = controls(&|i| lat[i].transport == Transport::Plain, lat.len());
        let bulk_controls = controls(&|i| bulk_p[i].transport == Transport::Plain, bulk_p.len());
        Plan {
            hs_runs,
            hs_controls,
            skipped,
            lat,
            lat_controls,
            bulk_p,
            bulk_controls,
        }
    }

    /// The measurements of `sections` over `cfg.repeat` rounds: the length
    /// of the progress bar.
    fn steps(&self, cfg: &RunConfig, sections: &[Section]) -> u64 {
        let has = |s| sections.contains(&s);
        let rounds = cfg.repeat as u64;
        let mut total = 0u64;
        if has(Section::Handshake) {
            total += (self.hs_runs.len() + self.hs_controls.len()) as u64 * rounds;
        }
        if has(Section::Record) {
            total += self.lat.len() as u64;
        }
        if has(Section::Latency) {
            total += ((self.lat.len() + self.lat_controls.len()) * cfg.connections.len()) as u64
                * rounds;
        }
        if has(Section::Bulk) {
            total += (self.bulk_p.len() + self.bulk_controls.len()) as u64 * rounds;
        }
        if has(Section::Footprint) {
            total += 1;
        }
        total
    }
}

/// The note that the footprint section is left out because its programs are
/// not built (printed as it is found); `None` when they are, or the section
/// was not asked for.
///
/// # Errors
/// The programs are missing and the user asked for the section.
fn check_footprint(cfg: &RunConfig) -> Result<Option<String>> {
    if cfg.sections.contains(&Section::Footprint) {
        if let Err(e) = footprint::check_present(&cfg.footprint_dir) {
            if cfg.footprint_required {
                return Err(e);
            }
            let note = format!(
                "footprint: its programs are not built in {}: run `{}` (or give --footprint-dir)",
                cfg.footprint_dir.display(),
                footprint::BUILD_COMMAND
            );
            eprintln!("note: {note}");
            return Ok(Some(note));
        }
    }
    Ok(None)
}

/// Runs every configured section.
///
/// # Errors
/// The first error of any measurement; nothing partial is returned.
pub async fn run(cfg: &RunConfig) -> Result<Report> {
    // A default run without the footprint programs measures the rest and says so.
    let footprint_skipped = check_footprint(cfg)?;
    let sections: Vec<Section> = cfg
        .sections
        .iter()
        .copied()
        .filter(|&s| s != Section::Footprint || footprint_skipped.is_none())
        .collect();
    let pki = Arc::new(
        tokio::task::spawn_blocking(Pki::generate)
            .await
            .map_err(|e| Error::Protocol(format!("certificate generation task: {e}")))??,
    );
    let mut plan = Plan::of(cfg);
    let pb = progress(plan.steps(cfg, &sections));
    let mut report = Report {
        header: ResultHeader::begin(SCHEMA_VERSION, tool_info!("tls-bench")),
        environment: Environment {
            tool_version: env!("CARGO_PKG_VERSION"),
            openssl: openssl::version::version().to_string(),
            cpus: std::thread::available_parallelism().map_or(1, usize::from),
            quick: cfg.quick,
            repeat: cfg.repeat,
            control: cfg.control,
        },
        handshake: Vec::new(),
        record: Vec::new(),
        latency: Vec::new(),
        bulk: Vec::new(),
        footprint: Vec::new(),
        control_runs: ControlRuns::default(),
        noise_floor: Vec::new(),
        comparisons: Vec::new(),
        skipped: footprint_skipped.into_iter().collect(),
    };
    for &section in &sections {
        match section {
            Section::Handshake => {
                run_handshakes(cfg, &plan, &pki, &pb, &mut report).await?;
                report.skipped.append(&mut plan.skipped);
            }
            Section::Record => {
                for p in &plan.lat {
                    pb.set_message(format!("record {} {}", p.transport, p.version_name()));
                    let rows = record::measure(p, &pki, &MESSAGES, cfg.bind, cfg.timeout).await?;
                    report.record.extend(rows);
                    pb.inc(1);
                }
            }
            Section::Latency => run_latency(cfg, &plan, &pki, &pb, &mut report).await?,
            Section::Bulk => run_bulk(cfg, &plan, &pki, &pb, &mut report).await?,
            Section::Footprint => {
                pb.set_message("footprint");
                report.footprint =
                    footprint::measure(&cfg.footprint_dir, &pki, cfg.timeout).await?;
                pb.inc(1);
            }
        }
    }
    pb.finish_and_clear();
    report.noise_floor = comparison::noise_floors(
        (&report.handshake, &report.latency, &report.bulk),
        &report.control_runs,
    );
    let floors = &report.noise_floor;
    report.comparisons = [
        comparison::handshakes(&report.handshake, floors),
        comparison::latency(&report.latency, floors),
        comparison::bulk(&report.bulk, floors),
    ]
    .concat();
    report.header.end();
    Ok(report)
}

/// The handshake section: every configuration of `plan` in rotated rounds,
/// each configuration's rounds (and its control's) into `report`.
///
/// # Errors
/// A measurement failed.
async fn run_handshakes(
    cfg: &RunConfig,
    plan: &Plan,
    pki: &Arc<Pki>,
    pb: &ProgressBar,
    report: &mut Report,
) -> Result<()> {
    let hs_runs = &plan.hs_runs;
    let opts = HandshakeOptions {
        duration: cfg.handshake_time,
        warmup: 10,
        timeout: cfg.timeout,
        core: cfg.core,
        bind: cfg.bind,
    };
    let (rows, controls) = measure_rounds(
        (hs_runs.len(), &plan.hs_controls),
        cfg.repeat,
        |i, control, round| {
            let (p, memory) = hs_runs[i];
            pb.set_message(format!(
                "handshake{}{} {} {} {} {} round {}",
                if memory { " in memory" } else { "" },
                if control { " (A/A control)" } else { "" },
                p.transport,
                p.version_name(),
                p.cert_name(),
                p.resumption,
                round + 1
            ));
            let (pki2, o2) = (pki.clone(), opts.clone());
            async move {
                let row = tokio::task::spawn_blocking(move || {
                    if memory {
                        handshake::memory(&p, &pki2, o2.duration)
                    } else {
                        handshake::socket(&p, &pki2, &o2)
                    }
                })
                .await
                .map_err(|e| Error::Protocol(format!("handshake task: {e}")))??;
                pb.inc(1);
                Ok(row)
            }
        },
        HandshakeRow::of_rounds,
    )
    .await?;
    report.handshake.extend(rows);
    report.control_runs.handshake.extend(controls);
    Ok(())
}

/// The latency section: every variant of `plan` at each connection count
/// in rotated rounds, the median round of each (and of its control) into
/// `report`.
///
/// # Errors
/// A measurement failed.
async fn run_latency(
    cfg: &RunConfig,
    plan: &Plan,
    pki: &Arc<Pki>,
    pb: &ProgressBar,
    report: &mut Report,
) -> Result<()> {
    let lat = &plan.lat;
    for &n in &cfg.connections {
        let (rows, controls) = measure_rounds(
            (lat.len(), &plan.lat_controls),
            cfg.repeat,
            |i, control, round| {
                let p = &lat[i];
                pb.set_message(format!(
                    "latency {}{} {} x{n} round {}",
                    p.transport,
                    if control { " (A/A control)" } else { "" },
                    p.version_name(),
                    round + 1
                ));
                async move {
                    let row = latency::measure(
                        p,
                        pki,
                        n,
                        cfg.exchange,
                        (cfg.latency_time, cfg.latency_warmup),
                        cfg.bind,
                        cfg.timeout,
                    )
                    .await?;
                    pb.inc(1);
                    Ok(row)
                }
            },
            latency::median_round,
        )
        .await?;
        report.latency.extend(rows);
        report.control_runs.latency.extend(controls);
    }
    Ok(())
}

/// The bulk section: every suite of `plan` in rotated rounds, each one's
/// rounds (and its control's) into `report`.
///
/// # Errors
/// A measurement failed.
async fn run_bulk(
    cfg: &RunConfig,
    plan: &Plan,
    pki: &Arc<Pki>,
    pb: &ProgressBar,
    report: &mut Report,
) -> Result<()> {
    let bulk_p = &plan.bulk_p;
    let (rows, controls) = measure_rounds(
        (bulk_p.len(), &plan.bulk_controls),
        cfg.repeat,
        |i, control, round| {
            let p = &bulk_p[i];
            pb.set_message(format!(
                "bulk {}{} {} round {}",
                p.transport,
                if control { " (A/A control)" } else { "" },
                p.suite().name(),
                round + 1
            ));
            async move {
                let row = bulk::measure(p, pki, cfg.bulk_bytes, cfg.bind, cfg.timeout).await?;
                pb.inc(1);
                Ok(row)
            }
        },
        BulkRow::of_rounds,
    )
    .await?;
    report.bulk.extend(rows);
    report.control_runs.bulk.extend(controls);
    Ok(())
}
