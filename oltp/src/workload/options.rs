//! sysbench's OLTP options (`oltp_common.lua`) and one worker's parameters.

use crate::driver::PsMode;

/// One value of `--tls`: `off`, or TLS at a [`TlsMode`](crate::driver::TlsMode)
/// (`on` is `verify-identity`).
///
/// # Errors
/// Any other word, with the words allowed.
pub fn parse_tls(s: &str) -> Result<Option<crate::driver::TlsMode>, String> {
    use crate::driver::TlsMode;
    match s.to_ascii_lowercase().as_str() {
        "off" | "false" | "no" | "0" => Ok(None),
        "on" | "true" | "yes" | "1" | "verify-identity" => Ok(Some(TlsMode::VerifyIdentity)),
        "verify-ca" => Ok(Some(TlsMode::VerifyCa)),
        "required" => Ok(Some(TlsMode::Required)),
        _ => Err(format!(
            "{s:?}: use off, on (= verify-identity), verify-ca or required"
        )),
    }
}

/// pgbench's resolution of `-L`: it keeps the limit in whole microseconds
/// (`latency_limit = (int64) (limit_ms * 1000)`), so a limit below 1 µs
/// would be 0, which pgbench takes as no limit at all.
pub const LATENCY_LIMIT_RESOLUTION: std::time::Duration = std::time::Duration::from_micros(1);

/// One value of `--latency-limit` (pgbench's `-L`): milliseconds above 0,
/// kept in whole microseconds as pgbench 15 keeps it (truncated).
///
/// # Errors
/// Not a number, 0 or less (pgbench's `invalid latency limit: "0"`), or
/// below 0.001 ms, which pgbench would silently turn into no limit.
pub fn parse_latency_limit(s: &str) -> Result<std::time::Duration, String> {
    let invalid =
        || format!("invalid latency limit: {s:?}: give milliseconds above 0, e.g. 10 or 0.5");
    let ms: f64 = s.trim().parse().map_err(|_| invalid())?;
    if !(ms.is_finite() && ms > 0.0) {
        return Err(invalid());
    }
    // As pgbench: (int64) (limit_ms * 1000), truncated (saturating).
    let us = (ms * 1000.0) as u64;
    if us < LATENCY_LIMIT_RESOLUTION.as_micros() as u64 {
        return Err(format!(
            "invalid latency limit: {s:?}: below pgbench's resolution of 0.001 ms (1 us), where pgbench would have no limit at all: give 0.001 or more"
        ));
    }
    Ok(std::time::Duration::from_micros(us))
}

/// Parses sysbench's boolean option values: on/off, true/false, yes/no, 1/0.
///
/// # Errors
/// Any other word.
pub fn parse_on_off(s: &str) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(format!("{s:?}: use on or off")),
    }
}

/// sysbench's OLTP options (`oltp_common.lua`), with its defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Options {
    /// Rows per range query (ids [x, x+range-size-1], not clamped to the table).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub range_size: u32,
    /// Point selects per transaction.
    #[arg(long, default_value_t = 10)]
    pub point_selects: u32,
    /// Simple range selects per transaction.
    #[arg(long, default_value_t = 1)]
    pub simple_ranges: u32,
    /// SELECT SUM() ranges per transaction.
    #[arg(long, default_value_t = 1)]
    pub sum_ranges: u32,
    /// SELECT ... ORDER BY ranges per transaction.
    #[arg(long, default_value_t = 1)]
    pub order_ranges: u32,
    /// SELECT DISTINCT ranges per transaction.
    #[arg(long, default_value_t = 1)]
    pub distinct_ranges: u32,
    /// Index updates (k=k+1) per transaction.
    #[arg(long, default_value_t = 1)]
    pub index_updates: u32,
    /// Non-index updates (new c) per transaction.
    #[arg(long, default_value_t = 1)]
    pub non_index_updates: u32,
    /// DELETE + INSERT pairs per transaction.
    #[arg(long, default_value_t = 1)]
    pub delete_inserts: u32,
    /// Range selects on or off (off: none of the four range kinds is prepared or run).
    #[arg(long, default_value = "on", value_name = "on|off", num_args = 0..=1,
          default_missing_value = "on", value_parser = parse_on_off)]
    pub range_selects: bool,
    /// No BEGIN/COMMIT: every statement in autocommit mode.
    #[arg(long, default_value = "off", value_name = "on|off", num_args = 0..=1,
          default_missing_value = "on", value_parser = parse_on_off)]
    pub skip_trx: bool,
    /// AUTO_INCREMENT id (oltp_insert sends id 0 and the server picks it); off:
    /// oltp_insert sends a unique client-made id.
    #[arg(long, default_value = "on", value_name = "on|off", num_args = 0..=1,
          default_missing_value = "on", value_parser = parse_on_off)]
    pub auto_inc: bool,
    /// Values in select_random_points' IN (...) (sysbench's --random-points).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    #[serde(default)]
    pub random_points: u32,
    /// sysbench's `--db-ps-mode`: auto (server-side prepared statements) or
    /// disable (the text protocol, values inlined in the SQL; needs no
    /// max_prepared_stmt_count).
    #[arg(long, default_value = "auto", value_name = "auto|disable",
          value_parser = crate::driver::parse_ps_mode)]
    #[serde(default)]
    pub db_ps_mode: PsMode,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            range_size: 100,
            point_selects: 10,
            simple_ranges: 1,
            sum_ranges: 1,
            order_ranges: 1,
            distinct_ranges: 1,
            index_updates: 1,
            non_index_updates: 1,
            delete_inserts: 1,
            range_selects: true,
            skip_trx: false,
            auto_inc: true,
            random_points: 10,
            db_ps_mode: PsMode::Auto,
        }
    }
}

impl Options {
    /// The flags of the options set to other than sysbench's defaults
    /// ([`Options::default`]), in `--help` order, `--db-ps-mode` left out (it
    /// applies to every workload): what a pgbench workload, whose scripts do
    /// not read them, refuses.
    pub fn sysbench_flags_changed(&self) -> Vec<&'static str> {
        let d = Options::default();
        [
            (self.range_size != d.range_size, "--range-size"),
            (self.point_selects != d.point_selects, "--point-selects"),
            (self.simple_ranges != d.simple_ranges, "--simple-ranges"),
            (self.sum_ranges != d.sum_ranges, "--sum-ranges"),
            (self.order_ranges != d.order_ranges, "--order-ranges"),
            (
                self.distinct_ranges != d.distinct_ranges,
                "--distinct-ranges",
            ),
            (self.index_updates != d.index_updates, "--index-updates"),
            (
                self.non_index_updates != d.non_index_updates,
                "--non-index-updates",
            ),
            (self.delete_inserts != d.delete_inserts, "--delete-inserts"),
            (self.range_selects != d.range_selects, "--range-selects"),
            (self.skip_trx != d.skip_trx, "--skip-trx"),
            (self.auto_inc != d.auto_inc, "--auto-inc"),
            (self.random_points != d.random_points, "--random-points"),
        ]
        .into_iter()
        .filter_map(|(changed, flag)| changed.then_some(flag))
        .collect()
    }
}

/// Workload parameters: the data set's shape and sysbench's options.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Params {
    /// Tables (`--tables`).
    pub tables: u32,
    /// Rows per table (`--table-size`); ids are drawn from 1..=table_size.
    pub table_size: u32,
    /// sysbench's options.
    pub opts: Options,
    /// This worker's index, 0-based (sysbench's `thread_id`).
    pub thread: u32,
    /// Workers in the run (sysbench's `--threads`).
    pub threads: u32,
    /// pgbench's scaling factor (`-s`): the pgbench workloads draw aid from
    /// 1..=100,000 x scale (1 for sysbench's workloads, which ignore it).
    pub scale: u32,
}

impl Params {
    /// `tables` x `table_size` with sysbench's default options, for worker 0 of 1.
    pub fn new(tables: u32, table_size: u32) -> Params {
        Params {
            tables,
            table_size,
            opts: Options::default(),
            thread: 0,
            threads: 1,
            scale: 1,
        }
    }

    /// `select_random_points`' slice of k values for this worker, as sysbench's
    /// Lua computes it: `rlen = table_size / threads` (a floating-point
    /// division in Lua), `rmin = rlen * thread_id`, `rmax = rmin + rlen`, both
    /// truncated to integers where they are passed to `sb_rand`.
    pub fn random_points_range(&self) -> (u32, u32) {
        let rlen = f64::from(self.table_size) / f64::from(self.threads.max(1));
        let rmin = rlen * f64::from(self.thread);
        // Truncation, as the Lua-to-C call does; the values are in u32 range.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let (lo, hi) = (rmin as u32, (rmin + rlen) as u32);
        (lo, hi)
    }
}
