//! sysbench's `cleanup`: the databases and tables `prepare` created.

use anyhow::{Result, bail};
use encbench_crypto::Algorithm;

use crate::columns::Encrypt;
use crate::driver::{Connection, DbDriver, with_driver};

use super::lock::prepare_running;
use super::{DataSet, Dialect, connect, database_exists, existing_tables, read_meta};

/// Refuses to drop `db` while a prepare is loading it (it holds the prepare
/// lock): the drop would destroy the tables under it.
///
/// # Errors
/// A prepare is loading `db` now, or the lock cannot be asked for.
async fn check_no_prepare<C: Connection>(
    dialect: Dialect,
    url: &str,
    data: &DataSet,
    db: &str,
) -> Result<()> {
    if prepare_running::<C>(dialect, url, data.tls.as_ref(), db).await? {
        bail!(
            "{db} is being loaded by a prepare running now: wait for it to finish (or stop it with Ctrl-C), then clean up"
        );
    }
    Ok(())
}

/// The encrypted databases under base name `db` (any algorithm and column
/// layout, finished or not) on the server `conn` is connected to: databases
/// named `db_<algorithm>` or `db_<algorithm>_<layout>`
/// ([`crate::columns::Columns::db_suffix`]), as `prepare` names them.
///
/// # Errors
/// Query failures.
pub async fn encrypted_databases<C: Connection>(
    conn: &mut C,
    dialect: Dialect,
    db: &str,
) -> Result<Vec<String>> {
    let like = format!("{}\\_%", db.replace('_', "\\_"));
    let sql = dialect.databases_like_sql(&dialect.literal(&like));
    Ok(conn
        .query_text(&sql)
        .await?
        .into_iter()
        .filter_map(|r| r.into_iter().next().flatten())
        .filter(|n| is_encrypted_database(db, n))
        .collect())
}

/// Whether `name` is how `prepare` names an encrypted database under `db`.
fn is_encrypted_database(db: &str, name: &str) -> bool {
    let Some(rest) = name.strip_prefix(db).and_then(|r| r.strip_prefix('_')) else {
        return false;
    };
    Algorithm::ALL.iter().any(|a| {
        let alg = a.name().replace('-', "_");
        match rest.strip_prefix(alg.as_str()) {
            Some("") => true,
            Some(layout) => layout
                .strip_prefix('_')
                .is_some_and(|l| !l.is_empty() && l.bytes().all(|b| b"kcpd".contains(&b))),
            None => false,
        }
    })
}

/// `cleanup --encrypt all`: the plaintext tables of `data.db` and every
/// encrypted database under it ([`encrypted_databases`]). Returns the databases touched.
///
/// # Errors
/// A prepare is loading one of the databases now, or database errors.
pub async fn cleanup_all(url: &str, data: &DataSet) -> Result<Vec<String>> {
    with_driver!(DbDriver::of_url(url), C => {
        drop_all::<C>(C::DRIVER.dialect(), url, data).await
    })
}

async fn drop_all<C: Connection>(
    dialect: Dialect,
    url: &str,
    data: &DataSet,
) -> Result<Vec<String>> {
    let mut dropped = drop_some::<C>(dialect, url, data, &[Encrypt::None]).await?;
    let mut conn: C = connect(url, data.tls.as_ref(), None).await?;
    for db in encrypted_databases(&mut conn, dialect, &data.db).await? {
        check_no_prepare::<C>(dialect, url, data, &db).await?;
        conn.simple(&dialect.drop_database_sql(&db)).await?;
        dropped.push(db);
    }
    conn.close().await;
    Ok(dropped)
}

/// Drops every `sbtestN` table and `encbench_meta` of the
/// databases for `encrypts`; an encrypted database (`DB_<algorithm>`) is dropped
/// whole. Returns the databases touched (a plaintext database without sbtest
/// tables or `encbench_meta` is not).
///
/// # Errors
/// A prepare is loading one of the databases now (nothing of it is
/// dropped), or database errors.
pub async fn cleanup(url: &str, data: &DataSet, encrypts: &[Encrypt]) -> Result<Vec<String>> {
    with_driver!(DbDriver::of_url(url), C => {
        drop_some::<C>(C::DRIVER.dialect(), url, data, encrypts).await
    })
}

async fn drop_some<C: Connection>(
    dialect: Dialect,
    url: &str,
    data: &DataSet,
    encrypts: &[Encrypt],
) -> Result<Vec<String>> {
    let mut admin: C = connect(url, data.tls.as_ref(), None).await?;
    let mut dropped: Vec<String> = Vec::new();
    for e in encrypts {
        let db = data.database(*e);
        if dropped.contains(&db) || !database_exists(&mut admin, dialect, &db).await? {
            continue;
        }
        check_no_prepare::<C>(dialect, url, data, &db).await?;
        if e.algorithm().is_some() {
            admin.simple(&dialect.drop_database_sql(&db)).await?;
        } else {
            // The plaintext database is shared (sysbench's own tables live
            // there too): it counts as touched only if it held tables of ours.
            let mut conn: C = connect(url, data.tls.as_ref(), Some(&db)).await?;
            let tables = existing_tables(&mut conn, dialect).await?;
            let meta = read_meta(&mut conn, dialect).await?;
            // pgbench's tables (oltp's or stock pgbench -i's) go too.
            let pgbench = super::pgbench::drop_tables(&mut conn, dialect).await?;
            if tables.is_empty() && meta.is_none() {
                conn.close().await;
                if pgbench {
                    dropped.push(db);
                }
                continue;
            }
            conn.simple("DROP TABLE IF EXISTS encbench_meta").await?;
            for n in tables {
                conn.simple(&format!("DROP TABLE IF EXISTS sbtest{n}"))
                    .await?;
            }
            conn.close().await;
        }
        dropped.push(db);
    }
    admin.close().await;
    Ok(dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encrypted_database_names_are_recognised_exactly() {
        for n in [
            "sbtest_aes_256_gcm",
            "sbtest_aes_256_siv_kdcp",
            "sbtest_aes_256_cbc_hmac_sha256_kdcdpd",
            "sbtest_chacha20_poly1305_k",
        ] {
            assert!(is_encrypted_database("sbtest", n), "{n}");
        }
        for n in [
            "sbtest",
            "sbtest_sb",
            "sbtest_aes_256_gcm_",
            "sbtest_aes_256_gcm_x",
            "sbtest_aes_256_gcmx",
            "other_aes_256_gcm",
        ] {
            assert!(!is_encrypted_database("sbtest", n), "{n}");
        }
    }
}
