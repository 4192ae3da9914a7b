//! Report 001, encryption at rest on PostgreSQL with pgbench (10 connections):
//! select-only at a cached scale (10, the report's) and, in full mode, at a
//! scale several times `shared_buffers` (200 here, where the report used
//! 2000), tpcb-like (the report's "OLTP"), and the initial load (`oltp
//! prepare`'s `pgbench -i`), each with every at-rest mode this machine
//! provides, one private PostgreSQL per mode, interleaved by `oltp run
//! --at-rest LIST` itself. Rows: each encrypting mechanism against `off`
//! (the report's "with and without") and against its control (the crypto
//! alone, without the storage path's cost); the report's HA rows and the
//! mechanisms this machine cannot mount are "not reproducible here" with why.

use serde_json::Value;

use super::plan::{DataSetStep, Grid, Plan, Servers, comma_separated};
use super::published::{Figure, Published, ScaleSpec};
use super::row::{GridRun, Row, find_comparison};
use super::verdict::Verdict;
use encbench_oltp::at_rest::AtRest;

/// The at-rest modes the reproduction runs where the machine provides them:
/// the plain baseline, each mechanism's control, each mechanism.
pub const MODES: [AtRest; 5] = [
    AtRest::Off,
    AtRest::FusePassthrough,
    AtRest::Gocryptfs,
    AtRest::Ext4Loop,
    AtRest::Fscrypt,
];

/// The report's own mechanism (block-device encryption), tried for its
/// refusal's reason only.
pub const BLOCK_DEVICE: AtRest = AtRest::Luks;

/// pgbench's scale of the cached data set: the report's 10 (1 M accounts,
/// about 150 MiB, inside the private PostgreSQL's 1 GiB `shared_buffers`).
pub const CACHED_SCALE: u32 = 10;

/// pgbench's scale of the data set several times `shared_buffers` (full
/// mode): 200 is 20 M accounts, about 3 GiB, 3x the 1 GiB `shared_buffers`
/// of the private PostgreSQL (`server/postgres/init.rs`); the report's 2000
/// (30 GB) would take 5 x 30 GB of disk and hours of loading here.
pub const LARGE_SCALE: u32 = 200;

pub use encbench_oltp::space::PGBENCH_BYTES_PER_ROW;

/// Connections, as the report (line 10).
pub const CONNECTIONS: u32 = 10;

/// The database of the data set at `scale` (each mode's server has its own).
pub fn db(scale: u32) -> String {
    format!("repro001s{scale}")
}

/// The runs of report 001 at `spec`: `modes` the machine provides (of
/// [`MODES`]), the cached scale (`CACHED_SCALE` unless a test overrides it),
/// and the large scale in full mode only (`large`: `Some(LARGE_SCALE)`).
pub fn plan(spec: &ScaleSpec, modes: &[AtRest], cached: u32, large: Option<u32>) -> Plan {
    let scales: Vec<u32> = std::iter::once(cached).chain(large).collect();
    let mut data_sets = Vec::new();
    for &s in &scales {
        for m in modes {
            data_sets.push(DataSetStep {
                encrypt: "none".into(),
                encrypt_columns: "c,pad".into(),
                bytes_per_row: PGBENCH_BYTES_PER_ROW,
                args: vec![
                    "--pgsql-db".into(),
                    db(s),
                    "--workload".into(),
                    "pgbench_tpcb_like".into(),
                    "--scale".into(),
                    s.to_string(),
                    "--at-rest".into(),
                    m.name().into(),
                ],
                rows: Some(u64::from(s) * 100_000),
            });
        }
    }
    let modes_arg = modes.iter().map(|m| m.name()).collect::<Vec<_>>().join(",");
    let grid = |name: String, workload: &str, scale: u32| Grid {
        name,
        args: vec![
            "--pgsql-db".into(),
            db(scale),
            "--workload".into(),
            workload.into(),
            "--scale".into(),
            scale.to_string(),
            "--threads".into(),
            comma_separated(&spec.threads),
            "--at-rest".into(),
            modes_arg.clone(),
        ],
        threads: spec.threads.clone(),
        runs_per_round: modes.len() as u32,
        statements_per_table: 1,
        round_setup_secs: 0.0,
    };
    // Select-only first: tpcb-like's updates change the tables it reads.
    let mut grids = vec![grid(select_grid(cached), "pgbench_select_only", cached)];
    if let Some(l) = large {
        grids.push(grid(select_grid(l), "pgbench_select_only", l));
    }
    grids.push(grid(tpcb_grid(cached), "pgbench_tpcb_like", cached));
    Plan {
        scale: spec.clone(),
        db: String::new(),
        data_sets,
        grids,
        servers: Servers::PerCommand,
    }
}

/// The name of the select-only grid at `scale`.
pub fn select_grid(scale: u32) -> String {
    format!("pgbench_select_only, scale {scale}")
}

/// The name of the tpcb-like grid at `scale`.
pub fn tpcb_grid(scale: u32) -> String {
    format!("pgbench_tpcb_like, scale {scale}")
}

/// The label oltp's tables give an at-rest mode's baseline (`none` for off).
fn label(m: AtRest) -> String {
    match m {
        AtRest::Off => "none".into(),
        m => format!("at rest {}", m.name()),
    }
}

/// What the rows need besides the grids: the modes run, the modes refused
/// here with why, the scales, and the timed loads.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// Modes run (of [`MODES`]).
    pub modes: Vec<AtRest>,
    /// Encrypting modes this machine cannot mount, with the refusal.
    pub refused: Vec<(AtRest, String)>,
    /// The cached scale.
    pub cached: u32,
    /// The large scale, full mode only.
    pub large: Option<u32>,
    /// Each `oltp prepare` this invocation timed: (mode, pgbench scale,
    /// seconds); a data set that was reused has none.
    pub loads: Vec<(AtRest, u32, f64)>,
}

/// A row with no figure of ours.
fn not_here(figure: String, f: &Figure, reason: String) -> Row {
    Row {
        figure,
        published: f.published,
        published_unit: f.published_unit.clone(),
        source_line: f.source_line,
        ours: None,
        ci95_low: None,
        ci95_high: None,
        confidence_pct: None,
        rounds: 0,
        verdict: Verdict::NotReproducibleHere,
        reason,
        comparison_verdict: None,
    }
}

/// The HA rows' reason.
pub const HA_REASON: &str = "HA needs a synchronous standby (a second private PostgreSQL streaming from the primary with synchronous_standby_names set and synchronous_commit=on, each on its own at-rest mode): not built here, and on 2 shared cores the standby would compete with the primary for the same CPUs";

/// The rows: every figure for every encrypting mode (against off and
/// against its control), from the grids run so far and the loads timed.
pub fn rows(p: &Published, grids: &[GridRun], cx: &Context) -> Vec<Row> {
    let mechanisms: Vec<AtRest> = cx.modes.iter().copied().filter(|m| m.encrypts()).collect();
    let mut rows = Vec::new();
    for f in &p.figures {
        let id = f.id.as_deref().unwrap_or("");
        if id.ends_with("_ha") || id.contains("_ha_") {
            rows.push(not_here(f.figure.clone(), f, HA_REASON.to_string()));
            continue;
        }
        for (m, why) in &cx.refused {
            rows.push(not_here(
                format!("{} (ours: {})", f.figure, m.name()),
                f,
                if *m == BLOCK_DEVICE {
                    format!("the report's kind of mechanism (block-device encryption) cannot run here: {why}")
                } else {
                    format!("{} cannot run here: {why}", m.name())
                },
            ));
        }
        for &m in &mechanisms {
            let control = encbench_oltp::at_rest::AtRest::ALL
                .into_iter()
                .find(|c| c.control_of() == Some(m));
            let references: Vec<AtRest> = std::iter::once(AtRest::Off)
                .chain(control.filter(|c| cx.modes.contains(c)))
                .collect();
            for r in references {
                let figure = format!(
                    "{} (ours: {} vs {}{})",
                    f.figure,
                    m.name(),
                    r.name(),
                    if r == AtRest::Off {
                        ""
                    } else {
                        ", the crypto alone"
                    }
                );
                rows.push(figure_row(p, f, figure, grids, cx, m, r));
            }
        }
    }
    rows
}

/// One figure's row for mechanism `m` against reference `r`.
fn figure_row(
    p: &Published,
    f: &Figure,
    figure: String,
    grids: &[GridRun],
    cx: &Context,
    m: AtRest,
    r: AtRest,
) -> Row {
    let tol = f.tolerance(p);
    let grid_name = match f.id.as_deref() {
        Some("select_cached") => select_grid(cx.cached),
        Some("select_large") => match cx.large {
            Some(l) => select_grid(l),
            None => {
                return not_here(
                    figure,
                    f,
                    format!(
                        "quick mode runs the cached scale {} only; the scale-{LARGE_SCALE} data set (3x shared_buffers) is loaded and run in full mode",
                        cx.cached
                    ),
                );
            }
        },
        Some("tpcb") => tpcb_grid(cx.cached),
        Some("load") => return load_row(f, figure, cx, m, r),
        _ => return not_here(figure, f, "no measurement of ours maps to it".into()),
    };
    let threads = f.threads.unwrap_or(CONNECTIONS);
    let metric = f.metric.as_deref().unwrap_or("tps");
    let grid = grids.iter().find(|g| g.name == grid_name);
    let c = grid.and_then(|g| {
        find_comparison(&g.report.comparisons, threads, metric, |c| {
            c.variant == label(m) && c.baseline == label(r)
        })
    });
    let mut row = Row::from_comparison(figure, f, c, tol, f.differs_reason(p));
    if grid.is_some() && c.is_none() {
        row.reason = format!(
            "{threads} connections did not run in {grid_name} (see --threads, or the run stopped)"
        );
    }
    row
}

/// The initial load's row: one timed `oltp prepare` per mode, no interval; of
/// the largest scale loaded in both modes by this invocation (full mode: the
/// large scale, the report's "large data load"; quick mode: the cached one).
fn load_row(f: &Figure, figure: String, cx: &Context, m: AtRest, r: AtRest) -> Row {
    let secs_of_m = |scale: u32| {
        cx.loads
            .iter()
            .find(|(y, s, _)| *y == m && *s == scale)
            .map(|(_, _, t)| *t)
    };
    // (scale, reference's seconds, mechanism's seconds), the largest scale.
    let timed = cx
        .loads
        .iter()
        .filter(|(y, _, _)| *y == r)
        .filter_map(|&(_, scale, a)| secs_of_m(scale).map(|b| (scale, a, b)))
        .max_by_key(|(scale, _, _)| *scale);
    let Some((scale, a, b)) = timed else {
        return not_here(
            figure,
            f,
            format!(
                "the data sets were reused, so no load was timed in this invocation: `oltp cleanup --db-driver pgsql --pgsql-db {} --at-rest {}` (with --base-dir) to time it again",
                db(cx.large.unwrap_or(cx.cached)),
                cx.modes
                    .iter()
                    .map(|m| m.name())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        );
    };
    let pct = (b / a - 1.0) * 100.0;
    let mut row = not_here(
        figure,
        f,
        format!(
            "one timed load of scale {scale} per mode ({}: {b:.1} s, {}: {a:.1} s), no interval: ours {pct:+.1}% is shown, not judged",
            m.name(),
            r.name()
        ),
    );
    row.ours = Some(pct);
    row.rounds = 1;
    row
}

/// Where our setup differs from the report's, plainly.
pub fn setup_differences(cx: &Context, spec: &ScaleSpec) -> Vec<String> {
    let mut out = vec![
        "The report ran Scaleway's managed PostgreSQL (DB-POP2-4C-16G, 4 cores, 16 GB) with encryption at rest of its block storage; here PostgreSQL 15 on 2 cores shared with other jobs, the client on the same cores, with the at-rest modes this machine can mount: gocryptfs (a FUSE filesystem, AES-GCM-256 in Go) and fscrypt (the kernel's ext4 encryption, AES-256-XTS), each beside its control (bindfs' FUSE passthrough, the same ext4 loop file without a policy), so the storage path's cost and the crypto's are told apart.".to_string(),
        "Block-device encryption (dm-crypt/LUKS, the report's kind) needs device-mapper, which this machine lacks; its rows say so.".to_string(),
        format!(
            "{} connections as the report; {} interleaved rounds of {} s runs after {} s of warm-up, one private server per mode started first; no A/A control run (5 modes per round already), so the intervals are the paired rounds' only.",
            comma_separated(&spec.threads),
            spec.repeat,
            spec.time_s,
            spec.warmup_s
        ),
        format!(
            "The large select-only scale: {} (report: 2000, 30 GB on 16 GB of RAM, so read from disk). Here the data set exceeds shared_buffers (1 GiB) but still fits this machine's page cache, so its reads pass through the at-rest filesystem (decrypting on every page-cache miss of gocryptfs' FUSE view) rather than a disk.",
            cx.large
                .map_or("not run (quick mode)".to_string(), |l| format!("{l}, about 3 GiB"))
        ),
        {
            let scale = cx.large.unwrap_or(cx.cached);
            format!(
                "The large load: the report loaded 29 GB; here the load is `oltp prepare`'s pgbench -i of scale {scale} per mode (COPY of {} accounts, then indexes and VACUUM{}), timed once per mode, on the mode's server already running on its mount.",
                u64::from(scale) * 100_000,
                if cx.large.is_some() {
                    ", about 3 GiB: the largest data set of this mode"
                } else {
                    "; quick mode: the cached scale, full mode times the large one"
                }
            )
        },
        "HA (the report's replicated setups): no standby here; those rows are not reproducible here.".to_string(),
    ];
    if cx
        .refused
        .iter()
        .any(|(m, _)| m.encrypts() && *m != BLOCK_DEVICE)
    {
        out.push("Some filesystem mechanisms were refused here; their rows say why.".to_string());
    }
    out
}

/// `measurements.loads_s`: `{"SCALE": {"MODE": seconds}}`, each load this
/// invocation timed.
fn loads_json(cx: &Context) -> Value {
    let mut loads = serde_json::Map::new();
    for (m, scale, s) in &cx.loads {
        if let Value::Object(per_mode) = loads
            .entry(scale.to_string())
            .or_insert_with(|| Value::Object(serde_json::Map::new()))
        {
            per_mode.insert(m.name().to_string(), Value::from(*s));
        }
    }
    Value::Object(loads)
}

/// Updates `r` from the grids run so far and `cx`.
pub fn update_reproduction(r: &mut super::Reproduction, p: &Published, plan: &Plan, cx: &Context) {
    r.rows = rows(p, &r.runs, cx);
    r.setup_differences = setup_differences(cx, &plan.scale);
    r.measurements.insert("loads_s".into(), loads_json(cx));
    r.measurements.insert(
        "at_rest_refused".into(),
        Value::Object(
            cx.refused
                .iter()
                .map(|(m, why)| (m.name().to_string(), Value::from(why.as_str())))
                .collect(),
        ),
    );
    r.charts.clear();
    for g in &r.runs {
        if let Ok(svg) = encbench_oltp::report::svg::svg(&g.report.summary) {
            r.charts.push(super::row::Chart {
                title: format!(
                    "{}: TPS and RT per at-rest mode, medians of the rounds",
                    g.name
                ),
                svg,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ScaleSpec {
        ScaleSpec {
            tables: 1,
            table_size: 1,
            threads: vec![10],
            time_s: 5,
            warmup_s: 1,
            repeat: 5,
            scaled_how: None,
            iops_limit: None,
        }
    }

    #[test]
    fn the_plan_loads_every_mode_and_runs_select_only_first() {
        let p = plan(&spec(), &MODES, 10, Some(200));
        assert_eq!(p.data_sets.len(), 10);
        assert_eq!(p.rows_of(&p.data_sets[9]), 20_000_000);
        let names: Vec<&str> = p.grids.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "pgbench_select_only, scale 10",
                "pgbench_select_only, scale 200",
                "pgbench_tpcb_like, scale 10"
            ]
        );
        assert!(
            p.grids[0]
                .args
                .join(" ")
                .ends_with("--at-rest off,fuse-passthrough,gocryptfs,ext4-loop,fscrypt")
        );
        assert_eq!(p.runs(), 3 * 5 * 5);
        assert_eq!(p.data_args(), ["--db-driver", "pgsql"]);
        assert_eq!(plan(&spec(), &MODES, 10, None).grids.len(), 2);
    }

    /// Full mode: the load row is the large scale's (the report's "large data
    /// load"), not the cached one's, when both were timed; and the JSON keeps
    /// every load by scale and mode.
    #[test]
    fn full_mode_shows_the_large_scales_load() {
        let p = Published::of(super::super::ReportId::R001).expect("001");
        let cx = Context {
            modes: MODES.to_vec(),
            refused: Vec::new(),
            cached: 10,
            large: Some(200),
            loads: vec![
                (AtRest::Off, 10, 2.0),
                (AtRest::Gocryptfs, 10, 8.0),
                (AtRest::Off, 200, 40.0),
                (AtRest::Gocryptfs, 200, 50.0),
                // fscrypt's large set was reused: its row falls back to scale 10.
                (AtRest::Fscrypt, 10, 3.0),
            ],
        };
        let rows = rows(&p, &[], &cx);
        let load = |what: &str| {
            rows.iter()
                .find(|r| r.figure.contains("large data load") && r.figure.contains(what))
                .unwrap_or_else(|| panic!("{what} load row"))
        };
        for (what, pct, scale) in [
            ("gocryptfs vs off", 25.0, 200),
            ("fscrypt vs off", 50.0, 10),
        ] {
            let row = load(what);
            assert!((row.ours.expect("ours") - pct).abs() < 1e-9, "{row:?}");
            let want = format!("one timed load of scale {scale} per mode");
            assert!(row.reason.starts_with(&want), "{}", row.reason);
        }
        assert!(
            setup_differences(&cx, &spec())
                .iter()
                .any(|d| d.contains("pgbench -i of scale 200"))
        );
        let loads = loads_json(&cx);
        assert_eq!(loads["200"]["gocryptfs"], 50.0);
        assert_eq!(loads["10"]["fscrypt"], 3.0);
    }

    #[test]
    fn ha_refused_and_quick_rows_say_why_and_loads_are_shown_unjudged() {
        let p = Published::of(super::super::ReportId::R001).expect("001");
        let cx = Context {
            modes: MODES.to_vec(),
            refused: vec![(AtRest::Luks, "no device-mapper here".into())],
            cached: 10,
            large: None,
            loads: vec![(AtRest::Off, 10, 10.0), (AtRest::Gocryptfs, 10, 12.0)],
        };
        let rows = rows(&p, &[], &cx);
        // 4 HA rows; 4 standalone figures x (1 refused + gocryptfs x 2 + fscrypt x 2).
        assert_eq!(rows.len(), 4 + 4 * 5);
        assert!(
            rows.iter()
                .all(|r| r.verdict == Verdict::NotReproducibleHere)
        );
        let ha = rows.iter().filter(|r| r.reason == HA_REASON).count();
        assert_eq!(ha, 4);
        let load = rows
            .iter()
            .find(|r| r.figure.contains("large data load") && r.figure.contains("gocryptfs vs off"))
            .expect("load row");
        assert!((load.ours.expect("ours") - 20.0).abs() < 1e-9);
        assert!(
            load.reason
                .starts_with("one timed load of scale 10 per mode"),
            "{}",
            load.reason
        );
        let reused = rows
            .iter()
            .find(|r| r.figure.contains("large data load") && r.figure.contains("fscrypt vs off"))
            .expect("fscrypt load row");
        assert!(reused.ours.is_none() && reused.reason.contains("reused"));
        assert!(
            rows.iter()
                .any(|r| r.figure.contains("scale 2000") && r.reason.starts_with("quick mode"))
        );
        assert!(rows.iter().any(|r| r.figure.ends_with("(ours: luks)")));
        // A grid that did not run yet: no figure of ours.
        let tpcb = rows
            .iter()
            .find(|r| {
                r.figure.starts_with("OLTP (tpcb-like)")
                    && r.figure.contains("fscrypt vs ext4-loop")
            })
            .expect("tpcb row");
        assert!(tpcb.reason.contains("did not happen"), "{}", tpcb.reason);
    }
}
