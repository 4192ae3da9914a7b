//! Reading what `mariadbd` and `mariadb-install-db` logged, for one-line errors that quote
//! the cause and the log's tail.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::process::ExitStatus;

use super::error::ServerError;

/// Lines of `err.log` quoted when the server fails to start.
const LOG_TAIL_LINES: usize = 20;

/// What `mariadbd` wrote to `err.log` from byte `start` on (lossy UTF-8; empty if unreadable).
pub(super) fn read_log_since(path: &Path, start: u64) -> String {
    let mut bytes = Vec::new();
    let read = File::open(path).and_then(|mut f| {
        f.seek(SeekFrom::Start(start))?;
        f.read_to_end(&mut bytes)
    });
    match read {
        Ok(_) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(_) => String::new(),
    }
}

/// The last [`LOG_TAIL_LINES`] non-empty lines of `log`, each after a newline and indented.
pub(super) fn tail(log: &str) -> String {
    let lines: Vec<&str> = log.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(LOG_TAIL_LINES);
    lines[start..]
        .iter()
        .map(|line| format!("\n    {line}"))
        .collect()
}

/// The first `[ERROR]` message of a MariaDB log, without its timestamp (`Aborting` is only
/// the consequence of an earlier error).
fn first_error(log: &str) -> Option<&str> {
    log.lines()
        .filter_map(|l| l.split_once("[ERROR] ").map(|(_, msg)| msg.trim()))
        .find(|msg| !msg.starts_with("Aborting"))
}

/// [`ServerError::StartFailed`] for a `mariadbd` that exited with `status` after writing `log`
/// to `log_path`.
pub(super) fn start_failed(status: ExitStatus, log_path: &Path, log: &str) -> ServerError {
    let summary = match first_error(log) {
        Some(err) => format!("mariadbd exited during start ({status}): {err}"),
        None => format!("mariadbd exited during start ({status})"),
    };
    ServerError::StartFailed {
        summary,
        log: log_path.to_path_buf(),
        log_tail: tail(log),
    }
}

/// [`ServerError::InitFailed`]: `summary` and the first error in `log_path`.
pub(super) fn init_failed(summary: String, log_path: &Path) -> ServerError {
    let log = read_log_since(log_path, 0);
    let summary = match first_error(&log).or_else(|| log.lines().find(|l| l.starts_with("ERROR"))) {
        Some(err) => format!("{summary}: {err}"),
        None => summary,
    };
    ServerError::InitFailed {
        summary,
        log: log_path.to_path_buf(),
        log_tail: tail(&log),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_error_skips_timestamps_and_aborting() {
        let log = "2026-11-30 12:39:11 0 [Note] Starting\n\
                   2026-11-30 12:39:11 0 [ERROR] /usr/sbin/mariadbd: unknown option '--bogus'\n\
                   2026-11-30 12:39:11 0 [ERROR] Aborting\n";
        assert_eq!(
            first_error(log),
            Some("/usr/sbin/mariadbd: unknown option '--bogus'")
        );
        assert_eq!(first_error("[ERROR] Aborting\n"), None);
    }

    #[test]
    fn tail_keeps_the_last_lines() {
        let log: String = (0..30).map(|i| format!("line {i}\n\n")).collect();
        let t = tail(&log);
        assert_eq!(t.lines().filter(|l| !l.is_empty()).count(), LOG_TAIL_LINES);
        assert!(t.ends_with("line 29"));
        assert!(t.starts_with("\n    line 10"));
    }
}
