//! A table's name with the AAD prefix of each of its encryptable columns,
//! built once per table: what the per-value seal and open path binds.

use std::fmt;

use encbench_crypto::KeyId;
use encbench_crypto::envelope::{ColumnAad, EnvelopeError, RowAad, int_primary_key};

use super::Column;

/// `sbtestN` (or any table name) and the [`ColumnAad`] of its `k`, `c` and
/// `pad`: a session builds one per table when it prepares its statements, as
/// a proxy builds one per result column, so that opening a value copies a
/// ready prefix instead of writing both names (column-bench/README.md, "The
/// envelope's cost"). Displays as the table name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableAad {
    name: String,
    /// In [`Column`] order: `k`, `c`, `pad`.
    columns: [ColumnAad; 3],
}

impl TableAad {
    /// The prefixes of `name`'s columns.
    ///
    /// # Errors
    /// [`EnvelopeError::FieldTooLong`] for a name over 255 bytes.
    pub fn new(name: impl Into<String>) -> Result<TableAad, EnvelopeError> {
        let name = name.into();
        let columns = [
            ColumnAad::new(&name, Column::K.name())?,
            ColumnAad::new(&name, Column::C.name())?,
            ColumnAad::new(&name, Column::Pad.name())?,
        ];
        Ok(TableAad { name, columns })
    }

    /// The table name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The AAD binding of `column` at `primary_key` (8 bytes for sysbench's
    /// integer ids, [`encbench_crypto::envelope::int_primary_key`]).
    pub fn at<'a>(&'a self, column: Column, primary_key: &'a [u8]) -> RowAad<'a> {
        // `columns` is in declaration order, so a column's discriminant is its index.
        self.columns[column as usize].at(primary_key)
    }
}

impl fmt::Display for TableAad {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// One column of a table, both named freely (not only sysbench's `k`, `c` and
/// `pad`), with its [`ColumnAad`] prefix built once, as a proxy builds one per
/// result column: what [`Codec::seal_column`](crate::Codec::seal_column) and
/// [`Codec::open_column_in_place`](crate::Codec::open_column_in_place) bind a
/// value to. Displays as `table.column`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableColumn {
    table: String,
    column: String,
    aad: ColumnAad,
}

impl TableColumn {
    /// The prefix of `table.column`.
    ///
    /// # Errors
    /// [`EnvelopeError::FieldTooLong`] for a name over 255 bytes.
    pub fn new(
        table: impl Into<String>,
        column: impl Into<String>,
    ) -> Result<TableColumn, EnvelopeError> {
        let (table, column) = (table.into(), column.into());
        let aad = ColumnAad::new(&table, &column)?;
        Ok(TableColumn { table, column, aad })
    }

    /// The table name.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// The column name.
    pub fn column(&self) -> &str {
        &self.column
    }

    /// The AAD binding of this column at `primary_key` (8 bytes for an integer
    /// id, [`encbench_crypto::envelope::int_primary_key`]).
    pub fn at<'a>(&'a self, primary_key: &'a [u8]) -> RowAad<'a> {
        self.aad.at(primary_key)
    }

    /// The AAD bytes a randomized envelope of this column at integer primary
    /// key `id` binds under `key_id`: what the AEAD authenticates besides the
    /// ciphertext, for a caller that runs the AEAD on an envelope's parts
    /// itself (column-bench's bare path). Allocates.
    ///
    /// # Errors
    /// As [`RowAad::to_vec`] (never for the 8-byte integer primary key).
    pub fn aad(&self, key_id: KeyId, id: i64) -> Result<Vec<u8>, EnvelopeError> {
        self.at(&int_primary_key(id)).to_vec(key_id)
    }
}

impl fmt::Display for TableColumn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.table, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use encbench_crypto::envelope::{ColumnCipher, Location, int_primary_key};
    use encbench_crypto::{Key, Keyring};

    /// Each column's prefix is that column's: a value sealed at (table, column,
    /// id) through a `Location` opens through `at` of the same column only.
    #[test]
    fn each_column_binds_its_own_name() {
        let d = encbench_registry::lookup("ring:aes-256-gcm").expect("compiled in");
        let key = Key::generate(d.algorithm.key_len()).expect("OS random");
        let cipher = ColumnCipher::new(Keyring::new(d, 1, &key).expect("key setup"));
        let t = TableAad::new("sbtest3").expect("fits");
        assert_eq!(t.to_string(), "sbtest3");
        let pk = int_primary_key(9);
        for sealed_as in [Column::K, Column::C, Column::Pad] {
            let mut stored = Vec::new();
            let loc = Location {
                table: "sbtest3",
                column: sealed_as.name(),
                primary_key: &pk,
            };
            cipher.seal(&loc, b"value", &mut stored).expect("seal");
            for opened_as in [Column::K, Column::C, Column::Pad] {
                let mut out = Vec::new();
                let opened = cipher.open(&t.at(opened_as, &pk), &stored, &mut out);
                assert_eq!(
                    opened.is_ok(),
                    sealed_as == opened_as,
                    "{sealed_as:?} {opened_as:?}"
                );
            }
        }
    }
}
