//! The one line a binary prints on failure, after `Error: `.
//!
//! Two sources: clap's usage errors ([`usage_error_line`], which the binary
//! follows with exit code 2) and every other error with its chain of causes
//! ([`error_line`], exit code 1). [`parse_args`] is the whole parse step of a
//! tool's `main`.

use std::process::ExitCode;

use clap::error::ErrorKind;

/// The error and its causes (`source()` chain) on one line, joined by `": "`,
/// each cause once:
///
/// - a cause whose message the line already contains is skipped (an error that
///   quotes its source);
/// - a `": "`-separated segment equal to the one before it is dropped
///   (`mysql_async`'s I/O errors print "Input/output error: Input/output
///   error: ...");
/// - newlines inside a message become spaces.
///
/// For an `anyhow::Error` pass `err.as_ref()`; its context layers are the chain.
pub fn error_line(e: &(dyn std::error::Error + 'static)) -> String {
    let mut line = String::new();
    let mut cause = Some(e);
    while let Some(c) = cause {
        let text = c.to_string();
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
        cause = c.source();
    }
    repeated_segments_once(&line.replace('\n', " "))
}

/// `text` with each `": "`-separated segment that equals the one before it
/// dropped: `"Input/output error: Input/output error: Connection refused"`
/// (how `mysql_async` prints an I/O error) becomes `"Input/output error:
/// Connection refused"`. For a driver's error text wherever it is printed,
/// not only on the final line ([`error_line`] does this too).
pub fn repeated_segments_once(text: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for seg in text.split(": ") {
        if out.last() != Some(&seg) {
            out.push(seg);
        }
    }
    out.join(": ")
}

/// clap's error for bad command-line input on one line, without its `error:`
/// prefix: the problem, the possible values where clap lists them
/// (`[possible values: a, b]`, `[subcommands: ...]`), clap's tips, and which
/// `--help` to read: `help` is the command, e.g. `tls-bench` or `oltp run`, and
/// the line ends in `; see {help} --help`.
///
/// clap's "a similar value exists" tip is left out: the possible values are
/// listed, and the nearest spelling is often not the value meant. An error
/// with no text gives `invalid arguments`.
pub fn usage_error_line(e: &clap::Error, help: &str) -> String {
    let text = e.to_string();
    let mut line = String::new();
    for raw in text.lines() {
        let l = raw.trim();
        if l.starts_with("Usage:") || l.starts_with("For more information") {
            break;
        }
        if l.is_empty() || l.starts_with("tip: a similar value exists") {
            continue;
        }
        if line.is_empty() {
            line.push_str(l.strip_prefix("error: ").unwrap_or(l));
        } else if let Some(list) = l.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
            line.push_str(": ");
            line.push_str(list);
        } else if let Some(tip) = l.strip_prefix("tip: ") {
            line.push_str("; ");
            line.push_str(tip);
        } else {
            line.push_str(if line.ends_with(':') { " " } else { "; " });
            line.push_str(l);
        }
    }
    if line.is_empty() {
        line.push_str("invalid arguments");
    }
    format!("{line}; see {help} --help")
}

/// Parses the process's command line into `P`, the way every tool's `main`
/// does: `--help`, `--version` and a missing subcommand print clap's own text
/// and exit the process (0 for `--help` and `--version`); a usage error prints
/// `Error: ` and [`usage_error_line`] (naming `help`'s `--help`) on standard
/// error and returns exit code 2 for `main` to return.
///
/// # Errors
/// `ExitCode::from(2)` after printing the usage error.
pub fn parse_args<P: clap::Parser>(help: &str) -> Result<P, ExitCode> {
    match P::try_parse() {
        Ok(p) => Ok(p),
        Err(e)
            if !e.use_stderr()
                || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            e.exit()
        }
        Err(e) => {
            eprintln!("Error: {}", usage_error_line(&e, help));
            Err(ExitCode::from(2))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// An error with a message and an optional source.
    #[derive(Debug)]
    struct E(&'static str, Option<Box<E>>);

    impl std::fmt::Display for E {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for E {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|e| e as _)
        }
    }

    fn chain(msgs: &[&'static str]) -> E {
        let mut e: Option<Box<E>> = None;
        for m in msgs.iter().rev() {
            e = Some(Box::new(E(m, e)));
        }
        *e.expect("at least one message")
    }

    #[test]
    fn each_cause_is_printed_once() {
        assert_eq!(error_line(&chain(&["a"])), "a");
        assert_eq!(error_line(&chain(&["a", "b", "c"])), "a: b: c");
        // The outer message quotes its source: the source is not repeated.
        assert_eq!(
            error_line(&chain(&["connect 127.0.0.1: refused", "refused"])),
            "connect 127.0.0.1: refused"
        );
    }

    #[test]
    fn mysql_async_doubled_io_error_collapses() {
        let e = chain(&[
            "cannot connect to mysql://127.0.0.1:3306",
            "Input/output error: Input/output error: Connection refused (os error 111)",
            "Connection refused (os error 111)",
        ]);
        assert_eq!(
            error_line(&e),
            "cannot connect to mysql://127.0.0.1:3306: Input/output error: Connection refused (os error 111)"
        );
    }

    #[test]
    fn newlines_become_spaces() {
        assert_eq!(error_line(&chain(&["a\nb", "c"])), "a b: c");
    }

    #[derive(Debug, Parser)]
    #[command(name = "demo")]
    struct Demo {
        /// A choice.
        #[arg(long, value_parser = ["text", "json"])]
        output: Option<String>,
        /// A number.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=9))]
        n: Option<u32>,
    }

    fn usage(args: &[&str]) -> String {
        let e = Demo::try_parse_from(std::iter::once("demo").chain(args.iter().copied()))
            .expect_err("bad arguments");
        usage_error_line(&e, "demo")
    }

    #[test]
    fn usage_errors_are_one_line_with_the_values_and_the_help_to_read() {
        let l = usage(&["--output", "jsn"]);
        assert!(!l.contains('\n'), "{l}");
        assert!(!l.starts_with("error:"), "{l}");
        assert!(l.contains("'jsn'") && l.contains("--output"), "{l}");
        assert!(l.contains("possible values: text, json"), "{l}");
        assert!(!l.contains("similar value"), "{l}");
        assert!(l.ends_with("; see demo --help"), "{l}");

        let l = usage(&["--n", "0"]);
        assert!(l.contains("'0'") && l.contains("1..=9"), "{l}");
        assert!(!l.contains("Usage:"), "{l}");

        let l = usage(&["--no-such-flag"]);
        assert!(l.contains("'--no-such-flag'"), "{l}");
        assert!(!l.contains('\n'), "{l}");
    }

    #[test]
    fn an_empty_clap_error_still_says_something() {
        let e = clap::Error::new(ErrorKind::InvalidValue);
        let l = usage_error_line(&e, "demo");
        assert!(l.ends_with("; see demo --help"), "{l}");
        assert!(l.len() > "; see demo --help".len(), "{l}");
    }

    #[test]
    fn a_repeated_segment_is_printed_once() {
        assert_eq!(
            repeated_segments_once(
                "Input/output error: Input/output error: Connection refused (os error 111)"
            ),
            "Input/output error: Connection refused (os error 111)"
        );
        assert_eq!(repeated_segments_once("a: b: a"), "a: b: a");
    }
}
