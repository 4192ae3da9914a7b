//! The titled table of cells every report draws, and its two plain renderings:
//! aligned text for the terminal and GitHub-flavoured Markdown. Cells are
//! already formatted strings (numbers through [`crate::number`]); a format
//! that needs more (CSV with a leading section column, HTML) reads the fields.

use std::fmt::Write as _;

/// How a column's cells line up in [`Table::text`] (and in
/// [`Table::markdown`]'s separator row, for [`Alignment::Columns`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Padded on the right (names).
    Left,
    /// Padded on the left (numbers).
    Right,
}

/// Where each cell's alignment comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Alignment {
    /// One [`Align`] per column, headers included; Markdown marks the right
    /// aligned columns `---:`.
    Columns(Vec<Align>),
    /// Per cell: right when the cell reads as a number (an optional sign, an
    /// optional trailing `%`), else left; Markdown marks every column `---`.
    ByContent,
}

/// A titled table of formatted cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    /// The line above the table (text) or its `###` heading (Markdown).
    pub title: String,
    /// Column headings.
    pub headers: Vec<String>,
    /// Rows of cells; a row may be shorter than `headers`, or longer (its
    /// extra cells get columns of their own in text).
    pub rows: Vec<Vec<String>>,
    /// How cells line up.
    pub alignment: Alignment,
    /// A line of dashes under the headings in text.
    pub rule: bool,
}

impl Table {
    /// A table with no rows yet.
    pub fn new(title: impl Into<String>, headers: &[&str], alignment: Alignment) -> Self {
        Self {
            title: title.into(),
            headers: headers.iter().map(|h| (*h).to_string()).collect(),
            rows: Vec::new(),
            alignment,
            rule: false,
        }
    }

    /// The table as aligned text: the title line, the headings, the rule
    /// when [`rule`](Self::rule) is set, one line per row (two spaces between
    /// columns, no trailing spaces), then a blank line.
    pub fn text(&self) -> String {
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for r in &self.rows {
            for (i, c) in r.iter().enumerate() {
                if i >= widths.len() {
                    widths.push(0);
                }
                widths[i] = widths[i].max(c.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut l = String::new();
            for (i, c) in cells.iter().enumerate() {
                if i > 0 {
                    l.push_str("  ");
                }
                match self.align(i, c) {
                    Align::Right => {
                        let _ = write!(l, "{c:>w$}", w = widths[i]);
                    }
                    Align::Left => {
                        let _ = write!(l, "{c:<w$}", w = widths[i]);
                    }
                }
            }
            l.trim_end().to_string()
        };
        let mut out = String::new();
        let _ = writeln!(out, "{}", self.title);
        let _ = writeln!(out, "{}", line(&self.headers));
        if self.rule {
            let dashes: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            let _ = writeln!(out, "{}", dashes.join("  "));
        }
        for r in &self.rows {
            let _ = writeln!(out, "{}", line(r));
        }
        out.push('\n');
        out
    }

    /// The table in GitHub-flavoured Markdown under a `###` heading, then a
    /// blank line.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "### {}\n", self.title);
        let _ = writeln!(out, "| {} |", self.headers.join(" | "));
        let seps: Vec<&str> = (0..self.headers.len())
            .map(|i| match &self.alignment {
                Alignment::Columns(a) if a.get(i) == Some(&Align::Right) => "---:",
                _ => "---",
            })
            .collect();
        let _ = writeln!(out, "|{}|", seps.join("|"));
        for r in &self.rows {
            let _ = writeln!(out, "| {} |", r.join(" | "));
        }
        out.push('\n');
        out
    }

    fn align(&self, column: usize, cell: &str) -> Align {
        match &self.alignment {
            Alignment::Columns(a) => a.get(column).copied().unwrap_or(Align::Left),
            Alignment::ByContent if is_numeric(cell) => Align::Right,
            Alignment::ByContent => Align::Left,
        }
    }
}

/// A cell that reads as a number: `12`, `-3.5`, `+25.0%`.
fn is_numeric(s: &str) -> bool {
    s.trim_start_matches(['+', '-'])
        .trim_end_matches('%')
        .parse::<f64>()
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::{Align, Alignment, Table};

    fn sample(alignment: Alignment, rule: bool) -> Table {
        let mut t = Table::new("Title", &["name", "n"], alignment);
        t.rule = rule;
        t.rows.push(vec!["a".into(), "1,234".into()]);
        t.rows.push(vec!["longer".into(), "+5.0%".into()]);
        t
    }

    #[test]
    fn columns_align_as_declared_and_markdown_marks_the_right_ones() {
        let t = sample(Alignment::Columns(vec![Align::Left, Align::Right]), false);
        assert_eq!(
            t.text(),
            "Title\nname        n\na       1,234\nlonger  +5.0%\n\n"
        );
        assert_eq!(
            t.markdown(),
            "### Title\n\n| name | n |\n|---|---:|\n| a | 1,234 |\n| longer | +5.0% |\n\n"
        );
    }

    #[test]
    fn by_content_right_aligns_what_reads_as_a_number_and_rules_the_headings() {
        // `1,234` does not parse as a number: left; `+5.0%` does: right.
        let t = sample(Alignment::ByContent, true);
        assert_eq!(
            t.text(),
            "Title\nname    n\n------  -----\na       1,234\nlonger  +5.0%\n\n"
        );
        assert!(t.markdown().contains("|---|---|\n"));
    }

    #[test]
    fn a_row_longer_than_the_headings_gets_a_column_of_its_own() {
        let mut t = Table::new("T", &["a"], Alignment::ByContent);
        t.rows.push(vec!["x".into(), "extra".into()]);
        assert_eq!(t.text(), "T\na\nx  extra\n\n");
    }
}
