//! The machine a run measured: CPU model, logical CPUs and the CPU features the
//! AEAD backends use.

use serde::Serialize;

/// What the CPU offers the AEAD code paths.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Machine {
    /// `model name` from /proc/cpuinfo, or `unknown`.
    pub cpu_model: String,
    /// Logical CPUs this process may use (`std::thread::available_parallelism`).
    pub logical_cpus: usize,
    /// Detected features among AES-NI, PCLMULQDQ, VAES, VPCLMULQDQ, AVX2,
    /// AVX-512F (`std::is_x86_feature_detected!`; empty on other architectures).
    pub cpu_features: Vec<&'static str>,
}

impl Machine {
    /// Reads the current machine.
    pub fn detect() -> Machine {
        let cpu_model = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, m)| m.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".to_string());
        Machine {
            cpu_model,
            logical_cpus: logical_cpus(),
            cpu_features: cpu_features(),
        }
    }
}

/// Logical CPUs this process may use (1 when unknown).
pub fn logical_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The detected CPU features that matter to AES-GCM and ChaCha20-Poly1305
/// (AES-NI and PCLMULQDQ for AES-GCM; VAES and VPCLMULQDQ for its wide paths;
/// AVX2 and AVX-512F for ChaCha20-Poly1305 and the wide paths).
#[cfg(target_arch = "x86_64")]
pub fn cpu_features() -> Vec<&'static str> {
    let mut f = Vec::new();
    if std::is_x86_feature_detected!("aes") {
        f.push("AES-NI");
    }
    if std::is_x86_feature_detected!("pclmulqdq") {
        f.push("PCLMULQDQ");
    }
    if std::is_x86_feature_detected!("vaes") {
        f.push("VAES");
    }
    if std::is_x86_feature_detected!("vpclmulqdq") {
        f.push("VPCLMULQDQ");
    }
    if std::is_x86_feature_detected!("avx2") {
        f.push("AVX2");
    }
    if std::is_x86_feature_detected!("avx512f") {
        f.push("AVX-512F");
    }
    f
}

/// The detected CPU features (none are probed on this architecture).
#[cfg(not(target_arch = "x86_64"))]
pub fn cpu_features() -> Vec<&'static str> {
    Vec::new()
}

/// `column-bench --list-backends`: one line per compiled-in `BACKEND:ALGORITHM`
/// with key, nonce and tag sizes in bytes, then the CPU features.
pub fn list_backends() -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let all = encbench_registry::all();
    let width = all.iter().map(|d| d.name().len()).max().unwrap_or(0);
    for d in all {
        let a = d.algorithm;
        let _ = writeln!(
            s,
            "{:width$}  key {:>2} B  nonce {:>2} B  tag {:>2} B  envelope overhead {} B",
            d.name(),
            a.key_len(),
            a.nonce_len(),
            a.tag_len(),
            encbench_registry::envelope::overhead(a),
        );
    }
    let m = Machine::detect();
    let features = if m.cpu_features.is_empty() {
        "none detected".to_string()
    } else {
        m.cpu_features.join(", ")
    };
    let _ = writeln!(
        s,
        "CPU: {} ({} logical CPUs); features: {features}",
        m.cpu_model, m.logical_cpus
    );
    s
}
