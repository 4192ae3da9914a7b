//! The proxy capacity model: from ns per value to cores per workload.
//!
//! A workload's *mix* says how many values of which column a transaction opens
//! (the proxy decrypts them on the way to the client) and seals (on the way to
//! the server), and which result sets the proxy must sort itself (ORDER BY and
//! DISTINCT on a randomized column, which the server can no longer do). With
//! the measured single-thread ns per value of each column (key set up once,
//! envelope path, one value at a time) and ns per sorted result set
//! ([`crate::client_sort`]):
//!
//! ```text
//! decrypt_us_per_txn     = sum over columns of opens  x ns_per_value(open)  / 1000
//! seal_us_per_txn        = sum over columns of seals  x ns_per_value(seal)  / 1000
//! client_sort_us_per_txn = sum over sorted sets of sets x ns_per_set(rows, dedup) / 1000
//! txn_per_sec_per_core   = 1e6 / (decrypt_us_per_txn + seal_us_per_txn + client_sort_us_per_txn)
//! cores_for_target       = target_qps / queries_per_txn / txn_per_sec_per_core
//! ```
//!
//! What the model includes: the AEAD and envelope work per value and the
//! client-side sort and dedup. Counted with callgrind in a real `oltp` run
//! (`oltp/bench/callgrind-encryption`, oltp_read_only, ring AES-256-GCM),
//! these are 89% of the client instructions encryption adds per transaction
//! (80% the per-value open, 9% the sort); what it leaves out is the MySQL
//! driver's work on the longer rows (envelopes are 33 bytes longer, range
//! queries fetch `id` too: 6% of the added instructions) and a remainder of
//! allocation and glue (5%); also protocol re-encoding and connection handling
//! in a real proxy. It assumes one core decrypts at the single-thread rate
//! (the thread-scaling results show how far that holds on this machine).
//!
//! The built-in mixes follow sysbench 1.0's Lua scripts (`shared/spec/sysbench-oltp.md`):
//!
//! | workload | opens per transaction | seals | queries per transaction |
//! |---|---|---|---|
//! | `oltp_read_only` | `c`: 10 point selects + simple, order and distinct ranges of `range_size` rows each (310 at the default 100); the SUM range opens nothing | 0 | 16 (10 point, 4 range, BEGIN, COMMIT) |
//! | `oltp_read_write` | as read-only | `c`: 2 (non-index update, insert), `pad`: 1 (insert) | 20 (+ 4 writes) |
//! | `oltp_point_select` | `c`: 1 | 0 | 1 |
//!
//! QPS counts every statement, BEGIN and COMMIT included, as sysbench does: so
//! `oltp_read_only`'s TPS = QPS / 16.

use crate::error::{Result, invalid, invalid_err};
use serde::Serialize;

/// Point selects per `oltp_read_only` transaction (sysbench `--point-selects` default).
pub const POINT_SELECTS: u32 = 10;

/// Rows per range query (sysbench `--range-size` default).
pub const RANGE_SIZE: u32 = 100;

/// The seed report's (000) highest plaintext QPS: PolarDB Standard, oltp_read_only,
/// 256 threads, 16-core proxy.
pub const SEED_TARGET_QPS: f64 = 108_128.31;

/// What one transaction of a workload makes the proxy do.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mix {
    /// Workload name, e.g. `oltp_read_only`.
    pub name: String,
    /// Statements per transaction, BEGIN and COMMIT included (QPS / TPS).
    pub queries_per_txn: f64,
    /// Values opened per transaction, by column name.
    pub opens: Vec<(String, f64)>,
    /// Values sealed per transaction, by column name.
    pub seals: Vec<(String, f64)>,
    /// Result sets the proxy sorts itself per transaction.
    pub sorts: Vec<ClientSort>,
}

/// Result sets of one column the proxy sorts (and deduplicates) itself, per
/// transaction: sysbench's ORDER BY and DISTINCT ranges on an encrypted `c`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClientSort {
    /// Column whose plaintexts are sorted, e.g. `c`.
    pub column: String,
    /// Result sets per transaction.
    pub sets_per_txn: f64,
    /// Values per result set (`range_size`).
    pub rows: u32,
    /// Deduplicated after sorting (DISTINCT).
    pub dedup: bool,
}

impl Mix {
    /// The built-in mix `name` at `range_size` rows per range query, or `None`.
    pub fn builtin(name: &str, range_size: u32) -> Option<Mix> {
        let reads = f64::from(POINT_SELECTS + 3 * range_size);
        // One ORDER BY c and one DISTINCT c range per transaction.
        let ranges = vec![
            ClientSort {
                column: "c".to_string(),
                sets_per_txn: 1.0,
                rows: range_size,
                dedup: false,
            },
            ClientSort {
                column: "c".to_string(),
                sets_per_txn: 1.0,
                rows: range_size,
                dedup: true,
            },
        ];
        let mix = |queries: f64, opens: f64, seals: Vec<(&str, f64)>, sorts| Mix {
            name: name.to_string(),
            queries_per_txn: queries,
            opens: vec![("c".to_string(), opens)],
            seals: seals.into_iter().map(|(c, n)| (c.to_string(), n)).collect(),
            sorts,
        };
        match name {
            "oltp_read_only" => Some(mix(16.0, reads, vec![], ranges)),
            "oltp_read_write" => Some(mix(20.0, reads, vec![("c", 2.0), ("pad", 1.0)], ranges)),
            "oltp_point_select" => Some(mix(1.0, 1.0, vec![], vec![])),
            _ => None,
        }
    }

    /// Names of the built-in mixes.
    pub const BUILTIN: [&'static str; 3] =
        ["oltp_read_only", "oltp_read_write", "oltp_point_select"];

    /// Parses `--mix NAME;queries=Q;open=COL*N[,COL*N...][;seal=COL*N[,...]]`,
    /// e.g. `reports;queries=3;open=c*500,pad*500`.
    ///
    /// # Errors
    /// A malformed specification; the message shows the form.
    pub fn parse(text: &str) -> Result<Mix> {
        const FORM: &str = "expected NAME;queries=Q;open=COL*N[,COL*N];seal=COL*N (e.g. reports;queries=3;open=c*500)";
        let mut parts = text.split(';').map(str::trim);
        let name = parts.next().unwrap_or("");
        if name.is_empty() || name.contains('=') {
            invalid!("--mix {text:?}: no name first: {FORM}");
        }
        let mut mix = Mix {
            name: name.to_string(),
            queries_per_txn: 0.0,
            opens: vec![],
            seals: vec![],
            sorts: vec![],
        };
        for part in parts.filter(|p| !p.is_empty()) {
            let Some((key, value)) = part.split_once('=') else {
                invalid!("--mix {text:?}: {part:?} has no '=': {FORM}");
            };
            match key.trim() {
                "queries" => {
                    mix.queries_per_txn = value
                        .trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|q| q.is_finite() && *q > 0.0)
                        .ok_or_else(|| {
                            invalid_err!(
                                "--mix {text:?}: queries={value} is not a positive number: {FORM}"
                            )
                        })?;
                }
                "open" | "seal" => {
                    let mut list = Vec::new();
                    for item in value.split(',').map(str::trim).filter(|i| !i.is_empty()) {
                        let (col, n) = item.split_once('*').ok_or_else(|| {
                            invalid_err!("--mix {text:?}: {item:?} is not COL*N: {FORM}")
                        })?;
                        let n: f64 = n
                            .trim()
                            .parse()
                            .ok()
                            .filter(|n: &f64| n.is_finite() && *n >= 0.0)
                            .ok_or_else(|| {
                                invalid_err!(
                                    "--mix {text:?}: {item:?}: N must be a number >= 0: {FORM}"
                                )
                            })?;
                        list.push((col.trim().to_string(), n));
                    }
                    if key.trim() == "open" {
                        mix.opens = list;
                    } else {
                        mix.seals = list;
                    }
                }
                other => invalid!("--mix {text:?}: unknown key {other:?}: {FORM}"),
            }
        }
        if mix.queries_per_txn == 0.0 {
            invalid!("--mix {text:?}: queries=Q is missing: {FORM}");
        }
        if mix.opens.is_empty() && mix.seals.is_empty() {
            invalid!("--mix {text:?}: neither open= nor seal= given: {FORM}");
        }
        Ok(mix)
    }

    /// Every column the mix opens or seals.
    pub fn columns(&self) -> impl Iterator<Item = &str> {
        self.opens
            .iter()
            .chain(&self.seals)
            .filter(|(_, n)| *n > 0.0)
            .map(|(c, _)| c.as_str())
    }

    /// Whether the mix seals anything.
    pub fn seals_any(&self) -> bool {
        self.seals.iter().any(|(_, n)| *n > 0.0)
    }
}

/// One row of the capacity table: one workload on one backend and algorithm.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CapacityRow {
    /// Workload (mix) name.
    pub workload: String,
    /// Backend name.
    pub backend: String,
    /// Algorithm name.
    pub algorithm: String,
    /// Values opened per transaction.
    pub opens_per_txn: f64,
    /// Values sealed per transaction.
    pub seals_per_txn: f64,
    /// Decryption CPU per transaction on one core, µs.
    pub decrypt_us_per_txn: f64,
    /// Sealing CPU per transaction on one core, µs.
    pub seal_us_per_txn: f64,
    /// Client-side sort and dedup CPU per transaction on one core, µs.
    pub client_sort_us_per_txn: f64,
    /// Transactions per second one proxy core can decrypt, seal and sort.
    pub txn_per_sec_per_core: f64,
    /// Statements per transaction (QPS / TPS).
    pub queries_per_txn: f64,
    /// Queries per second one proxy core can serve (crypto and sort).
    pub qps_per_core: f64,
    /// The QPS target the next field is for.
    pub target_qps: f64,
    /// Proxy cores the crypto and the sort need at `target_qps`.
    pub cores_for_target: f64,
}

/// Evaluates `mix` with `ns(column, operation_is_seal)` = measured ns per
/// value and `sort_ns(sort)` = measured ns per sorted result set.
///
/// # Errors
/// A column of the mix has no measurement (the message names it).
pub fn evaluate(
    mix: &Mix,
    backend: &str,
    algorithm: &str,
    target_qps: f64,
    ns: impl Fn(&str, bool) -> Option<f64>,
    sort_ns: impl Fn(&ClientSort) -> Option<f64>,
) -> Result<CapacityRow> {
    let sum = |list: &[(String, f64)], seal: bool| -> Result<(f64, f64)> {
        let mut values = 0.0;
        let mut us = 0.0;
        for (col, n) in list.iter().filter(|(_, n)| *n > 0.0) {
            let Some(t) = ns(col, seal) else {
                invalid!(
                    "workload {} needs column {col:?} ({}), which was not measured: add it to --columns (e.g. {col}:119)",
                    mix.name,
                    if seal { "seal" } else { "open" }
                );
            };
            values += n;
            us += n * t / 1000.0;
        }
        Ok((values, us))
    };
    let (opens, decrypt_us) = sum(&mix.opens, false)?;
    let (seals, seal_us) = sum(&mix.seals, true)?;
    let mut sort_us = 0.0;
    for s in mix.sorts.iter().filter(|s| s.sets_per_txn > 0.0) {
        let Some(t) = sort_ns(s) else {
            invalid!(
                "workload {} sorts column {:?} in the client, whose plaintexts were not measured: add it to --columns (e.g. {}:119)",
                mix.name,
                s.column,
                s.column
            );
        };
        sort_us += s.sets_per_txn * t / 1000.0;
    }
    let total = decrypt_us + seal_us + sort_us;
    let tps = if total > 0.0 {
        1e6 / total
    } else {
        f64::INFINITY
    };
    Ok(CapacityRow {
        workload: mix.name.clone(),
        backend: backend.to_string(),
        algorithm: algorithm.to_string(),
        opens_per_txn: opens,
        seals_per_txn: seals,
        decrypt_us_per_txn: decrypt_us,
        seal_us_per_txn: seal_us,
        client_sort_us_per_txn: sort_us,
        txn_per_sec_per_core: tps,
        queries_per_txn: mix.queries_per_txn,
        qps_per_core: tps * mix.queries_per_txn,
        target_qps,
        cores_for_target: target_qps / mix.queries_per_txn / tps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_mix_is_sysbench_default() {
        let m = Mix::builtin("oltp_read_only", RANGE_SIZE).expect("builtin");
        assert_eq!(m.opens, vec![("c".to_string(), 310.0)]);
        // ORDER BY c and DISTINCT c ranges: sorted in the client, the second deduplicated.
        let sorts: Vec<(&str, f64, u32, bool)> = m
            .sorts
            .iter()
            .map(|s| (s.column.as_str(), s.sets_per_txn, s.rows, s.dedup))
            .collect();
        assert_eq!(sorts, vec![("c", 1.0, 100, false), ("c", 1.0, 100, true)]);
        assert_eq!(m.queries_per_txn, 16.0);
        assert!(!m.seals_any());
        let rw = Mix::builtin("oltp_read_write", 10).expect("builtin");
        assert_eq!(rw.opens[0].1, 40.0);
        assert!(rw.seals_any());
        assert!(Mix::builtin("tpcc", 100).is_none());
    }

    #[test]
    fn model_arithmetic() {
        let m = Mix::builtin("oltp_read_only", RANGE_SIZE).expect("builtin");
        // 100 ns per c value: 31 us per txn; sorting 100 values 4 us, with
        // dedup 5 us: 40 us per txn, 25,000 TPS per core.
        let sort = |s: &ClientSort| {
            (s.column == "c" && s.rows == 100).then_some(if s.dedup { 5000.0 } else { 4000.0 })
        };
        let row = evaluate(
            &m,
            "b",
            "a",
            SEED_TARGET_QPS,
            |c, _| (c == "c").then_some(100.0),
            sort,
        )
        .expect("evaluate");
        assert!((row.decrypt_us_per_txn - 31.0).abs() < 1e-9);
        assert!((row.client_sort_us_per_txn - 9.0).abs() < 1e-9);
        assert!((row.txn_per_sec_per_core - 1e6 / 40.0).abs() < 1e-6);
        assert!((row.qps_per_core - 16e6 / 40.0).abs() < 1e-6);
        let cores = SEED_TARGET_QPS / 16.0 * 40.0 / 1e6;
        assert!((row.cores_for_target - cores).abs() < 1e-9);
        let rw = Mix::builtin("oltp_read_write", RANGE_SIZE).expect("builtin");
        let e = evaluate(&rw, "b", "a", 1.0, |c, _| (c == "c").then_some(100.0), sort)
            .expect_err("pad missing");
        assert!(e.to_string().contains("\"pad\""), "{e}");
        let e = evaluate(&m, "b", "a", 1.0, |_, _| Some(100.0), |_| None)
            .expect_err("sort not measured");
        assert!(e.to_string().contains("sorts column \"c\""), "{e}");
        // Point selects sort nothing.
        let ps = Mix::builtin("oltp_point_select", RANGE_SIZE).expect("builtin");
        let row = evaluate(&ps, "b", "a", 1.0, |_, _| Some(100.0), |_| None).expect("no sort");
        assert_eq!(row.client_sort_us_per_txn, 0.0);
    }

    #[test]
    fn custom_mix_parses_and_rejects_garbage() {
        let m = Mix::parse("reports;queries=3;open=c*500,pad*2;seal=c*1").expect("valid");
        assert_eq!(m.name, "reports");
        assert_eq!(m.queries_per_txn, 3.0);
        assert_eq!(m.opens.len(), 2);
        assert_eq!(m.seals, vec![("c".to_string(), 1.0)]);
        for bad in [
            "",
            "x",
            "x;open=c*1",
            "x;queries=0;open=c*1",
            "x;queries=2;open=c",
            "x;queries=2;open=c*-1",
            "x;queries=2;nope=1",
            "queries=2;open=c*1",
        ] {
            let e = Mix::parse(bad).expect_err(bad).to_string();
            assert!(
                e.contains("--mix") && e.contains("NAME;queries"),
                "{bad}: {e}"
            );
        }
    }
}
