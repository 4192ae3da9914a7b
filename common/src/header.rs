//! The self-describing head of every JSON result of the encbench tools.
//!
//! A tool's result type embeds a [`ResultHeader`] with `#[serde(flatten)]`, so
//! that every JSON result has, at its top level:
//!
//! ```json
//! {
//!   "schema_version": 1,
//!   "tool": { "name": "tls-bench", "version": "0.1.0",
//!             "git_revision": "dfe4bc2c0ffee..." },
//!   "started_at": "2026-12-01T07:47:38.123Z",
//!   "ended_at": "2026-12-01T07:49:02.456Z",
//!   "machine": { "cpu_model": "AMD EPYC 7B13",
//!                "cpu_flags": ["aes", "pclmulqdq", "vaes", "vpclmulqdq", "avx2"],
//!                "logical_cpus": 2, "kernel": "Linux 6.1.0-18-amd64" },
//!   ...the tool's own fields
//! }
//! ```
//!
//! `schema_version` is the tool's own: it counts incompatible changes of that
//! tool's JSON (a field removed, renamed or changed in meaning), not of this header.
//!
//! ```
//! use encbench_common::{ResultHeader, tool_info};
//!
//! #[derive(serde::Serialize)]
//! struct Report {
//!     #[serde(flatten)]
//!     header: ResultHeader,
//!     qps: f64,
//! }
//!
//! let mut report = Report { header: ResultHeader::begin(1, tool_info!("demo")), qps: 0.0 };
//! report.qps = 42.0; // the measured work
//! report.header.end();
//! ```

use std::time::{Duration, SystemTime};

use serde::{Serialize, Serializer};

use crate::machine::Machine;

/// The git revision (`git rev-parse HEAD`, 40 hex digits) of the checkout
/// encbench was built from, or `None` when it was not built in a git checkout
/// or `git` was missing. Recorded by this crate's build script, which reruns
/// on a new commit.
pub const GIT_REVISION: Option<&str> = option_env!("ENCBENCH_GIT_REVISION");

/// Which program, at which version, wrote a result: the `tool` object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ToolInfo {
    /// The tool's name, e.g. `column-bench` (the binary's name).
    pub name: &'static str,
    /// The tool's version (its `CARGO_PKG_VERSION`, e.g. `0.1.0`).
    pub version: &'static str,
    /// [`GIT_REVISION`]: the commit it was built from, or `null`.
    pub git_revision: Option<&'static str>,
}

impl ToolInfo {
    /// The tool `name` at `version`, with this build's [`GIT_REVISION`]. Use
    /// [`tool_info!`](crate::tool_info), which passes the calling crate's version.
    pub const fn new(name: &'static str, version: &'static str) -> ToolInfo {
        ToolInfo {
            name,
            version,
            git_revision: GIT_REVISION,
        }
    }
}

/// `ToolInfo::new(name, env!("CARGO_PKG_VERSION"))` with the version of the
/// crate that calls the macro (the tool's, not this crate's).
#[macro_export]
macro_rules! tool_info {
    ($name:expr) => {
        $crate::header::ToolInfo::new($name, env!("CARGO_PKG_VERSION"))
    };
}

/// The header fields of every JSON result; embed with `#[serde(flatten)]`.
/// Times serialize as RFC 3339 UTC strings with milliseconds
/// (`2026-12-01T07:47:38.123Z`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResultHeader {
    /// Version of the tool's JSON layout, an integer starting at 1.
    pub schema_version: u32,
    /// The program that wrote the result.
    pub tool: ToolInfo,
    /// When the measured work started, UTC (RFC 3339 in JSON).
    #[serde(serialize_with = "serialize_rfc3339")]
    pub started_at: SystemTime,
    /// When the measured work ended, UTC (RFC 3339 in JSON); equal to
    /// `started_at` until [`ResultHeader::end`] is called.
    #[serde(serialize_with = "serialize_rfc3339")]
    pub ended_at: SystemTime,
    /// The machine measured.
    pub machine: Machine,
}

impl ResultHeader {
    /// A header started now: `started_at` and `ended_at` are the current time,
    /// the machine is [`Machine::detect`]ed. Call it just before the measured
    /// work, and [`end`](ResultHeader::end) just after.
    pub fn begin(schema_version: u32, tool: ToolInfo) -> ResultHeader {
        let now = SystemTime::now();
        ResultHeader {
            schema_version,
            tool,
            started_at: now,
            ended_at: now,
            machine: Machine::detect(),
        }
    }

    /// Stamps `ended_at` with the current time (never before `started_at`,
    /// should the clock step back).
    pub fn end(&mut self) {
        self.ended_at = SystemTime::now().max(self.started_at);
    }
}

/// Why a time cannot be written as RFC 3339.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TimeError {
    /// The time is before 1970 or after 9999 (a clock far off).
    #[error("time {0:?} is outside 1970..=9999: check the system clock")]
    OutOfRange(SystemTime),
}

/// `t` as an RFC 3339 UTC string, truncated to milliseconds, e.g.
/// `2026-12-01T07:47:38.123Z` (no fraction when it is zero).
///
/// # Errors
/// [`TimeError::OutOfRange`] for a time before 1970 or after year 9999.
pub fn rfc3339(t: SystemTime) -> Result<String, TimeError> {
    let since = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_err(|_| TimeError::OutOfRange(t))?;
    let ms = Duration::from_millis(u64::try_from(since.as_millis()).unwrap_or(u64::MAX));
    let utc = time::OffsetDateTime::from_unix_timestamp_nanos(ms.as_nanos() as i128)
        .map_err(|_| TimeError::OutOfRange(t))?;
    utc.format(&time::format_description::well_known::Rfc3339)
        .map_err(|_| TimeError::OutOfRange(t))
}

fn serialize_rfc3339<S: Serializer>(t: &SystemTime, s: S) -> Result<S::Ok, S::Error> {
    let text = rfc3339(*t).map_err(serde::ser::Error::custom)?;
    s.serialize_str(&text)
}

/// Checks that a JSON result follows the contract of every encbench result:
/// top-level `schema_version` (an integer >= 1), `tool` {`name`, `version`
/// (strings), `git_revision` (string or null)}, `started_at` and `ended_at`
/// (RFC 3339 strings, not ending before starting) and `machine` {`cpu_model`,
/// `kernel` (strings), `cpu_flags` (list of strings), `logical_cpus`
/// (integer >= 1)}. For the tools' tests (cargo feature `check`).
///
/// # Errors
/// The first field that is missing or of the wrong type, named by its path
/// (e.g. `machine.cpu_flags: not a list of strings`).
#[cfg(feature = "check")]
pub fn check_json(v: &serde_json::Value) -> Result<(), String> {
    use time::OffsetDateTime;
    use time::format_description::well_known::Rfc3339;
    let string = |path: &str, x: &serde_json::Value| {
        x.as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("{path}: not a string: {x}"))
    };
    match v["schema_version"].as_u64() {
        Some(n) if n >= 1 => {}
        _ => {
            return Err(format!(
                "schema_version: not an integer >= 1: {}",
                v["schema_version"]
            ));
        }
    }
    let tool = &v["tool"];
    string("tool.name", &tool["name"])?;
    string("tool.version", &tool["version"])?;
    let rev = &tool["git_revision"];
    if !(rev.is_null() && tool.get("git_revision").is_some() || rev.is_string()) {
        return Err(format!("tool.git_revision: not a string or null: {rev}"));
    }
    let when = |key: &str| {
        let s = string(key, &v[key])?;
        OffsetDateTime::parse(&s, &Rfc3339).map_err(|e| format!("{key}: not RFC 3339 ({e}): {s}"))
    };
    let (start, end) = (when("started_at")?, when("ended_at")?);
    if end < start {
        return Err(format!("ended_at {end} is before started_at {start}"));
    }
    let m = &v["machine"];
    string("machine.cpu_model", &m["cpu_model"])?;
    string("machine.kernel", &m["kernel"])?;
    match m["cpu_flags"].as_array() {
        Some(a) if a.iter().all(serde_json::Value::is_string) => {}
        _ => {
            return Err(format!(
                "machine.cpu_flags: not a list of strings: {}",
                m["cpu_flags"]
            ));
        }
    }
    match m["logical_cpus"].as_u64() {
        Some(n) if n >= 1 => Ok(()),
        _ => Err(format!(
            "machine.logical_cpus: not an integer >= 1: {}",
            m["logical_cpus"]
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::OffsetDateTime;
    use time::format_description::well_known::Rfc3339;

    #[derive(Serialize)]
    struct Report {
        #[serde(flatten)]
        header: ResultHeader,
        qps: f64,
    }

    fn report() -> serde_json::Value {
        let mut r = Report {
            header: ResultHeader::begin(1, crate::tool_info!("demo")),
            qps: 1.5,
        };
        std::thread::sleep(Duration::from_millis(5));
        r.header.end();
        serde_json::to_value(&r).expect("serialize")
    }

    #[test]
    fn flattened_header_has_every_contract_field_beside_the_tools_own() {
        let v = report();
        assert_eq!(v["schema_version"], 1);
        assert_eq!(v["qps"], 1.5);
        assert_eq!(v["tool"]["name"], "demo");
        assert_eq!(v["tool"]["version"], env!("CARGO_PKG_VERSION"));
        assert!(v["tool"].get("git_revision").is_some());
        assert_eq!(v["tool"]["git_revision"].as_str(), GIT_REVISION);
        for k in ["cpu_model", "cpu_flags", "logical_cpus", "kernel"] {
            assert!(v["machine"].get(k).is_some(), "machine.{k}");
        }
        let t = |k: &str| {
            OffsetDateTime::parse(v[k].as_str().expect("string"), &Rfc3339).expect("RFC 3339")
        };
        assert!(t("ended_at") >= t("started_at") + Duration::from_millis(4));
        assert!(
            v["started_at"].as_str().expect("string").ends_with('Z'),
            "UTC"
        );
        #[cfg(feature = "check")]
        check_json(&v).expect("the contract");
    }

    #[test]
    fn the_revision_is_a_full_hash_when_known() {
        if let Some(r) = GIT_REVISION {
            assert_eq!(r.len(), 40, "{r}");
            assert!(r.bytes().all(|b| b.is_ascii_hexdigit()), "{r}");
        }
    }

    #[test]
    fn rfc3339_is_utc_to_the_millisecond() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_nanos(1_764_575_258_123_456_789);
        assert_eq!(rfc3339(t).expect("in range"), "2025-12-01T07:47:38.123Z");
        let whole = SystemTime::UNIX_EPOCH + Duration::from_secs(86_400);
        assert_eq!(rfc3339(whole).expect("in range"), "1970-01-02T00:00:00Z");
        let before = SystemTime::UNIX_EPOCH - Duration::from_secs(1);
        assert!(matches!(rfc3339(before), Err(TimeError::OutOfRange(_))));
        let far = SystemTime::UNIX_EPOCH + Duration::from_secs(400 * 365 * 86_400 * 100);
        assert!(rfc3339(far).is_err());
    }

    #[test]
    fn end_never_goes_before_begin() {
        let mut h = ResultHeader::begin(3, ToolInfo::new("x", "9.9.9"));
        assert_eq!(h.started_at, h.ended_at);
        h.started_at += Duration::from_secs(3600);
        h.end();
        assert_eq!(h.ended_at, h.started_at);
        assert_eq!(h.tool.version, "9.9.9");
    }

    #[cfg(feature = "check")]
    #[test]
    fn check_json_names_the_first_bad_field() {
        let good = report();
        check_json(&good).expect("good");
        let bad = |edit: &dyn Fn(&mut serde_json::Value), want: &str| {
            let mut v = good.clone();
            edit(&mut v);
            let e = check_json(&v).expect_err(want);
            assert!(e.starts_with(want), "{want}: {e}");
        };
        bad(&|v| v["schema_version"] = "1".into(), "schema_version");
        bad(&|v| v["schema_version"] = 1.5.into(), "schema_version");
        bad(&|v| v["tool"] = "demo".into(), "tool.name");
        bad(
            &|v| v["tool"]["git_revision"] = 7.into(),
            "tool.git_revision",
        );
        bad(
            &|v| {
                v["tool"]
                    .as_object_mut()
                    .expect("object")
                    .remove("git_revision");
            },
            "tool.git_revision",
        );
        bad(&|v| v["started_at"] = "yesterday".into(), "started_at");
        bad(
            &|v| v["ended_at"] = "1970-01-01T00:00:00Z".into(),
            "ended_at",
        );
        bad(
            &|v| v["machine"]["cpu_flags"] = "aes".into(),
            "machine.cpu_flags",
        );
        bad(
            &|v| v["machine"]["logical_cpus"] = 0.into(),
            "machine.logical_cpus",
        );
        bad(
            &|v| {
                v.as_object_mut().expect("object").remove("machine");
            },
            "machine.cpu_model",
        );
    }
}
