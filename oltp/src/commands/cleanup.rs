//! `oltp cleanup`: drop the databases `prepare` created.

use anyhow::Result;

use crate::cli::CleanupArgs;
use crate::config::{data_set, parse_encrypts, tls_options};
use crate::schema;

/// Runs `oltp cleanup` against `url`.
///
/// # Errors
/// The server refuses the DROP.
pub async fn cleanup(a: &CleanupArgs, url: &str) -> Result<()> {
    let mut data = data_set(&a.data)?;
    data.tls = tls_options(&a.data, a.tls)?;
    let dbs = if a.encrypt.iter().any(|e| e.eq_ignore_ascii_case("all")) {
        schema::cleanup_all(url, &data).await?
    } else {
        schema::cleanup(url, &data, &parse_encrypts(&a.encrypt, data.columns)?).await?
    };
    if dbs.is_empty() {
        println!("nothing to drop: no tables of oltp's (sbtest*, pgbench_*) found");
    } else {
        println!(
            "dropped oltp's tables (sbtest*, pgbench_*) of {}",
            dbs.join(", ")
        );
    }
    Ok(())
}
