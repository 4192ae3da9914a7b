//! The sibling tools reproduce runs as processes: tls-bench's footprint
//! section (003) and column-bench's measurement for 000's proxy prediction.

use std::path::Path;

use serde_json::Value;

use crate::proxy;

/// A sibling tool of encbench: `given`, or the binary `name` next to this
/// binary; `Err` naming `build` (the cargo command) and `flag` when it is missing.
fn sibling_tool(
    given: Option<&Path>,
    name: &str,
    build: &str,
    flag: &str,
) -> std::result::Result<std::path::PathBuf, String> {
    let exe = match given {
        Some(p) => p.to_path_buf(),
        None => std::env::current_exe()
            .map_err(|e| format!("cannot find encbench-reproduce's own path: {e}"))?
            .with_file_name(name),
    };
    match not_runnable(&exe) {
        Some(why) => Err(format!(
            "{} {}: build it with `{build}`, or pass {flag} FILE",
            exe.display(),
            if why == "no such file" {
                "not found"
            } else {
                why
            }
        )),
        None => Ok(exe),
    }
}

/// Why `exe` cannot be run as a sibling tool: `no such file`, `not a regular
/// file` or `not executable` (no execute bit); `None` when it can.
pub(super) fn not_runnable(exe: &Path) -> Option<&'static str> {
    use std::os::unix::fs::PermissionsExt as _;
    match std::fs::metadata(exe) {
        Err(_) => Some("no such file"),
        Ok(m) if !m.is_file() => Some("not a regular file"),
        Ok(m) if m.permissions().mode() & 0o111 == 0 => Some("not executable"),
        Ok(_) => None,
    }
}

/// Runs `exe` with `args` (stdout discarded) and reads the JSON it wrote to
/// `json_out`; `Err` with the last line of its stderr when it fails.
async fn run_for_json(
    exe: std::path::PathBuf,
    args: Vec<String>,
    json_out: &Path,
) -> std::result::Result<Value, String> {
    let cmd_exe = exe.clone();
    let got = tokio::task::spawn_blocking(move || {
        std::process::Command::new(&cmd_exe)
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .output()
    })
    .await
    .map_err(|e| format!("cannot run {}: {e}", exe.display()))?
    .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    if !got.status.success() {
        let err = String::from_utf8_lossy(&got.stderr);
        return Err(format!(
            "{} failed: {}",
            exe.display(),
            err.lines().last().unwrap_or("no message")
        ));
    }
    let text =
        std::fs::read_to_string(json_out).map_err(|e| format!("{}: {e}", json_out.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", json_out.display()))
}

/// tls-bench's footprint section, run once into `out`/tls-bench.json.
pub(super) async fn tls_bench_footprint(
    given: Option<&Path>,
    out: &Path,
) -> std::result::Result<Value, String> {
    let exe = sibling_tool(
        given,
        "tls-bench",
        "cargo build --release -p tls-bench -p tls-bench-footprint",
        "--tls-bench",
    )?;
    let json_out = out.join("tls-bench.json");
    let args = ["--sections", "footprint", "--output", "json", "--json-out"]
        .map(String::from)
        .into_iter()
        .chain([json_out.display().to_string()])
        .collect();
    run_for_json(exe, args, &json_out).await
}

/// 000's proxy prediction: column-bench (`given`, or the one next to this
/// oltp binary) measures `backend` on sbtest's row with every column
/// encrypted ([`proxy::column_bench_args`]), its JSON written into `out`;
/// `Err(why)` when it is missing or fails (the report says so).
pub(super) async fn column_bench_prediction(
    given: Option<&Path>,
    backend: &str,
    out: &Path,
) -> std::result::Result<proxy::Measurement, String> {
    let exe = sibling_tool(
        given,
        "column-bench",
        "cargo build --release -p column-bench",
        "--column-bench",
    )?;
    let json_out = out.join("column-bench.json");
    let args = proxy::column_bench_args(backend, &json_out.display().to_string());
    let command = format!(
        "column-bench {}",
        args.iter()
            .map(|a| if a.contains(';') {
                format!("'{a}'")
            } else {
                a.clone()
            })
            .collect::<Vec<_>>()
            .join(" ")
    );
    let v = run_for_json(exe, args, &json_out).await?;
    proxy::parse(&v, backend, command)
}
