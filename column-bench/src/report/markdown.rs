//! The same tables as the text, in GitHub-flavoured Markdown.

use super::Report;

impl Report {
    /// The same tables in Markdown.
    pub fn to_markdown(&self) -> String {
        self.document(|t| t.markdown())
    }
}
