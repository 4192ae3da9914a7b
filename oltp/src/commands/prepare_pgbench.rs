//! `oltp prepare --workload pgbench_*`: pgbench's `-i -s SCALE` for each
//! encryption choice (its own database each, as sysbench's tables), every
//! check first, then the missing default key files, then the loads.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Result, bail};

use crate::cli::PrepareArgs;
use crate::columns::Encrypt;
use crate::columns::keys::{active_key_id, default_key_file, load_codec};
use crate::config::{base_dir, data_set, parse_encrypts};
use crate::driver::{DbDriver, with_driver};
use crate::schema::pgbench::{self, ACCOUNTS_PER_SCALE, Fillers, PgbenchPrepare};

use super::loading::{check_key_file, check_room, count_bar, load_codec_creating_key};

/// Runs `oltp prepare` of pgbench's tables against `url`; `data_dir` as
/// [`super::prepare::prepare`] checks it.
///
/// # Errors
/// A check fails, or loading fails.
pub async fn prepare(a: &PrepareArgs, url: &str, data_dir: Option<&Path>) -> Result<()> {
    let mut data = data_set(&a.data)?;
    data.tls = crate::config::tls_options(&a.data, a.tls)?;
    let encrypts = parse_encrypts(&a.encrypt, data.columns)?;
    let fillers = if encrypts.iter().any(|e| e.algorithm().is_some()) {
        Fillers::of(data.columns)?
    } else {
        Fillers::Accounts
    };
    let base = base_dir(&a.data);
    let scale = a.scale.unwrap_or(1);
    let key_file = a.data.key_file.as_deref();
    let mut plans: Vec<(PgbenchPrepare, Encrypt)> = Vec::new();
    for e in encrypts {
        let db = data.database(e);
        if plans.iter().any(|(p, _)| p.db == db) {
            continue;
        }
        if let Encrypt::Aead(d) = e {
            check_key_file(key_file)?;
            if key_file.is_some() || default_key_file(&base, d.algorithm).exists() {
                load_codec(e, data.columns, key_file, &base)?;
            }
        }
        let p = PgbenchPrepare {
            db,
            data: data.clone(),
            scale,
            fillfactor: a
                .fillfactor
                .unwrap_or(crate::schema::pgbench::DEFAULT_FILLFACTOR),
            fillers,
            encrypt: e,
            key_id: 0,
        };
        with_driver!(DbDriver::of_url(url), C => {
            pgbench::check_not_prepared::<C>(url, &p, false).await
        })?;
        plans.push((p, e));
    }
    let rows = u64::from(scale) * u64::from(ACCOUNTS_PER_SCALE);
    check_room(
        data_dir,
        plans.len() as u64 * rows * crate::space::PGBENCH_BYTES_PER_ROW,
        &format!(
            "prepare of {} (pgbench's tables of scale {scale}, {rows} accounts each)",
            plans
                .iter()
                .map(|(p, _)| p.db.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        "give a smaller --scale, free space there, or use --base-dir on a larger disk",
    )?;
    for (mut p, e) in plans {
        let codec = load_codec_creating_key(e, data.columns, key_file, &base)?;
        p.key_id = active_key_id(&codec);
        let bar = count_bar(rows, &format!("prepare {}", p.db));
        let progress: Arc<dyn Fn(u64) + Send + Sync> = {
            let bar = bar.clone();
            Arc::new(move |n| bar.inc(n))
        };
        let t0 = Instant::now();
        let times = tokio::select! {
            r = pgbench::prepare(url, &p, &codec, &*progress) => r?,
            _ = crate::run::interrupt_signal() => {
                bar.finish_and_clear();
                bail!(
                    "prepare interrupted (Ctrl-C or SIGTERM): {} is half loaded; run `{}` before preparing again",
                    p.db,
                    pgbench::cleanup_command(&p.data, e, fillers)
                );
            }
        };
        bar.finish_and_clear();
        // pgbench -i's "done in" line's steps, to compare the two step by step.
        println!(
            "prepared {}: pgbench tables of scale {scale} ({rows} accounts, fillfactor {}) in {:.2} s (create database {:.2} s, create tables {:.2} s, client-side generate {:.2} s, vacuum {:.2} s, primary keys {:.2} s){}",
            p.db,
            p.fillfactor,
            t0.elapsed().as_secs_f64(),
            times.create_database_s,
            times.create_tables_s,
            times.generate_s,
            times.vacuum_s,
            times.primary_keys_s,
            match e {
                Encrypt::None => String::new(),
                Encrypt::Aead(_) => format!(
                    ", {} sealed with {} under key id {}",
                    fillers.meta(),
                    e.name(),
                    p.key_id
                ),
            }
        );
    }
    Ok(())
}
