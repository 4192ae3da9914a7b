//! `report.json`: the whole [`Reproduction`] (rows, identity, measurements,
//! every grid's oltp report with each run's raw result).

use super::row::Reproduction;

/// The reproduction as pretty JSON.
///
/// # Errors
/// Serialisation failed (a non-finite number in a figure).
pub fn to_json(r: &Reproduction) -> serde_json::Result<String> {
    serde_json::to_string_pretty(r)
}
