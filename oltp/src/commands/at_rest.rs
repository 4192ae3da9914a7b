//! After `oltp prepare` with a filesystem `--at-rest` mode: the plaintext search of the
//! host's disk ([`crate::at_rest::verify_after_prepare`]), said on stderr.

use anyhow::Result;

use crate::at_rest::{Store, plaintext_canary, verify_after_prepare};
use crate::cli::PrepareArgs;
use crate::columns::Encrypt;
use crate::config::{data_set, engine_dir, parse_encrypts};

/// Searches the backing store of the private server's filesystem mode for row 1's `c` of
/// the plaintext `sbtest1`; nothing for other modes or a server given by URL, and a note
/// when no plaintext tables were prepared (nothing known to search for).
///
/// # Errors
/// An encrypting mode's store holds the value, a control's does not, or the search fails.
pub fn verify(a: &PrepareArgs) -> Result<()> {
    let mode = a.data.at_rest_mode();
    if !mode.is_filesystem() || a.data.url().is_some() {
        return Ok(());
    }
    if a.workload.is_pgbench() {
        eprintln!(
            "note: --at-rest {}: pgbench's tables hold no value known in advance (blank fillers, zero balances), so the host's disk was not searched for plaintext",
            mode.name()
        );
        return Ok(());
    }
    let data = data_set(&a.data)?;
    let encrypts = parse_encrypts(&a.encrypt, data.columns)?;
    if !encrypts.iter().any(|e| matches!(e, Encrypt::None)) {
        eprintln!(
            "note: --at-rest {}: no plaintext tables prepared (add none to --encrypt), so the host's disk was not searched for plaintext",
            mode.name()
        );
        return Ok(());
    }
    let store = Store::new(&engine_dir(&a.data), mode);
    let canary = plaintext_canary(a.seed, data.table_size);
    let what = format!("{}.sbtest1 row 1 c (seed {})", data.db, a.seed);
    let v = verify_after_prepare(&store, &canary, &what)?;
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
