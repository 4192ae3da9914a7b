//! A run's measured window in wall-clock time, as its result records it
//! (`measured_window` {`start`, `end`}, RFC 3339 UTC with milliseconds), and
//! the overlap of several clients' windows that `oltp merge` requires.

use std::time::{Duration, SystemTime};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// When a run measured: from the end of its warm-up to its last event (a run
/// that stopped early) or its deadline, wall-clock (UTC) time of the client.
/// Clients on several machines compare these only as well as their clocks
/// agree (NTP or chrony keep them within milliseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeasuredWindow {
    /// Start, RFC 3339 UTC, e.g. `2026-12-01T10:00:03.000Z`.
    #[serde(serialize_with = "to_rfc3339", deserialize_with = "from_rfc3339")]
    pub start: SystemTime,
    /// End (not before `start`), RFC 3339 UTC.
    #[serde(serialize_with = "to_rfc3339", deserialize_with = "from_rfc3339")]
    pub end: SystemTime,
}

fn to_rfc3339<S: Serializer>(t: &SystemTime, s: S) -> Result<S::Ok, S::Error> {
    let text = encbench_common::header::rfc3339(*t).map_err(serde::ser::Error::custom)?;
    s.serialize_str(&text)
}

fn from_rfc3339<'de, D: Deserializer<'de>>(d: D) -> Result<SystemTime, D::Error> {
    let text = String::deserialize(d)?;
    parse_rfc3339(&text).map_err(serde::de::Error::custom)
}

/// `text` (RFC 3339, any offset) as a time.
///
/// # Errors
/// Not RFC 3339 (the message quotes it).
pub fn parse_rfc3339(text: &str) -> Result<SystemTime, String> {
    let t = time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .map_err(|e| format!("{text:?} is not an RFC 3339 time ({e})"))?;
    Ok(SystemTime::from(t))
}

impl MeasuredWindow {
    /// A window of `length` from `start`.
    pub fn new(start: SystemTime, length: Duration) -> MeasuredWindow {
        MeasuredWindow {
            start,
            end: start + length,
        }
    }

    /// Its length.
    pub fn length(&self) -> Duration {
        self.end.duration_since(self.start).unwrap_or_default()
    }
}

/// How much several windows overlap: the time all of them cover
/// (intersection) over the time any of them covers (union), in percent; 100
/// for identical windows, 0 for disjoint ones. Union rather than the shortest
/// window, so that a short window inside a long one (another `--time`) does
/// not pass as aligned: the merged rates add clients over one common time.
/// Windows of zero length all at one instant overlap 100%.
pub fn overlap_pct(windows: &[MeasuredWindow]) -> f64 {
    let (Some(start_max), Some(end_min), Some(start_min), Some(end_max)) = (
        windows.iter().map(|w| w.start).max(),
        windows.iter().map(|w| w.end).min(),
        windows.iter().map(|w| w.start).min(),
        windows.iter().map(|w| w.end).max(),
    ) else {
        return 100.0;
    };
    let union = end_max.duration_since(start_min).unwrap_or_default();
    let inter = end_min.duration_since(start_max).unwrap_or_default();
    if union.is_zero() {
        return 100.0;
    }
    inter.as_secs_f64() / union.as_secs_f64() * 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_000_000) + Duration::from_millis(ms)
    }

    fn w(start_ms: u64, len_ms: u64) -> MeasuredWindow {
        MeasuredWindow::new(at(start_ms), Duration::from_millis(len_ms))
    }

    #[test]
    fn overlap_is_intersection_over_union() {
        assert_eq!(overlap_pct(&[w(0, 2000), w(0, 2000)]), 100.0);
        // 100 ms apart on 2 s: 1900 / 2100.
        let p = overlap_pct(&[w(0, 2000), w(100, 2000)]);
        assert!((p - 1900.0 / 2100.0 * 100.0).abs() < 1e-9, "{p}");
        // Disjoint, and a 1 s window inside a 10 s one.
        assert_eq!(overlap_pct(&[w(0, 1000), w(5000, 1000)]), 0.0);
        assert!((overlap_pct(&[w(0, 10_000), w(2000, 1000)]) - 10.0).abs() < 1e-9);
        // Three windows: all three share 1800 ms of 2200.
        let p = overlap_pct(&[w(0, 2000), w(100, 2000), w(200, 2000)]);
        assert!((p - 1800.0 / 2200.0 * 100.0).abs() < 1e-9, "{p}");
    }

    #[test]
    fn windows_round_trip_through_json_to_the_millisecond() {
        let win = w(1234, 2000);
        let v = serde_json::to_value(win).expect("json");
        assert_eq!(v["start"], "2026-11-30T00:53:21.234Z");
        let back: MeasuredWindow = serde_json::from_value(v).expect("parse");
        assert_eq!(back, win);
        assert!(parse_rfc3339("yesterday").is_err());
        assert_eq!(
            parse_rfc3339("2026-11-30T01:53:21.234+01:00").expect("offset"),
            at(1234)
        );
    }
}
