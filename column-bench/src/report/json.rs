//! The whole report as pretty JSON (the schema of `--json-out`).

use super::Report;
use crate::error::{Error, Result};

impl Report {
    /// The whole report as pretty JSON.
    ///
    /// # Errors
    /// Serialization fails (not expected).
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self)
            .map(|s| s + "\n")
            .map_err(|e| Error::Output {
                format: "json",
                detail: e.to_string(),
            })
    }
}
