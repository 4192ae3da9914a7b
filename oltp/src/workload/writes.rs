//! The write statements of sysbench's OLTP scripts, with new values sealed
//! for (table, column, id) under column encryption, and `k=k+1` on an
//! encrypted `k` done as the proxy's read-modify-write.

use crate::columns::{Column, ColumnMode, k_from_plaintext, k_plaintext};
use crate::driver::{Connection, Param, Row};
use crate::schema::table_name;

use super::session::{IndexUpdate, TableStatements, null_value, open, stmt, unique_insert_id};
use super::{QueryError, Session};

/// Attempts of the read-modify-write of an encrypted `k` before giving up.
const RMW_ATTEMPTS: usize = 16;

impl<C: Connection> Session<C> {
    /// Runs a prepared DML statement; true when it changed rows (sysbench's
    /// write, else other).
    async fn dml(
        &mut self,
        table: u32,
        pick: impl FnOnce(&TableStatements<C::Statement>) -> Option<&C::Statement>,
        params: &[Param<'_>],
    ) -> Result<bool, QueryError> {
        let (_, st) = stmt(&self.tables, self.workload, table, pick)?;
        Ok(self.conn.execute(st, params).await? > 0)
    }

    /// The stored form of a value of `table.column` at `id`: the value, or its
    /// envelope.
    fn seal(
        &self,
        table: u32,
        column: Column,
        id: i64,
        plain: &[u8],
    ) -> Result<Vec<u8>, QueryError> {
        let (name, _) = self
            .tables
            .get((table as usize).wrapping_sub(1))
            .ok_or_else(|| QueryError::Protocol(format!("no table {table}")))?;
        let mut out = Vec::with_capacity(plain.len() + 64);
        self.codec
            .seal(name, column, id, plain, &mut out)
            .map_err(|source| QueryError::Seal {
                table: name.to_string(),
                column,
                id,
                source,
            })?;
        Ok(out)
    }

    /// The parameter for a stored `c` or `pad` value: text in plaintext, an
    /// envelope (binary) when the column is encrypted.
    fn stored<'v>(&self, column: Column, v: &'v [u8]) -> Param<'v> {
        if self.codec.mode(column) == ColumnMode::Plain {
            Param::Text(v)
        } else {
            Param::Binary(v)
        }
    }

    /// `UPDATE sbtestT SET k=k+1 WHERE id=?`; true when a row changed.
    ///
    /// # Errors
    /// Server errors.
    pub async fn index_update(&mut self, table: u32, id: u32) -> Result<bool, QueryError> {
        let (name, st) = self
            .tables
            .get((table as usize).wrapping_sub(1))
            .ok_or_else(|| QueryError::Protocol(format!("no table {table}")))?;
        let (read, write) = match st.index_update.as_ref() {
            None => {
                return Err(QueryError::Protocol(format!(
                    "{} does not prepare this statement",
                    self.workload.name()
                )));
            }
            Some(IndexUpdate::Plain(s)) => {
                return Ok(self.conn.execute(s, &[id.into()]).await? > 0);
            }
            Some(IndexUpdate::Encrypted { read, write }) => (read, write),
        };
        // Read, add one, re-seal, and write only if nobody changed k meanwhile
        // (the locking read holds the row inside a transaction; in autocommit
        // mode the conditional write catches a concurrent change, and the
        // proxy retries).
        for _ in 0..RMW_ATTEMPTS {
            // (row found, its stored k): a found row with a NULL k is an
            // integrity failure, not a missing row.
            let mut old: Option<Option<Vec<u8>>> = None;
            self.conn
                .query(read, &[id.into()], |row: &mut C::Row| {
                    if old.is_none() {
                        old = Some(row.take_bytes(0));
                    }
                })
                .await?;
            let old = match old {
                None => return Ok(false),
                Some(None) => return Err(null_value(name, Column::K, i64::from(id))),
                Some(Some(old)) => old,
            };
            let mut plain = old.clone();
            open(&self.codec, name, Column::K, i64::from(id), &mut plain)?;
            let k = k_from_plaintext(&plain)
                .map_err(|e| QueryError::Protocol(format!("{name} id={id}: {e}")))?;
            let new = self.seal(table, Column::K, i64::from(id), &k_plaintext(k + 1))?;
            let params = [Param::Binary(&new), id.into(), Param::Binary(&old)];
            if self.conn.execute(write, &params).await? > 0 {
                return Ok(true);
            }
        }
        Err(QueryError::Protocol(format!(
            "{name} id={id}: k changed under {RMW_ATTEMPTS} read-modify-write attempts in a row"
        )))
    }

    /// `UPDATE sbtestT SET c=? WHERE id=?` with `c` sealed for (table, c, id)
    /// under encryption; true when a row changed.
    ///
    /// # Errors
    /// Server errors, or sealing failed.
    pub async fn non_index_update(
        &mut self,
        table: u32,
        id: u32,
        c: &[u8],
    ) -> Result<bool, QueryError> {
        let c = self.seal(table, Column::C, i64::from(id), c)?;
        let params = [self.stored(Column::C, &c), id.into()];
        self.dml(table, |t| t.non_index_update.as_ref(), &params)
            .await
    }

    /// `DELETE FROM sbtestT WHERE id=?`; true when a row was deleted.
    ///
    /// # Errors
    /// Server errors.
    pub async fn delete(&mut self, table: u32, id: u32) -> Result<bool, QueryError> {
        self.dml(table, |t| t.delete.as_ref(), &[id.into()]).await
    }

    /// `INSERT INTO sbtestT (id, k, c, pad) VALUES (?, ?, ?, ?)` with `c` and
    /// `pad` sealed under encryption; true when a row was inserted.
    ///
    /// # Errors
    /// Server errors (e.g. a duplicate id), or sealing failed.
    pub async fn insert(
        &mut self,
        table: u32,
        id: u32,
        k: u32,
        c: &[u8],
        pad: &[u8],
    ) -> Result<bool, QueryError> {
        let c = self.seal(table, Column::C, i64::from(id), c)?;
        let pad = self.seal(table, Column::Pad, i64::from(id), pad)?;
        let k_sealed = match self.codec.mode(Column::K) {
            ColumnMode::Plain => None,
            _ => Some(self.seal(table, Column::K, i64::from(id), &k_plaintext(i64::from(k)))?),
        };
        let k = k_sealed.as_deref().map_or(Param::from(k), Param::Binary);
        let params = [
            id.into(),
            k,
            self.stored(Column::C, &c),
            self.stored(Column::Pad, &pad),
        ];
        self.dml(table, |t| t.insert.as_ref(), &params).await
    }

    /// `oltp_insert`'s statement, over the text protocol as sysbench sends it:
    /// the server's id in plaintext with `--auto-inc on` (MySQL: id 0;
    /// PostgreSQL: no id column, [`crate::schema::Dialect::text_insert_sql`]), else a unique
    /// negative id; `c` and `pad` as quoted digits, or envelopes as binary
    /// literals. True when a row was inserted.
    ///
    /// # Errors
    /// Server errors, or sealing failed.
    pub async fn text_insert(
        &mut self,
        table: u32,
        k: u32,
        c: &[u8],
        pad: &[u8],
    ) -> Result<bool, QueryError> {
        let enc = self.codec.is_encrypted();
        let server_id = self.params.opts.auto_inc && !enc;
        let id = if server_id { 0 } else { unique_insert_id() };
        let c = self.seal(table, Column::C, id, c)?;
        let pad = self.seal(table, Column::Pad, id, pad)?;
        let k_sealed = match self.codec.mode(Column::K) {
            ColumnMode::Plain => None,
            _ => Some(self.seal(table, Column::K, id, &k_plaintext(i64::from(k)))?),
        };
        let k = k_sealed.as_deref().map_or(Param::from(k), Param::Binary);
        let params = [
            Param::Int(id),
            k,
            self.stored(Column::C, &c),
            self.stored(Column::Pad, &pad),
        ];
        let (sql, with_id) = self
            .dialect()
            .text_insert_sql(&table_name(table), server_id);
        let sent = if with_id { &params[..] } else { &params[1..] };
        Ok(self.conn.execute_text(&sql, sent).await? > 0)
    }
}
