//! The data sets of a plan: whether each is prepared and verifies (reused)
//! or must be loaded, in words, and whether the ones to load fit the disk.

use std::path::Path;

use anyhow::Result;

use crate::plan::{DataSetStep, Plan};
use crate::resources;
use encbench_oltp::at_rest::AtRest;
use encbench_oltp::cli::{PrepareArgs, RunArgs};
use encbench_oltp::columns::Encrypt;
use encbench_oltp::config::{data_set, parse_encrypts};
use encbench_oltp::driver::{Connection, DbDriver, with_driver};
use encbench_oltp::schema;
use encbench_oltp::schema::pgbench;

/// The databases `oltp run` with `ra` reads: one per `--encrypt` choice's
/// algorithm, in its order.
///
/// # Errors
/// A database name or `--encrypt` choice `oltp run` would refuse.
pub(super) fn databases_read(ra: &RunArgs) -> Result<Vec<String>> {
    let data = data_set(&ra.data)?;
    let mut dbs: Vec<String> = Vec::new();
    for e in parse_encrypts(&ra.encrypt, data.columns)? {
        let db = data.database(e);
        if !dbs.contains(&db) {
            dbs.push(db);
        }
    }
    Ok(dbs)
}

/// Whether the data sets `missing` (none: nothing to check) fit the disk of
/// `base`; `what` names them in the error, `quick` (a `--quick` run) leaves
/// `--quick` out of the fix.
///
/// # Errors
/// They would not fit (how much they need and how much is free), or the
/// free space cannot be read.
pub(super) fn check_missing_fit(
    plan: &Plan,
    quick: bool,
    missing: &[&DataSetStep],
    base: &Path,
    what: &str,
) -> Result<()> {
    if missing.is_empty() {
        return Ok(());
    }
    let free = resources::disk_free(base)?;
    encbench_oltp::space::check_disk(
        plan.disk_bytes(missing),
        free,
        &base.display().to_string(),
        what,
        resources::disk_fix(quick),
    )
}

/// A data set in words: database, at-rest mode, scale.
pub(super) fn step_name(plan: &Plan, pa: &PrepareArgs) -> String {
    if plan.db.is_empty() {
        format!(
            "{} at rest {} (pgbench scale {})",
            pa.data.pgsql_db.as_deref().unwrap_or(""),
            pa.data.at_rest_mode().name(),
            pa.scale.unwrap_or(1)
        )
    } else {
        let db = data_set_of(pa).map_or_else(|_| plan.db.clone(), |(d, e)| d.database(e));
        let at_rest = match pa.data.at_rest_mode() {
            AtRest::Off => String::new(),
            m => format!(", at rest {}", m.name()),
        };
        format!(
            "{db} ({} x {} rows{at_rest})",
            encbench_oltp::report::count(u64::from(plan.scale.tables), "table", "tables"),
            plan.scale.table_size
        )
    }
}

/// Whether pgbench's tables of `pa` are prepared, finished, of its scale:
/// `Ok(db)` to reuse them, `Err(why)` to (re)load them.
pub(super) async fn verify_pgbench(
    url: &str,
    pa: &PrepareArgs,
) -> Result<std::result::Result<String, String>> {
    with_driver!(DbDriver::of_url(url), C => verify_pgbench_with::<C>(url, pa).await)
}

/// [`verify_pgbench`] over driver `C`.
async fn verify_pgbench_with<C: Connection>(
    url: &str,
    pa: &PrepareArgs,
) -> Result<std::result::Result<String, String>> {
    let data = data_set(&pa.data)?;
    let db = data.database(encbench_oltp::columns::Encrypt::None);
    let mut admin: C = schema::connect(url, None, None).await?;
    let got = pgbench::check_prepared(
        &mut admin,
        url,
        pa.workload.name(),
        &data,
        &db,
        encbench_oltp::columns::Encrypt::None,
        pgbench::Fillers::Accounts,
        pa.scale,
    )
    .await;
    admin.close().await;
    Ok(match got {
        Ok((_, conn)) => {
            conn.close().await;
            Ok(db)
        }
        Err(why) => Err(found(&why)),
    })
}

/// The data set of a sysbench-table prepare step and its one `--encrypt`
/// choice (a step prepares one database).
///
/// # Errors
/// A database name or `--encrypt` choice `oltp prepare` would refuse.
pub(super) fn data_set_of(pa: &PrepareArgs) -> Result<(encbench_oltp::schema::DataSet, Encrypt)> {
    let data = data_set(&pa.data)?;
    let e = parse_encrypts(&pa.encrypt, data.columns)?[0];
    Ok((data, e))
}

/// Whether the data set of `pa` is prepared and verifies: `Ok(db)` to
/// reuse it, `Err(why)` to (re)load it.
pub(super) async fn verify(
    url: &str,
    pa: &PrepareArgs,
) -> Result<std::result::Result<String, String>> {
    with_driver!(DbDriver::of_url(url), C => verify_with::<C>(url, pa).await)
}

/// [`verify`] over driver `C`.
async fn verify_with<C: Connection>(
    url: &str,
    pa: &PrepareArgs,
) -> Result<std::result::Result<String, String>> {
    let (data, e) = data_set_of(pa)?;
    let mut admin: C = schema::connect(url, None, None).await?;
    let got = schema::check_prepared(C::DRIVER.dialect(), &mut admin, url, &data, e).await;
    admin.close().await;
    Ok(match got {
        Ok((_, conn)) => {
            conn.close().await;
            Ok(data.database(e))
        }
        Err(why) => Err(found(&why)),
    })
}

/// What a failed check of a data set found: a data set that is not prepared
/// as asked gives what was found without the fix it names for a user (`run
/// \`oltp prepare ...\``, `use --tables N`), since reproduce prepares the data
/// set itself ([`schema::NotPrepared::what`]); any other error whole.
fn found(why: &anyhow::Error) -> String {
    match why.downcast_ref::<schema::NotPrepared>() {
        Some(not_prepared) => not_prepared.what.clone(),
        None => format!("{why:#}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_data_set_to_prepare_is_named_without_the_users_fix() {
        // New-user finding: reproduce printed "run `oltp prepare ...` first" while it
        // prepares by itself.
        let e = anyhow::Error::from(schema::NotPrepared::new(
            "sbtest_none.sbtest1 not found".into(),
            "run `oltp prepare --tables 2 --table-size 10 --encrypt none` first".into(),
        ));
        assert_eq!(found(&e), "sbtest_none.sbtest1 not found");
        let e = anyhow::Error::from(schema::NotPrepared::after_semicolon(
            "sbtest1 holds 3 rows and no encbench_meta: a prepare did not finish".into(),
            "run `oltp cleanup`, then `oltp prepare`".into(),
        ));
        assert_eq!(
            found(&e),
            "sbtest1 holds 3 rows and no encbench_meta: a prepare did not finish"
        );
        // Any other error is shown whole, its causes included.
        let e = anyhow::anyhow!("connection refused").context("cannot connect");
        assert_eq!(found(&e), "cannot connect: connection refused");
    }
}
