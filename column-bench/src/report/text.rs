//! The terminal text: the header line, the aligned tables, the notes.

use super::Report;

impl Report {
    /// The terminal tables.
    pub fn to_text(&self) -> String {
        self.document(|t| t.text())
    }
}
