//! The read statements of sysbench's OLTP scripts, with what a decrypting
//! proxy does to each: values opened with the AAD of (table, column, id),
//! ORDER BY / DISTINCT done after decryption, SUM(k) of an encrypted `k` added
//! up in the client, `IN (...)` probes sealed deterministically.

use crate::columns::{Column, ColumnMode, k_from_plaintext, k_plaintext};
use crate::driver::{Connection, Param, Row};

use super::session::{null_value, open, stmt};
use super::{PointRow, QueryError, RangeKind, Session};

impl<C: Connection> Session<C> {
    /// `SELECT c FROM sbtestT WHERE id=?`; returns the plaintext `c` values (0 or 1).
    ///
    /// # Errors
    /// Server errors, or a value that does not open.
    pub async fn point_select(&mut self, table: u32, id: u32) -> Result<&[Vec<u8>], QueryError> {
        self.rows.clear();
        let (name, st) = stmt(&self.tables, self.workload, table, |t| t.point.as_ref())?;
        let rows = &mut self.rows;
        let enc = self.codec.mode(Column::C) != ColumnMode::Plain;
        let mut null = false;
        self.conn
            .query(st, &[id.into()], |row: &mut C::Row| {
                match row.take_bytes(0) {
                    Some(v) => rows.push(v),
                    None => null |= enc,
                }
            })
            .await?;
        if null {
            return Err(null_value(name, Column::C, i64::from(id)));
        }
        for v in &mut self.rows {
            open(&self.codec, name, Column::C, i64::from(id), v)?;
        }
        Ok(&self.rows)
    }

    /// A range query over ids `[lo, hi]`; returns the plaintext `c` values in the
    /// order (and with the deduplication) the plaintext query gives.
    ///
    /// # Errors
    /// Server errors, or a value that does not open.
    pub async fn range(
        &mut self,
        kind: RangeKind,
        table: u32,
        lo: u32,
        hi: u32,
    ) -> Result<&[Vec<u8>], QueryError> {
        self.rows.clear();
        let enc = self.codec.mode(Column::C) != ColumnMode::Plain;
        let (name, st) = stmt(&self.tables, self.workload, table, |t| {
            t.ranges.as_ref().map(|r| match kind {
                RangeKind::Simple => &r.simple,
                RangeKind::Order => &r.order,
                RangeKind::Distinct => &r.distinct,
            })
        })?;
        let rows = &mut self.rows;
        let codec = &self.codec;
        let mut failure = None;
        self.conn
            .query(st, &[lo.into(), hi.into()], |row: &mut C::Row| {
                if failure.is_some() {
                    return;
                }
                if enc {
                    match (row.int(0), row.take_bytes(1)) {
                        (Some(id), Some(mut v)) => match open(codec, name, Column::C, id, &mut v) {
                            Ok(()) => rows.push(v),
                            Err(e) => failure = Some(e),
                        },
                        (Some(id), None) => failure = Some(null_value(name, Column::C, id)),
                        (None, _) => {}
                    }
                } else if let Some(v) = row.take_bytes(0) {
                    rows.push(v);
                }
            })
            .await?;
        if let Some(e) = failure {
            return Err(e);
        }
        if enc {
            match kind {
                RangeKind::Simple => {}
                RangeKind::Order => self.rows.sort_unstable(),
                RangeKind::Distinct => {
                    self.rows.sort_unstable();
                    self.rows.dedup();
                }
            }
        }
        Ok(&self.rows)
    }

    /// `SELECT SUM(k) FROM sbtestT WHERE id BETWEEN lo AND hi`; `None` when no row matched.
    ///
    /// # Errors
    /// Server errors.
    pub async fn sum_range(
        &mut self,
        table: u32,
        lo: u32,
        hi: u32,
    ) -> Result<Option<i64>, QueryError> {
        let (name, st) = stmt(&self.tables, self.workload, table, |t| {
            t.ranges.as_ref().map(|r| &r.sum)
        })?;
        let params = [lo.into(), hi.into()];
        if self.codec.mode(Column::K) != ColumnMode::Plain {
            // The proxy's SUM: every k in the range, opened and added up.
            let mut rows: Vec<(Option<i64>, Option<Vec<u8>>)> = Vec::new();
            self.conn
                .query(st, &params, |row: &mut C::Row| {
                    rows.push((row.int(0), row.take_bytes(1)));
                })
                .await?;
            let mut sum: Option<i64> = None;
            for row in rows {
                let (id, mut k) = match row {
                    (Some(id), Some(k)) => (id, k),
                    (Some(id), None) => return Err(null_value(name, Column::K, id)),
                    (None, _) => {
                        return Err(QueryError::Protocol(format!("{name}: a row without id")));
                    }
                };
                open(&self.codec, name, Column::K, id, &mut k)?;
                let k = k_from_plaintext(&k)
                    .map_err(|e| QueryError::Protocol(format!("{name} id={id}: {e}")))?;
                sum = Some(sum.unwrap_or(0) + k);
            }
            return Ok(sum);
        }
        // SUM() is a DECIMAL: its digits, or NULL when no row matched.
        let mut sum: Option<Result<i64, String>> = None;
        self.conn
            .query(st, &params, |row: &mut C::Row| {
                if sum.is_none() {
                    sum = row.bytes(0).map(|b| {
                        let s = String::from_utf8_lossy(b);
                        s.parse::<i64>()
                            .map_err(|_| format!("SUM(k) returned {s:?}"))
                    });
                }
            })
            .await?;
        sum.transpose().map_err(QueryError::Protocol)
    }

    /// `select_random_points`' query on `sbtest1`: `SELECT id, k, c, pad FROM
    /// sbtest1 WHERE k IN (ks...)`; under encryption the probe values are
    /// sealed deterministically and the rows opened. Returns the rows as
    /// `(id, k, c, pad)` plaintext, in the server's order (index order of the
    /// stored `k`: not the plaintext order when `k` is encrypted).
    ///
    /// # Errors
    /// Server errors; `ks.len()` differs from `--random-points`; `k` is
    /// encrypted but not deterministically; a value does not open.
    pub async fn random_points(&mut self, ks: &[u32]) -> Result<Vec<PointRow>, QueryError> {
        let (name, st) = stmt(&self.tables, self.workload, 1, |t| t.random_points.as_ref())?;
        if ks.len() != self.params.opts.random_points as usize {
            return Err(QueryError::Protocol(format!(
                "{} probe values for --random-points {}",
                ks.len(),
                self.params.opts.random_points
            )));
        }
        let k_mode = self.codec.mode(Column::K);
        let sealed: Vec<Vec<u8>> = match k_mode {
            ColumnMode::Plain => Vec::new(),
            ColumnMode::Deterministic => {
                let mut v = Vec::with_capacity(ks.len());
                for &k in ks {
                    let mut out = Vec::new();
                    self.codec
                        .seal(name, Column::K, 0, &k_plaintext(i64::from(k)), &mut out)
                        .map_err(|source| QueryError::Seal {
                            table: name.to_string(),
                            column: Column::K,
                            id: 0,
                            source,
                        })?;
                    v.push(out);
                }
                v
            }
            ColumnMode::Randomized => {
                return Err(QueryError::Protocol(
                    "k is encrypted with random nonces: IN (...) on it cannot match; use --deterministic k".into(),
                ));
            }
        };
        let params: Vec<Param<'_>> = if k_mode == ColumnMode::Plain {
            ks.iter().map(|&k| Param::from(k)).collect()
        } else {
            sealed.iter().map(|v| Param::Binary(v)).collect()
        };
        // (id, k as an integer when plaintext, else its stored bytes, c, pad)
        type Fetched = (
            Option<i64>,
            Option<i64>,
            Option<Vec<u8>>,
            Option<Vec<u8>>,
            Option<Vec<u8>>,
        );
        let mut rows: Vec<Fetched> = Vec::new();
        self.conn
            .query(st, &params, |row: &mut C::Row| {
                let id = row.int(0);
                let (k_int, k_bytes) = if k_mode == ColumnMode::Plain {
                    (row.int(1), None)
                } else {
                    (None, row.take_bytes(1))
                };
                rows.push((id, k_int, k_bytes, row.take_bytes(2), row.take_bytes(3)));
            })
            .await?;
        let mut out = Vec::with_capacity(rows.len());
        for (id, k_int, k_bytes, c, pad) in rows {
            if let Some(id) = id {
                for (column, v) in [(Column::C, &c), (Column::Pad, &pad)] {
                    if v.is_none() && self.codec.mode(column) != ColumnMode::Plain {
                        return Err(null_value(name, column, id));
                    }
                }
                if k_mode != ColumnMode::Plain && k_bytes.is_none() {
                    return Err(null_value(name, Column::K, id));
                }
            }
            let (Some(id), Some(mut c), Some(mut pad)) = (id, c, pad) else {
                return Err(QueryError::Protocol(format!(
                    "{name}: a row of select_random_points lacks id, k, c or pad"
                )));
            };
            let k = match (k_int, k_bytes) {
                (Some(k), _) => k,
                (None, Some(mut k)) => {
                    open(&self.codec, name, Column::K, id, &mut k)?;
                    k_from_plaintext(&k)
                        .map_err(|e| QueryError::Protocol(format!("{name} id={id}: {e}")))?
                }
                (None, None) => {
                    return Err(QueryError::Protocol(format!(
                        "{name} id={id}: k is not a number"
                    )));
                }
            };
            open(&self.codec, name, Column::C, id, &mut c)?;
            open(&self.codec, name, Column::Pad, id, &mut pad)?;
            out.push(PointRow { id, k, c, pad });
        }
        Ok(out)
    }
}
