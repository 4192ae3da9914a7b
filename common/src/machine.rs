//! The machine a result was measured on: CPU model, the CPU flags the AEAD
//! and TLS code paths use, logical CPUs and the kernel.
//!
//! CPU flags are spelled as `/proc/cpuinfo` spells them (`aes`, not `AES-NI`):
//! the names a reader can grep for on the machine itself, and that Linux,
//! `lscpu` and `is_x86_feature_detected!` (but for `sha_ni`, there `sha`) use.
//! [`flag_label`] gives the vendor's name for text reports.
//!
//! Nothing here fails: what cannot be read is `unknown` (strings) or empty
//! (flags), e.g. on a system without `/proc/cpuinfo`.

use serde::Serialize;

/// The crypto-relevant CPU flags, in the order they are listed: the
/// `/proc/cpuinfo` name, then the vendor's name (Intel SDM).
///
/// - `aes` (AES-NI) and `pclmulqdq` (PCLMULQDQ): AES-GCM's AES rounds and GHASH;
/// - `vaes` and `vpclmulqdq`: the same on 256/512-bit vectors (the wide AES-GCM paths);
/// - `avx2` and `avx512f` (AVX-512F): ChaCha20-Poly1305's vector paths;
/// - `sha_ni` (SHA): SHA-1 and SHA-256 instructions (HMAC, the TLS handshake).
pub const CRYPTO_FLAGS: [(&str, &str); 7] = [
    ("aes", "AES-NI"),
    ("pclmulqdq", "PCLMULQDQ"),
    ("vaes", "VAES"),
    ("vpclmulqdq", "VPCLMULQDQ"),
    ("avx2", "AVX2"),
    ("avx512f", "AVX-512F"),
    ("sha_ni", "SHA"),
];

/// The `machine` block of every JSON result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Machine {
    /// CPU model: `model name` of the first processor in /proc/cpuinfo, or `unknown`.
    pub cpu_model: String,
    /// The [`CRYPTO_FLAGS`] this CPU has, by their /proc/cpuinfo names
    /// (`aes`, `pclmulqdq`, `vaes`, `vpclmulqdq`, `avx2`, `avx512f`, `sha_ni`),
    /// in that order; empty when none or unknown.
    pub cpu_flags: Vec<&'static str>,
    /// Logical CPUs this process may use (`std::thread::available_parallelism`), count.
    pub logical_cpus: usize,
    /// Kernel name and release from uname, e.g. `Linux 6.1.0-18-amd64`, or `unknown`.
    pub kernel: String,
}

impl Machine {
    /// Reads the current machine (/proc/cpuinfo, uname). Where /proc/cpuinfo
    /// cannot be read, the flags come from `is_x86_feature_detected!` on
    /// x86-64 (none elsewhere).
    pub fn detect() -> Machine {
        let (cpu_model, cpu_flags) = match std::fs::read_to_string("/proc/cpuinfo") {
            Ok(text) => parse_cpuinfo(&text),
            Err(_) => ("unknown".to_string(), detected_flags()),
        };
        Machine {
            cpu_model,
            cpu_flags,
            logical_cpus: logical_cpus(),
            kernel: kernel(),
        }
    }

    /// The flags by their vendor names (`AES-NI PCLMULQDQ ...`), space-separated,
    /// or `no crypto CPU flags detected`: for a text report's machine line.
    pub fn flags_label(&self) -> String {
        if self.cpu_flags.is_empty() {
            "no crypto CPU flags detected".to_string()
        } else {
            let names: Vec<&str> = self.cpu_flags.iter().map(|f| flag_label(f)).collect();
            names.join(" ")
        }
    }
}

/// The vendor's name of a /proc/cpuinfo flag of [`CRYPTO_FLAGS`] (`aes` ->
/// `AES-NI`); any other flag as given.
pub fn flag_label(flag: &str) -> &str {
    CRYPTO_FLAGS
        .iter()
        .find(|(f, _)| *f == flag)
        .map_or(flag, |(_, label)| label)
}

/// Logical CPUs this process may use (1 when unknown).
pub fn logical_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The CPU model and the [`CRYPTO_FLAGS`] present, from the text of
/// /proc/cpuinfo (the first processor's `model name` and `flags` lines).
/// `unknown` and no flags when the lines are missing.
pub fn parse_cpuinfo(text: &str) -> (String, Vec<&'static str>) {
    let field = |name: &str| {
        text.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name).then(|| v.trim())
        })
    };
    let model = field("model name")
        .filter(|m| !m.is_empty())
        .unwrap_or("unknown")
        .to_string();
    let present: Vec<&str> = field("flags")
        .map(|f| f.split_whitespace().collect())
        .unwrap_or_default();
    let flags = CRYPTO_FLAGS
        .iter()
        .map(|(f, _)| *f)
        .filter(|f| present.contains(f))
        .collect();
    (model, flags)
}

/// The [`CRYPTO_FLAGS`] `std` detects at run time (x86-64).
#[cfg(target_arch = "x86_64")]
fn detected_flags() -> Vec<&'static str> {
    let detected = [
        std::is_x86_feature_detected!("aes"),
        std::is_x86_feature_detected!("pclmulqdq"),
        std::is_x86_feature_detected!("vaes"),
        std::is_x86_feature_detected!("vpclmulqdq"),
        std::is_x86_feature_detected!("avx2"),
        std::is_x86_feature_detected!("avx512f"),
        std::is_x86_feature_detected!("sha"),
    ];
    CRYPTO_FLAGS
        .iter()
        .zip(detected)
        .filter(|(_, on)| *on)
        .map(|((f, _), _)| *f)
        .collect()
}

/// None of [`CRYPTO_FLAGS`] is probed on this architecture.
#[cfg(not(target_arch = "x86_64"))]
fn detected_flags() -> Vec<&'static str> {
    Vec::new()
}

/// `SYSNAME RELEASE` from uname, or `unknown`.
#[cfg(unix)]
fn kernel() -> String {
    match nix::sys::utsname::uname() {
        Ok(u) => format!(
            "{} {}",
            u.sysname().to_string_lossy(),
            u.release().to_string_lossy()
        ),
        Err(_) => "unknown".to_string(),
    }
}

/// Not probed on this platform.
#[cfg(not(unix))]
fn kernel() -> String {
    "unknown".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CPUINFO: &str = "processor\t: 0\n\
        vendor_id\t: AuthenticAMD\n\
        model name\t: AMD EPYC 7B13\n\
        flags\t\t: fpu vme sse2 pclmulqdq ssse3 aes avx avx2 sha_ni vaes vpclmulqdq avx512_vbmi2\n\
        \n\
        processor\t: 1\n\
        model name\t: Other\n\
        flags\t\t: fpu avx512f\n";

    #[test]
    fn cpuinfo_gives_the_first_model_and_its_crypto_flags_in_order() {
        let (model, flags) = parse_cpuinfo(CPUINFO);
        assert_eq!(model, "AMD EPYC 7B13");
        // Table order, not cpuinfo order; avx512_vbmi2 is not avx512f, and the
        // second processor's avx512f is not the first's.
        assert_eq!(
            flags,
            ["aes", "pclmulqdq", "vaes", "vpclmulqdq", "avx2", "sha_ni"]
        );
    }

    #[test]
    fn missing_lines_give_unknown_and_no_flags() {
        assert_eq!(parse_cpuinfo(""), ("unknown".to_string(), vec![]));
        assert_eq!(
            parse_cpuinfo("model name\t:\nflags\t: fpu sse2\n"),
            ("unknown".to_string(), vec![])
        );
    }

    #[test]
    fn labels_are_the_vendor_names() {
        assert_eq!(flag_label("aes"), "AES-NI");
        assert_eq!(flag_label("sha_ni"), "SHA");
        assert_eq!(flag_label("neon"), "neon");
        let m = Machine {
            cpu_model: "x".into(),
            cpu_flags: vec!["aes", "avx512f"],
            logical_cpus: 1,
            kernel: "Linux 6".into(),
        };
        assert_eq!(m.flags_label(), "AES-NI AVX-512F");
        let none = Machine {
            cpu_flags: vec![],
            ..m
        };
        assert_eq!(none.flags_label(), "no crypto CPU flags detected");
    }

    #[test]
    fn detect_fills_every_field() {
        let m = Machine::detect();
        assert!(m.logical_cpus >= 1);
        assert!(!m.cpu_model.is_empty() && !m.kernel.is_empty());
        assert!(
            m.cpu_flags
                .iter()
                .all(|f| CRYPTO_FLAGS.iter().any(|(c, _)| c == f))
        );
        #[cfg(target_os = "linux")]
        assert!(m.kernel.starts_with("Linux "), "{}", m.kernel);
        #[cfg(target_os = "linux")]
        {
            let text = std::fs::read_to_string("/proc/cpuinfo").expect("cpuinfo");
            assert_eq!(
                (m.cpu_model.clone(), m.cpu_flags.clone()),
                parse_cpuinfo(&text)
            );
        }
    }
}
