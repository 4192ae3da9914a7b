//! What both loads share (sysbench's tables in [`super::prepare`], pgbench's in
//! [`super::prepare_pgbench`]): the room check on the private server's disk, the
//! `--key-file` check, the default key files, the progress bar.

use std::path::Path;

use anyhow::{Result, bail};
use encbench_crypto::Algorithm;
use indicatif::{ProgressBar, ProgressStyle};

use crate::columns::keys::{create_key_file, default_key_file, load_codec};
use crate::columns::{Codec, Columns, Encrypt};

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

/// The codec a load seals `encrypt`'s `columns` with: plaintext for `none`;
/// otherwise under `key_file`, or under the algorithm's default key file in
/// `base`, created when missing.
///
/// # Errors
/// The default key file cannot be created, or the key file cannot be read or
/// does not fit the algorithm or the columns.
pub(super) fn load_codec_creating_key(
    encrypt: Encrypt,
    columns: Columns,
    key_file: Option<&Path>,
    base: &Path,
) -> Result<Codec> {
    match encrypt {
        Encrypt::None => Ok(Codec::plaintext()),
        Encrypt::Aead(d) => {
            if key_file.is_none() {
                create_default_key_file(base, d.algorithm)?;
            }
            Ok(load_codec(encrypt, columns, key_file, base)?)
        }
    }
}

/// The progress bar of a load of `total` rows (hidden when stderr is not a
/// terminal), labelled `prefix`.
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
