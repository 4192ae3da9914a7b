//! A binary's output checked: the one-line error every tool prints on bad
//! input, and JSON read from stdout or a file.

use std::fmt::Debug;
use std::path::Path;
use std::process::Output;

use serde_json::Value;

/// The verdicts a comparison of two variants may give, in every tool's JSON
/// (`verdict` of each comparison and noise-floor entry), written out here so
/// that a test fails when a tool gives another.
pub const VERDICTS: [&str; 5] = [
    "higher",
    "lower",
    "no difference detected",
    "within noise floor",
    "1 round",
];

/// The error line of a failed command (`what`: its arguments, for the
/// messages), without its newline.
///
/// # Panics
/// The command succeeded, wrote to stdout, wrote other than exactly one line on
/// stderr, that line does not start with `Error: `, or it panicked.
pub fn one_error_line(out: &Output, what: impl Debug) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{what:?} must fail: {stderr}");
    assert!(
        out.stdout.is_empty(),
        "{what:?}: nothing on stdout on error: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(stderr.lines().count(), 1, "{what:?}: one line: {stderr}");
    assert!(
        stderr.starts_with("Error: "),
        "{what:?}: not an `Error: ` line: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{what:?}: {stderr}");
    stderr.trim_end().to_string()
}

/// [`one_error_line`] of a usage error (a bad flag or value): exit code 2, as
/// clap exits.
///
/// # Panics
/// As [`one_error_line`], or the exit code is not 2.
pub fn usage_error_line(out: &Output, what: impl Debug) -> String {
    assert_eq!(
        out.status.code(),
        Some(2),
        "{what:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    one_error_line(out, what)
}

/// The JSON a successful command printed on stdout.
///
/// # Panics
/// The command failed (its stderr is shown) or stdout is not JSON.
pub fn stdout_json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "the command failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON on stdout")
}

/// The JSON file at `path`.
///
/// # Panics
/// The file cannot be read or is not JSON.
pub fn read_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).expect("valid json")
}

/// A count in a report.
///
/// # Panics
/// `v` is not an unsigned integer.
pub fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn sh(script: &str) -> Output {
        Command::new("sh")
            .args(["-c", script])
            .output()
            .expect("run sh")
    }

    #[test]
    fn one_error_line_returns_the_line_without_its_newline() {
        let out = sh("echo 'Error: --threads 0: use 1 or more' >&2; exit 1");
        assert_eq!(
            one_error_line(&out, "threads"),
            "Error: --threads 0: use 1 or more"
        );
    }

    #[test]
    fn usage_error_line_wants_exit_2() {
        let out = sh("echo 'Error: bad value' >&2; exit 2");
        assert_eq!(usage_error_line(&out, "x"), "Error: bad value");
    }

    #[test]
    #[should_panic(expected = "must fail")]
    fn a_success_is_not_an_error() {
        one_error_line(&sh("echo 'Error: x' >&2"), "ok");
    }

    #[test]
    #[should_panic(expected = "one line")]
    fn two_lines_are_not_one() {
        one_error_line(&sh("printf 'Error: a\\nb\\n' >&2; exit 1"), "two");
    }

    #[test]
    #[should_panic(expected = "nothing on stdout")]
    fn output_on_stdout_is_refused() {
        one_error_line(&sh("echo out; echo 'Error: x' >&2; exit 1"), "stdout");
    }

    #[test]
    #[should_panic(expected = "Error: ")]
    fn a_line_without_the_prefix_is_refused() {
        one_error_line(&sh("echo 'oops' >&2; exit 1"), "prefix");
    }

    #[test]
    #[should_panic]
    fn a_usage_error_exits_2() {
        usage_error_line(&sh("echo 'Error: x' >&2; exit 1"), "code");
    }
}
