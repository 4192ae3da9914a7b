//! `oltp prepare`: every check first (databases not prepared yet, key files
//! readable), then the missing default key files, then the parallel load of
//! each encryption choice's database.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Result, bail};
use encbench_crypto::Algorithm;
use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::PrepareArgs;
use crate::columns::keys::{active_key_id, create_key_file, default_key_file, load_codec};
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
        let codec = match e {
            Encrypt::None => Codec::plaintext(),
            Encrypt::Aead(d) => {
                if key_file.is_none() {
                    create_default_key_file(&base, d.algorithm)?;
                }
                load_codec(e, data.columns, key_file, &base)?
            }
        };
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

/// Refuses a load (`what`) of about `need` bytes where the file system of
/// the private server's `data_dir` has less free (and a 10% reserve), before
/// anything is created, as `oltp reproduce` checks its data sets; `fix` ends
/// the message. A server given by URL (`None`) is not checked: its disk is
/// not known here.
///
/// # Errors
/// It does not fit (the message names the file system, the space needed and
/// free, and `fix`), or the free space cannot be read.
pub(super) fn check_room(data_dir: Option<&Path>, need: u64, what: &str, fix: &str) -> Result<()> {
    let Some(dir) = data_dir else {
        return Ok(());
    };
    let free = crate::space::disk_free(dir)?;
    let on = format!(
        "the file system at {} (the server's data directory {})",
        crate::space::mount_point(dir).display(),
        dir.display()
    );
    crate::space::check_disk(need, free, &on, what, fix)
}

/// Refuses a `--key-file` that does not exist (it is never created).
pub(super) fn check_key_file(given: Option<&Path>) -> Result<()> {
    match given {
        Some(p) if !p.exists() => bail!(
            "--key-file {} does not exist: create it (lines ID;HEX) or omit --key-file",
            p.display()
        ),
        _ => Ok(()),
    }
}

/// Creates the default key file of `algorithm` under `base` when it is missing.
pub(super) fn create_default_key_file(base: &Path, algorithm: Algorithm) -> Result<()> {
    let path = default_key_file(base, algorithm);
    if !path.exists() {
        create_key_file(&path, algorithm)?;
        eprintln!(
            "created key file {} (keep it: the tables cannot be read without it)",
            path.display()
        );
    }
    Ok(())
}

pub(super) fn count_bar(total: u64, prefix: &str) -> ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix:>28} [{bar:30}] {pos}/{len} rows  {per_sec}  eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_prefix(prefix.to_string());
    bar
}
