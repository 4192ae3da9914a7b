//! `oltp prepare`: key files first, then every check, then the parallel load of
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
use crate::config::{base_dir, data_set, parse_encrypts};
use crate::schema::{self, PrepareOptions};

/// Runs `oltp prepare` against `url`.
///
/// # Errors
/// A check fails, or loading fails.
pub async fn prepare(a: &PrepareArgs, url: &str) -> Result<()> {
    let data = data_set(&a.data)?;
    let encrypts = parse_encrypts(&a.encrypt, data.columns)?;
    let base = base_dir(&a.data);
    // Every key file and cipher first: nothing is loaded unless every choice can be.
    let mut plan: Vec<(Encrypt, String, Codec)> = Vec::new();
    for e in encrypts {
        let db = data.database(e);
        if plan.iter().any(|(_, d, _)| *d == db) {
            continue;
        }
        let codec = match e {
            Encrypt::None => Codec::plaintext(),
            Encrypt::Aead(d) => {
                ensure_key_file(a.data.key_file.as_deref(), &base, d.algorithm)?;
                load_codec(e, data.columns, a.data.key_file.as_deref(), &base)?
            }
        };
        plan.push((e, db, codec));
    }
    schema::check_not_prepared(
        url,
        &data,
        &plan.iter().map(|(e, _, _)| *e).collect::<Vec<_>>(),
    )
    .await?;
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
                    "prepare interrupted (Ctrl-C or SIGTERM): {db} is half loaded; run `oltp cleanup --encrypt {}{}{}` before preparing again",
                    e.name(),
                    if e.algorithm().is_some() { data.columns.flags() } else { String::new() },
                    if data.db == "sbtest" { String::new() } else { format!(" --mysql-db {}", data.db) }
                );
            }
        }
        bar.finish_and_clear();
        let secs = t0.elapsed().as_secs_f64();
        println!(
            "prepared {db}: {} tables x {} rows in {:.1} s ({:.0} rows/s){}",
            data.tables,
            data.table_size,
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

fn ensure_key_file(given: Option<&Path>, base: &Path, algorithm: Algorithm) -> Result<()> {
    match given {
        Some(p) if !p.exists() => bail!(
            "--key-file {} does not exist: create it (lines ID;HEX) or omit --key-file",
            p.display()
        ),
        Some(_) => Ok(()),
        None => {
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
    }
}

fn count_bar(total: u64, prefix: &str) -> ProgressBar {
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
