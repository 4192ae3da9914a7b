//! `oltp prepare`: every check first (databases not prepared yet, key files
//! readable), then the missing default key files, then the parallel load of
//! each encryption choice's database.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Result, bail};

use super::loading::{check_key_file, check_room, count_bar, load_codec_creating_key};
use crate::cli::PrepareArgs;
use crate::columns::keys::{active_key_id, default_key_file, load_codec};
use crate::columns::{Codec, Encrypt};
use crate::config::{base_dir, data_set, parse_encrypts, tls_options};
use crate::schema::{self, PrepareOptions};

/// Runs `oltp prepare` against `url`; `data_dir`: the private server's data
/// directory, whose file system must have room for the load (`None`: a
/// server given by URL, whose disk is not known here: not checked).
///
/// # Errors
/// A check fails, or loading fails.
pub async fn prepare(a: &PrepareArgs, url: &str, data_dir: Option<&Path>) -> Result<()> {
    if a.workload.is_pgbench() {
        return super::prepare_pgbench::prepare(a, url, data_dir).await;
    }
    let mut data = data_set(&a.data)?;
    data.tls = tls_options(&a.data, a.tls)?;
    let encrypts = parse_encrypts(&a.encrypt, data.columns)?;
    let base = base_dir(&a.data);
    // Every check before anything is created: the databases are free, given
    // key files exist, existing default key files load.
    let mut choices: Vec<(Encrypt, String)> = Vec::new();
    for e in encrypts {
        let db = data.database(e);
        if !choices.iter().any(|(_, d)| *d == db) {
            choices.push((e, db));
        }
    }
    schema::check_not_prepared(
        url,
        &data,
        &choices.iter().map(|(e, _)| *e).collect::<Vec<_>>(),
    )
    .await?;
    let key_file = a.data.key_file.as_deref();
    for (e, _) in &choices {
        if let Encrypt::Aead(d) = e {
            check_key_file(key_file)?;
            if key_file.is_some() || default_key_file(&base, d.algorithm).exists() {
                load_codec(*e, data.columns, key_file, &base)?;
            }
        }
    }
    let rows = u64::from(data.tables) * u64::from(data.table_size);
    check_room(
        data_dir,
        choices
            .iter()
            .map(|(e, _)| {
                rows * match e {
                    Encrypt::None => crate::space::PLAIN_BYTES_PER_ROW,
                    Encrypt::Aead(_) => crate::space::SEALED_BYTES_PER_ROW,
                }
            })
            .sum(),
        &format!(
            "prepare of {} ({} x {} each)",
            choices
                .iter()
                .map(|(_, db)| db.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            crate::report::count(u64::from(data.tables), "table", "tables"),
            crate::report::count(u64::from(data.table_size), "row", "rows"),
        ),
        "give fewer --tables or a smaller --table-size, free space there, or use --base-dir on a larger disk",
    )?;
    // Then the missing default key files, and every cipher keyed.
    let mut plan: Vec<(Encrypt, String, Codec)> = Vec::new();
    for (e, db) in choices {
        let codec = load_codec_creating_key(e, data.columns, key_file, &base)?;
        plan.push((e, db, codec));
    }
    for (e, db, codec) in plan {
        let total = u64::from(data.tables) * u64::from(data.table_size);
        let bar = count_bar(total, &format!("prepare {db}"));
        let progress: Arc<dyn Fn(u64) + Send + Sync> = {
            let bar = bar.clone();
            Arc::new(move |n| bar.inc(n))
        };
        let t0 = Instant::now();
        let opts = PrepareOptions {
            threads: a.threads,
            seed: a.seed,
            create_secondary: a.create_secondary,
            auto_inc: a.auto_inc,
            secondary: a.secondary,
        };
        let load = schema::prepare(
            url,
            &data,
            e,
            codec.clone(),
            active_key_id(&codec),
            &opts,
            progress,
        );
        tokio::select! {
            r = load => r?,
            _ = crate::run::interrupt_signal() => {
                bar.finish_and_clear();
                bail!(
                    "prepare interrupted (Ctrl-C or SIGTERM): {db} is half loaded; run `{}` before preparing again",
                    schema::cleanup_command(schema::Dialect::of_url(url), &data, e)
                );
            }
        }
        bar.finish_and_clear();
        let secs = t0.elapsed().as_secs_f64();
        println!(
            "prepared {db}: {} x {} in {:.1} s ({:.0} rows/s){}",
            crate::report::count(u64::from(data.tables), "table", "tables"),
            crate::report::count(u64::from(data.table_size), "row", "rows"),
            secs,
            total as f64 / secs.max(1e-9),
            match e {
                Encrypt::None => String::new(),
                Encrypt::Aead(_) => format!(
                    ", {} sealed with {} under key id {}",
                    data.columns.describe(),
                    e.name(),
                    active_key_id(&codec)
                ),
            }
        );
    }
    Ok(())
}
