//! After `oltp prepare` with an `--at-rest` mode: the plaintext search of the host's disk
//! ([`crate::at_rest::verify_after_prepare`] for a filesystem mode's backing store;
//! [`crate::at_rest::verify_in`] for `innodb` and its control `off`, of the private
//! MariaDB's data directory once `sbtest1`'s pages are flushed), said on stderr.

use anyhow::{Context as _, Result};

use crate::at_rest::{AtRest, Store, verify_after_prepare, verify_in};
use crate::cli::{DbDriver, PrepareArgs};
use crate::columns::Encrypt;
use crate::config::{data_set, engine_dir, parse_encrypts, server_base_dir};
use crate::driver::{Connection, TlsOptions, with_driver};
use crate::schema::connect;
use crate::schema::plaintext_canary;
use crate::server::Layout;

/// Searches the host's disk for row 1's `c` of the plaintext `sbtest1`: a filesystem
/// mode's backing store; with `innodb`, and with `off` when `off_as_control` (the
/// `--at-rest` list holds `innodb` too: `off` is its control), the private MariaDB's data directory at `url` after
/// `flush_for_search`. Nothing for other modes or a server given by URL, and a note for
/// pgbench's tables or when no plaintext tables were prepared (nothing known to search for).
///
/// # Errors
/// An encrypting mode's store holds the value, a control's does not, the flush or the
/// search fails.
pub async fn verify(a: &PrepareArgs, url: &str, off_as_control: bool) -> Result<()> {
    let mode = a.data.at_rest_mode();
    let engine_search = match mode {
        AtRest::Innodb => true,
        AtRest::Off => off_as_control && a.data.db_driver == DbDriver::Mysql,
        _ => false,
    };
    if !(mode.is_filesystem() || engine_search) || a.data.url().is_some() {
        return Ok(());
    }
    if a.workload.is_pgbench() {
        eprintln!(
            "note: --at-rest {}: pgbench's tables hold no value known in advance (blank fillers, zero balances), so the host's disk was not searched for plaintext",
            mode.name()
        );
        return Ok(());
    }
    let mut data = data_set(&a.data)?;
    data.tls = crate::config::tls_options(&a.data, a.tls)?;
    let encrypts = parse_encrypts(&a.encrypt, data.columns)?;
    if !encrypts.iter().any(|e| matches!(e, Encrypt::None)) {
        eprintln!(
            "note: --at-rest {}: no plaintext tables prepared (add none to --encrypt), so the host's disk was not searched for plaintext",
            mode.name()
        );
        return Ok(());
    }
    let engine = engine_dir(&a.data);
    let store = Store::new(&engine, mode);
    let canary = plaintext_canary(a.seed, data.table_size);
    let what = format!("{}.sbtest1 row 1 c (seed {})", data.db, a.seed);
    let v = if engine_search {
        flush_for_search(url, data.tls.as_ref(), &data.database(Encrypt::None)).await?;
        let layout = Layout::new(server_base_dir(&a.data));
        verify_in(&store, layout.data(), &canary, &what)?
    } else {
        verify_after_prepare(&store, &canary, &what)?
    };
    eprintln!(
        "--at-rest {}: searched {} for {what}: {}",
        mode.name(),
        v.searched.display(),
        match &v.found_in {
            None => "absent, no plaintext on the host's disk".to_string(),
            Some(p) => format!("found in {} (a control stores plaintext)", p.display()),
        }
    );
    Ok(())
}

/// Makes InnoDB write `db.sbtest1`'s pages to its `.ibd` file (connecting with `tls`): `FLUSH TABLES sbtest1 FOR
/// EXPORT` (which flushes the table's dirty pages and stops purge on it until `UNLOCK
/// TABLES`), then `UNLOCK TABLES`. The redo log needs no flush: a commit has written it
/// (with the profile's `innodb_flush_log_at_trx_commit` at 0 or 2, within a second, to
/// the page cache, which the search reads). Why the flush is needed: docs/encryption-at-rest.md,
/// "Measure encryption at rest".
///
/// # Errors
/// The server cannot be reached or refuses the statements.
async fn flush_for_search(url: &str, tls: Option<&TlsOptions>, db: &str) -> Result<()> {
    with_driver!(DbDriver::of_url(url), C => flush_for_search_with::<C>(url, tls, db).await)
}

/// [`flush_for_search`] over driver `C`.
async fn flush_for_search_with<C: Connection>(
    url: &str,
    tls: Option<&TlsOptions>,
    db: &str,
) -> Result<()> {
    let mut conn: C = connect(url, tls, Some(db)).await?;
    conn.simple("FLUSH TABLES sbtest1 FOR EXPORT")
        .await
        .with_context(|| {
            format!("cannot flush {db}.sbtest1 before searching the data directory for plaintext")
        })?;
    conn.simple("UNLOCK TABLES").await?;
    conn.close().await;
    Ok(())
}
