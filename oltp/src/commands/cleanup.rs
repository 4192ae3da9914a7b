//! `oltp cleanup`: drop the databases `prepare` created.

use anyhow::Result;

use crate::cli::CleanupArgs;
use crate::config::{data_set, parse_encrypts};
use crate::schema;

/// Runs `oltp cleanup` against `url`.
///
/// # Errors
/// The server refuses the DROP.
pub async fn cleanup(a: &CleanupArgs, url: &str) -> Result<()> {
    let data = data_set(&a.data)?;
    let dbs = if a.encrypt.iter().any(|e| e.eq_ignore_ascii_case("all")) {
        schema::cleanup_all(url, &data).await?
    } else {
        schema::cleanup(url, &data, &parse_encrypts(&a.encrypt, data.columns)?).await?
    };
    if dbs.is_empty() {
        println!("nothing to drop: no sbtest database found");
    } else {
        println!("dropped the sbtest tables of {}", dbs.join(", "));
    }
    Ok(())
}
