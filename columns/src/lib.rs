//! The column codec of encbench: which columns of sysbench's `sbtestN` tables are
//! encrypted (the layout), with which algorithm ([`Encrypt`]), under which keys
//! ([`keys`]), bound to which row and column ([`TableAad`]), and the per-value
//! seal/open path ([`Codec`]) that `oltp` runs and `column-bench` measures,
//! for sysbench's columns ([`TableAad`]) or any named one ([`TableColumn`]).
//!
//! Failures are one typed [`Error`] (layout, `--encrypt`, key files, key
//! setup), whose message keeps what went wrong ([`Error::what`]) and the fix
//! ([`Error::fix`]) apart; the per-value seal and open return the envelope's
//! own [`EnvelopeError`](encbench_crypto::envelope::EnvelopeError).

use std::fmt;

mod codec;
mod encrypt;
mod error;
pub mod keys;
mod table_aad;

pub use codec::{Codec, k_from_plaintext, k_plaintext};
pub use encrypt::Encrypt;
pub use error::{Error, Result};
pub use table_aad::{TableAad, TableColumn};

/// An encryptable column of sysbench's `sbtestN` tables (`id` always stays
/// plaintext: it is the primary key the AAD binds randomized values to).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Column {
    /// `k`: INTEGER, indexed; encrypted as its 4-byte big-endian two's complement.
    K,
    /// `c`: CHAR(120).
    C,
    /// `pad`: CHAR(60).
    Pad,
}

impl Column {
    /// The SQL name, also the column name bound into the AAD.
    pub const fn name(self) -> &'static str {
        match self {
            Column::K => "k",
            Column::C => "c",
            Column::Pad => "pad",
        }
    }

    /// `k`, `c` or `pad` (any case, surrounding spaces ignored).
    pub fn parse(name: &str) -> Option<Column> {
        match name.trim().to_ascii_lowercase().as_str() {
            "k" => Some(Column::K),
            "c" => Some(Column::C),
            "pad" => Some(Column::Pad),
            _ => None,
        }
    }
}

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How one column is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnMode {
    /// As sysbench stores it.
    Plain,
    /// A version-1 envelope with a random nonce, bound to the row (table,
    /// column, id): equal plaintexts look different.
    Randomized,
    /// A version-2 deterministic envelope bound to table and column only: equal
    /// plaintexts in a column are equal bytes, so `=` and `IN` work on the server.
    Deterministic,
}

/// Which of sbtest's columns are encrypted, and how (`--encrypt-columns`,
/// `--deterministic`). `id` always stays plaintext: it is the primary key the
/// AAD binds randomized values to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Columns {
    /// `k` (INTEGER; encrypted as its 4-byte big-endian two's complement).
    pub k: ColumnMode,
    /// `c` (CHAR(120)).
    pub c: ColumnMode,
    /// `pad` (CHAR(60)).
    pub pad: ColumnMode,
}

impl Default for Columns {
    fn default() -> Self {
        Columns::DEFAULT
    }
}

impl Columns {
    /// `c` and `pad` randomized, `k` plaintext: `--encrypt-columns c,pad`.
    pub const DEFAULT: Columns = Columns {
        k: ColumnMode::Plain,
        c: ColumnMode::Randomized,
        pad: ColumnMode::Randomized,
    };

    /// The encryptable columns, in schema order.
    pub const ALL: [Column; 3] = [Column::K, Column::C, Column::Pad];

    /// Parses `--encrypt-columns` (comma-separated `k`, `c`, `pad`, or `all`)
    /// and `--deterministic` (a subset of them, or `none`).
    ///
    /// # Errors
    /// [`Error::IdStaysPlaintext`], [`Error::UnknownColumn`], [`Error::NoColumn`]
    /// (an empty list), or [`Error::NotEncrypted`] (a deterministic column that
    /// is not encrypted).
    pub fn parse(encrypt_columns: &[String], deterministic: &[String]) -> Result<Columns> {
        let mut cols = Columns {
            k: ColumnMode::Plain,
            c: ColumnMode::Plain,
            pad: ColumnMode::Plain,
        };
        for item in encrypt_columns {
            match item.trim().to_ascii_lowercase().as_str() {
                "all" => {
                    cols.k = ColumnMode::Randomized;
                    cols.c = ColumnMode::Randomized;
                    cols.pad = ColumnMode::Randomized;
                }
                "id" => return Err(Error::IdStaysPlaintext),
                name => {
                    let column = Column::parse(name).ok_or_else(|| Error::UnknownColumn {
                        flag: "--encrypt-columns",
                        name: name.to_string(),
                    })?;
                    *cols.slot(column) = ColumnMode::Randomized;
                }
            }
        }
        if cols.encrypted().next().is_none() {
            return Err(Error::NoColumn);
        }
        for item in deterministic {
            let name = item.trim().to_ascii_lowercase();
            if name == "none" || name.is_empty() {
                continue;
            }
            let chosen = if name == "all" {
                cols.encrypted().collect::<Vec<_>>()
            } else {
                vec![Column::parse(&name).ok_or_else(|| Error::UnknownColumn {
                    flag: "--deterministic",
                    name: name.clone(),
                })?]
            };
            for column in chosen {
                if cols.mode(column) == ColumnMode::Plain {
                    let mut with = cols;
                    *with.slot(column) = ColumnMode::Randomized;
                    return Err(Error::NotEncrypted {
                        column,
                        encrypt_columns: with.names().join(","),
                    });
                }
                *cols.slot(column) = ColumnMode::Deterministic;
            }
        }
        Ok(cols)
    }

    fn slot(&mut self, column: Column) -> &mut ColumnMode {
        match column {
            Column::K => &mut self.k,
            Column::C => &mut self.c,
            Column::Pad => &mut self.pad,
        }
    }

    /// How `column` is stored.
    pub fn mode(&self, column: Column) -> ColumnMode {
        match column {
            Column::K => self.k,
            Column::C => self.c,
            Column::Pad => self.pad,
        }
    }

    /// The encrypted columns, in schema order.
    pub fn encrypted(&self) -> impl Iterator<Item = Column> + '_ {
        Columns::ALL
            .into_iter()
            .filter(|&c| self.mode(c) != ColumnMode::Plain)
    }

    /// The encrypted columns' names, in schema order.
    pub fn names(&self) -> Vec<&'static str> {
        self.encrypted().map(Column::name).collect()
    }

    /// Whether any column is deterministic.
    pub fn any_deterministic(&self) -> bool {
        Columns::ALL
            .into_iter()
            .any(|c| self.mode(c) == ColumnMode::Deterministic)
    }

    /// E.g. `k (deterministic), c, pad`.
    pub fn describe(&self) -> String {
        self.encrypted()
            .map(|c| match self.mode(c) {
                ColumnMode::Deterministic => format!("{c} (deterministic)"),
                _ => c.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The command-line flags that select this layout, with a leading space:
    /// empty for the default, else e.g. ` --encrypt-columns k,c,pad --deterministic k`.
    pub fn flags(&self) -> String {
        if *self == Columns::DEFAULT {
            return String::new();
        }
        let det: Vec<&str> = self
            .encrypted()
            .filter(|&c| self.mode(c) == ColumnMode::Deterministic)
            .map(Column::name)
            .collect();
        format!(
            " --encrypt-columns {}{}",
            self.names().join(","),
            if det.is_empty() {
                String::new()
            } else {
                format!(" --deterministic {}", det.join(","))
            }
        )
    }

    /// As recorded in `encbench_meta`: e.g. `k:deterministic,c:randomized,pad:randomized`.
    pub fn meta(&self) -> String {
        self.encrypted()
            .map(|c| {
                let m = match self.mode(c) {
                    ColumnMode::Deterministic => "deterministic",
                    _ => "randomized",
                };
                format!("{c}:{m}")
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The database-name suffix of this layout: empty for the default (`c,pad`),
    /// else `_` and one letter per encrypted column (`k`, `c`, `p`), each
    /// followed by `d` when deterministic, e.g. `_kdcp`. At most 7 bytes.
    pub fn db_suffix(&self) -> String {
        if *self == Columns::DEFAULT {
            return String::new();
        }
        let mut s = String::from("_");
        for c in self.encrypted() {
            s.push_str(&c.name()[..1]);
            if self.mode(c) == ColumnMode::Deterministic {
                s.push('d');
            }
        }
        s
    }

    /// Checks that `encrypt` can store this layout: deterministic columns need
    /// an algorithm with a deterministic form on the chosen backend.
    ///
    /// # Errors
    /// [`Error::NoDeterministicForm`], naming the algorithms that can.
    pub fn check(&self, encrypt: Encrypt) -> Result<()> {
        let Encrypt::Aead(d) = encrypt else {
            return Ok(());
        };
        if self.any_deterministic() {
            encbench_registry::lookup_deterministic(&d.name()).map_err(|_| {
                Error::NoDeterministicForm {
                    algorithm: d.name(),
                    choices: encbench_registry::deterministic()
                        .iter()
                        .map(|d| d.name())
                        .collect::<Vec<_>>()
                        .join(", "),
                }
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(enc: &[&str], det: &[&str]) -> Result<Columns> {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        Columns::parse(&s(enc), &s(det))
    }

    #[test]
    fn layouts_parse_and_name_their_databases() {
        let d = cols(&["c", "pad"], &["none"]).expect("default");
        assert_eq!(d, Columns::DEFAULT);
        assert_eq!(d.db_suffix(), "");
        assert_eq!(d.meta(), "c:randomized,pad:randomized");
        let all = cols(&["all"], &[]).expect("all");
        assert_eq!(all.db_suffix(), "_kcp");
        assert_eq!(all.describe(), "k, c, pad");
        let det = cols(&["all"], &["k"]).expect("det k");
        assert_eq!(det.k, ColumnMode::Deterministic);
        assert_eq!(det.db_suffix(), "_kdcp");
        assert_eq!(det.describe(), "k (deterministic), c, pad");
        let every = cols(&["K", " pad "], &["all"]).expect("case and spaces");
        assert_eq!(every.db_suffix(), "_kdpd");
        assert_eq!(every.c, ColumnMode::Plain);
        assert!(every.db_suffix().len() <= 7);
    }

    #[test]
    fn bad_layouts_are_refused_with_the_fix() {
        for (enc, det, want) in [
            (&["id"][..], &[][..], "id stays plaintext"),
            (&["x"][..], &[][..], "choose from k, c, pad, all"),
            (&["k"][..], &["c"][..], "add it to --encrypt-columns"),
            (&["k"][..], &["q"][..], "unknown column"),
        ] {
            let e = cols(enc, det).expect_err("refused").to_string();
            assert!(e.contains(want), "{enc:?} {det:?}: {e}");
        }
        let gcm = Encrypt::parse("rustcrypto:aes-256-gcm").expect("gcm");
        let siv = Encrypt::parse("rustcrypto:aes-256-siv").expect("siv");
        let det = cols(&["all"], &["k"]).expect("det");
        assert!(det.check(gcm).is_err());
        assert!(det.check(siv).is_ok());
        assert!(det.check(Encrypt::None).is_ok());
        assert!(Columns::DEFAULT.check(gcm).is_ok());
    }

    #[test]
    fn k_plaintext_round_trips() {
        for k in [0, 1, 9999, -5, i64::from(i32::MAX)] {
            assert_eq!(k_from_plaintext(&k_plaintext(k)), Ok(k));
        }
        assert!(k_from_plaintext(b"123").is_err());
    }
}
