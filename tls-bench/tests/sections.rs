//! The latency and bulk sections on real connections, and the whole binary's
//! outputs: the JSON contract, CSV, Markdown, an atomically written file and
//! the SVG charts.

use std::process::Command;
use std::time::Duration;

use encbench_test_support::{VERDICTS, stdout_json};
use tls_bench::bulk;
use tls_bench::config::{Cipher, TlsVersion, Transport};
use tls_bench::latency::{self, Exchange};
use tls_bench::pki::Pki;
use tls_bench::tls::TlsParams;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn latency_and_bulk_measure_every_transport() {
    let pki = Pki::generate().expect("test PKI");
    let bind = "127.0.0.1:0".parse().expect("address");
    let t = Duration::from_secs(10);
    for transport in Transport::ALL {
        let p = TlsParams::new(transport, TlsVersion::Tls13);
        let row = latency::measure(
            &p,
            &pki,
            4,
            Exchange {
                request: 20,
                response: 200,
            },
            (Duration::from_millis(100), Duration::from_millis(20)),
            bind,
            t,
        )
        .await
        .expect("latency point");
        assert_eq!(row.connections, 4);
        assert!(row.requests > 0, "{row:?}");
        // Quantiles of one histogram are ordered; the mean is not tied to them
        // (a few preempted round trips on a loaded machine pull it above p95).
        assert!(
            row.avg_us > 0.0 && row.p50_us > 0.0 && row.p50_us <= row.p95_us,
            "{row:?}"
        );
        let mut b = p;
        b.cipher = Cipher::Chacha20Poly1305;
        let bulk = bulk::measure(&b, &pki, 4 * 1024 * 1024, bind, t)
            .await
            .expect("bulk");
        assert!(bulk.mb_per_sec > 0.0);
        if transport.is_tls() {
            assert_eq!(bulk.suite, "TLS13_CHACHA20_POLY1305_SHA256");
        }
    }
}

fn tls_bench(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tls-bench"))
        .args(args)
        .output()
        .expect("run tls-bench")
}

const SMALL: [&str; 14] = [
    "--sections",
    "handshake,record,latency,bulk",
    "--transports",
    "plain,rustls-ring,openssl",
    "--tls-versions",
    "1.3",
    "--certs",
    "EcdsaP256",
    "--handshake-secs",
    "0.05",
    "--latency-secs",
    "0.05",
    "--connections",
    "1,8",
];

#[test]
fn json_output_follows_the_contract() {
    let mut args = SMALL.to_vec();
    args.extend(["--bulk-mib", "2", "--output", "json"]);
    let v = stdout_json(&tls_bench(&args));
    let rows = |k: &str| {
        v[k].as_array()
            .unwrap_or_else(|| panic!("array {k}"))
            .clone()
    };
    for h in rows("handshake") {
        for k in [
            "transport",
            "tls_version",
            "cert",
            "resumed",
            "handshakes_per_sec",
        ] {
            assert!(!h[k].is_null(), "handshake.{k}");
        }
        assert!(h["latency_us"]["p50"].as_f64().expect("p50") > 0.0);
        assert!(h["latency_us"]["p99"].as_f64().expect("p99") > 0.0);
    }
    // plain, rustls-ring full + tickets (socket and memory), openssl full + tickets.
    assert_eq!(rows("handshake").len(), 1 + 2 * 2 + 2);
    for r in rows("record") {
        for k in [
            "transport",
            "tls_version",
            "payload_bytes",
            "wire_bytes",
            "records",
        ] {
            assert!(!r[k].is_null(), "record.{k}");
        }
    }
    let lat = rows("latency");
    assert_eq!(lat.len(), 3 * 2);
    for r in &lat {
        for k in ["transport", "connections", "avg_us", "p95_us"] {
            assert!(!r[k].is_null(), "latency.{k}");
        }
    }
    // The default --repeat outside --quick: 5 rounds in every measuring section.
    for r in rows("handshake") {
        assert_eq!(r["rounds"], 5);
        assert_eq!(
            r["cpu_handshakes_per_sec_rounds"].as_array().map(Vec::len),
            Some(5)
        );
    }
    let bulk = rows("bulk");
    assert_eq!(bulk.len(), 1 + 2 * 3);
    assert!(
        bulk.iter()
            .all(|b| b["mb_per_sec"].as_f64().expect("MB/s") > 0.0 && b["suite"].is_string())
    );
    assert!(
        v["footprint"]
            .as_array()
            .expect("footprint array")
            .is_empty()
    );
}

#[test]
fn json_has_the_header_of_every_encbench_result() {
    let out = tls_bench(&[
        "--sections",
        "record",
        "--transports",
        "plain,rustls-ring",
        "--tls-versions",
        "1.3",
        "--output",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    // schema_version integer, tool {name, version, git_revision}, RFC 3339
    // started_at <= ended_at, machine {cpu_model, cpu_flags list, logical_cpus, kernel}.
    encbench_common::header::check_json(&v).expect("the result header contract");
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["tool"]["name"], "tls-bench");
    assert_eq!(v["tool"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(v["machine"]["cpu_flags"].is_array());
    // The fields from before the header stay.
    assert_eq!(v["environment"]["tool_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["record"].as_array().expect("record rows").len(), 2 * 4);
}

#[test]
fn csv_markdown_file_and_charts() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let report = dir.path().join("report.md");
    let svg = dir.path().join("svg");
    let mut args = SMALL.to_vec();
    let (report_s, svg_s) = (report.display().to_string(), svg.display().to_string());
    args.extend([
        "--bulk-mib",
        "1",
        "--output",
        "markdown",
        "--out",
        &report_s,
        "--svg-dir",
        &svg_s,
    ]);
    let out = tls_bench(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "the report went to the file");
    let md = std::fs::read_to_string(&report).expect("report file");
    assert!(md.contains("| connections | plain avg ms |"), "{md}");
    assert!(md.contains("the study's Figure 2"));
    for f in ["latency.svg", "handshakes.svg"] {
        let s = std::fs::read_to_string(svg.join(f)).expect("chart written");
        assert!(s.starts_with("<svg") && s.contains("rustls-ring"), "{f}");
    }
    let out = tls_bench(&[
        "--sections",
        "record",
        "--transports",
        "plain,rustls-aws-lc-rs",
        "--tls-versions",
        "1.2",
        "--output",
        "csv",
    ]);
    assert!(out.status.success());
    let csv = String::from_utf8_lossy(&out.stdout);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "section,transport,version,message,payload B,wire B,records,writes,overhead B,B/record,overhead"
        )
    );
    assert!(
        csv.contains("record,rustls-aws-lc-rs,TLSv1_2,COM_STMT_EXECUTE,20,49,1,1,29,29.0,+145.0%"),
        "{csv}"
    );
}

/// The handshake, latency and bulk sections of `SMALL` at `--repeat N`, in
/// `output`, with the flags `extra`.
fn repeated(rounds: &str, output: &str, extra: &[&str]) -> std::process::Output {
    // SMALL without its --sections.
    let mut args = SMALL[2..].to_vec();
    args.extend([
        "--sections",
        "handshake,latency,bulk",
        "--no-in-memory",
        "--bulk-mib",
        "1",
        "--repeat",
        rounds,
        "--output",
        output,
    ]);
    args.extend(extra);
    let out = tls_bench(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn json_compares_every_variant_with_its_baseline_over_the_rounds() {
    let v: serde_json::Value =
        serde_json::from_slice(&repeated("2", "json", &[]).stdout).expect("JSON");
    let cmp = v["comparisons"].as_array().expect("comparisons array");
    let find = |section: &str, metric: &str, variant: &str, point: &str| {
        cmp.iter()
            .find(|c| {
                c["section"] == section
                    && c["metric"] == metric
                    && c["variant"] == variant
                    && c["point"] == point
            })
            .unwrap_or_else(|| panic!("{section} {metric} {variant} {point} in {cmp:?}"))
    };
    // Handshakes: the first TLS transport of --transports is the baseline.
    let hs = find(
        "handshake",
        "handshakes_per_cpu_sec",
        "openssl",
        "socket TLSv1_3 EcdsaP256 tickets",
    );
    assert_eq!(hs["baseline"], "rustls-ring");
    // Latency: plain TCP at the same connection count, p50 and p95 (and the average).
    for metric in ["rtt_avg_us", "rtt_p50_us", "rtt_p95_us"] {
        let c = find("latency", metric, "rustls-ring TLSv1_3", "8 connections");
        assert_eq!(c["baseline"], "plain");
        assert_eq!(c["connections"], 8);
    }
    // Bulk: plain TCP, per suite.
    let b = find(
        "bulk",
        "mb_per_sec",
        "openssl",
        "TLS13_CHACHA20_POLY1305_SHA256",
    );
    assert_eq!(b["baseline"], "plain");
    // 2 TLS transports x 2 handshake modes x 1 (openssl vs rustls-ring) ...
    let count = |s: &str| cmp.iter().filter(|c| c["section"] == s).count();
    assert_eq!(count("handshake"), 2);
    // ... 2 points x 2 TLS transports x 3 metrics, 2 x 3 suites.
    assert_eq!(count("latency"), 2 * 2 * 3);
    assert_eq!(count("bulk"), 2 * 3);
    for c in cmp {
        assert_eq!(c["rounds"], 2, "{c}");
        for k in ["median_change_pct", "ci95_low_pct", "ci95_high_pct"] {
            assert!(c[k].is_f64(), "{k} in {c}");
        }
        let (lo, mid, hi) = (
            c["ci95_low_pct"].as_f64().expect("low"),
            c["median_change_pct"].as_f64().expect("median"),
            c["ci95_high_pct"].as_f64().expect("high"),
        );
        assert!(lo <= mid && mid <= hi, "{c}");
        // 2 rounds: min..max of the paired ratios covers 50%.
        assert_eq!(c["confidence_pct"], 50.0);
        let verdict = c["verdict"].as_str().expect("verdict");
        assert!(
            ["higher", "lower", "no difference detected"].contains(&verdict),
            "{c}"
        );
    }
    // The per-round raw figures each comparison pairs, in round order.
    let lat = v["latency"].as_array().expect("latency rows");
    for r in lat {
        for k in ["avg_us_rounds", "p50_us_rounds", "p95_us_rounds"] {
            assert_eq!(r[k].as_array().map(Vec::len), Some(2), "{k} in {r}");
        }
    }
    for r in v["bulk"].as_array().expect("bulk rows") {
        assert_eq!(r["mb_per_sec_rounds"].as_array().map(Vec::len), Some(2));
    }
    encbench_common::header::check_json(&v).expect("the result header contract");
}

#[test]
fn one_round_prints_no_percentage_and_null_intervals() {
    let text = String::from_utf8(repeated("1", "text", &[]).stdout).expect("UTF-8");
    assert!(!text.contains('%'), "{text}");
    assert!(
        text.contains("1 round: run --repeat 5 for a comparison"),
        "{text}"
    );
    let v: serde_json::Value =
        serde_json::from_slice(&repeated("1", "json", &[]).stdout).expect("JSON");
    let cmp = v["comparisons"].as_array().expect("comparisons array");
    assert!(!cmp.is_empty());
    for c in cmp {
        assert_eq!(c["rounds"], 1, "{c}");
        assert_eq!(c["verdict"], "1 round", "{c}");
        for k in ["ci95_low_pct", "ci95_high_pct", "confidence_pct"] {
            assert!(c[k].is_null(), "{k} in {c}");
        }
    }
}

#[test]
fn control_gives_a_noise_floor_per_metric_and_point() {
    // 2 rounds, the baselines twice per round.
    let v = stdout_json(&repeated("2", "json", &["--control"]));
    assert_eq!(v["environment"]["control"], true);
    assert_eq!(v["environment"]["repeat"], 2);
    let floors = v["noise_floor"].as_array().expect("noise_floor array");
    let count = |s: &str| floors.iter().filter(|c| c["section"] == s).count();
    // Handshakes: the socket configurations of rustls-ring (the first TLS
    // transport), TLS 1.3 EcdsaP256 no-resume and tickets.
    assert_eq!(count("handshake"), 2, "{floors:?}");
    // Latency: plain at 1 and 8 connections, avg, p50, p95; bulk: plain, MB/s.
    assert_eq!(count("latency"), 2 * 3, "{floors:?}");
    assert_eq!(count("bulk"), 1, "{floors:?}");
    for f in floors {
        assert_eq!(f["rounds"], 2, "{f}");
        assert_eq!(f["confidence_pct"], 50.0, "{f}");
        for k in ["median_change_pct", "ci95_low_pct", "ci95_high_pct"] {
            assert!(f[k].is_f64(), "{k} in {f}");
        }
        let base = f["baseline"].as_str().expect("baseline");
        assert_eq!(f["variant"], format!("{base} (A/A control)"), "{f}");
        assert!(VERDICTS.contains(&f["verdict"].as_str().expect("verdict")));
    }
    let hs = floors
        .iter()
        .find(|f| f["section"] == "handshake" && f["point"] == "socket TLSv1_3 EcdsaP256 tickets")
        .expect("the floor of the resumed TLS 1.3 handshakes");
    assert_eq!(hs["metric"], "handshakes_per_cpu_sec");
    assert_eq!(hs["baseline"], "rustls-ring");
    // The A' rows: their own per-round figures, 2 rounds each.
    let c = &v["control_runs"];
    assert_eq!(c["handshake"].as_array().map(Vec::len), Some(2));
    assert_eq!(c["latency"].as_array().map(Vec::len), Some(2));
    for r in c["bulk"].as_array().expect("bulk control rows") {
        assert_eq!(r["transport"], "plain");
        assert_eq!(r["mb_per_sec_rounds"].as_array().map(Vec::len), Some(2));
    }
    for c in v["comparisons"].as_array().expect("comparisons") {
        assert!(
            VERDICTS.contains(&c["verdict"].as_str().expect("verdict")),
            "{c}"
        );
    }
}

#[test]
fn control_with_one_round_says_there_is_no_floor() {
    let mut args = SMALL[2..].to_vec();
    args.extend([
        "--sections",
        "latency,bulk",
        "--bulk-mib",
        "1",
        "--repeat",
        "1",
        "--control",
    ]);
    let out = tls_bench(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(!text.contains('%'), "{text}");
    assert!(
        text.contains("A/A noise floor: 1 round: run --control --repeat 5 for a floor"),
        "{text}"
    );
}

#[test]
fn a_quick_run_ends_with_a_one_screen_summary() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("run.json");
    let json_arg = json.to_str().expect("UTF-8 path");
    // --quick with its default transports, versions, certificates and
    // connection counts (what decides the summary's size), shorter points;
    // the A/A control is on by default in quick mode.
    let out = tls_bench(&[
        "--quick",
        "--sections",
        "handshake,latency,bulk",
        "--handshake-secs",
        "0.03",
        "--latency-secs",
        "0.03",
        "--bulk-mib",
        "1",
        "--json-out",
        json_arg,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let lines: Vec<&str> = text.lines().collect();
    let begin = lines
        .iter()
        .position(|l| l.starts_with(tls_bench::report::summary::BEGIN))
        .expect("summary start");
    let end = lines
        .iter()
        .position(|l| *l == tls_bench::report::summary::END)
        .expect("summary end");
    assert_eq!(end + 1, lines.len(), "the summary ends the output");
    let block = &lines[begin..=end];
    assert!(
        block.len() <= tls_bench::report::summary::MAX_LINES,
        "{}",
        block.join("\n")
    );
    assert!(block.len() <= 40, "{}", block.join("\n"));
    let has = |s: &str| block.iter().any(|l| l.contains(s));
    for s in [
        "Handshakes per CPU-second, TLSv1_3 Rsa2048",
        "Round trip at 64 connections, TLSv1_3, vs plain",
        "Bulk MB/s, one connection, TLS13_AES_256_GCM_SHA384, vs plain",
    ] {
        assert!(has(s), "{s} in\n{}", block.join("\n"));
    }
    // The A/A floor lines: the baseline, the point, "noise floor".
    let floor = |who: &str, what: &str| {
        block.iter().any(|l| {
            l.trim_start().starts_with(who) && l.contains(what) && l.ends_with("noise floor")
        })
    };
    for (who, what) in [
        ("rustls-aws-lc-rs", "A/A no-resume"),
        ("rustls-aws-lc-rs", "A/A tickets"),
        ("plain", "A/A p50"),
        ("plain", "A/A p95"),
        ("plain", "MB/s"),
    ] {
        assert!(floor(who, what), "{who} {what} in\n{}", block.join("\n"));
    }
    assert!(has(&format!("JSON: {json_arg}")), "{}", block.join("\n"));
    // The JSON went there whole.
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("JSON file")).expect("JSON");
    assert_eq!(v["environment"]["quick"], true);
    assert_eq!(
        v["environment"]["control"], true,
        "--quick runs the A/A control"
    );
    let floors = v["noise_floor"].as_array().expect("noise_floor");
    for section in ["handshake", "latency", "bulk"] {
        assert!(
            floors.iter().any(|f| f["section"] == section),
            "a {section} floor in {floors:?}"
        );
    }
    assert!(!text.contains(tls_bench::comparison::NO_FLOOR), "{text}");
}

#[test]
fn a_quick_run_without_control_says_no_floor_was_measured() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("run.json");
    let mut args = SMALL[2..].to_vec();
    args.extend([
        "--quick",
        "--no-control",
        "--sections",
        "handshake,latency,bulk",
        "--no-in-memory",
        "--bulk-mib",
        "1",
        "--json-out",
        json.to_str().expect("UTF-8 path"),
    ]);
    let out = tls_bench(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let no_floor = tls_bench::comparison::NO_FLOOR;
    assert_eq!(no_floor, "no noise floor measured: add --control");
    let marker = tls_bench::report::summary::UNFLOORED;
    assert!(
        text.contains(&format!(
            "A/A noise floor: not measured ({marker}: {no_floor})"
        )),
        "{text}"
    );
    // Every effect found says it has no floor: a verdict ends its line, in
    // the comparisons table as `slower (no noise floor measured: add
    // --control)`, in the summary as `slower *`; never bare.
    for l in text.lines() {
        let l = l.trim_end();
        assert!(
            !l.ends_with("faster") && !l.ends_with("slower"),
            "a bare verdict: {l}\n{text}"
        );
    }
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("JSON file")).expect("JSON");
    assert_eq!(v["environment"]["control"], false);
    assert_eq!(v["noise_floor"].as_array().map(Vec::len), Some(0));
}
