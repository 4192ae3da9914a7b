//! Finding the PostgreSQL server programs (`initdb`, `pg_ctl`): `$ENCBENCH_PG_BIN_DIR`,
//! else the newest `/usr/lib/postgresql/<version>/bin` (Debian's layout), else `PATH`.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::error::{PgError, Result};

/// Environment variable naming the directory of `initdb` and `pg_ctl`, searched *instead of*
/// the defaults.
pub const PG_BIN_DIR_ENV: &str = "ENCBENCH_PG_BIN_DIR";

/// Where Debian and Ubuntu install each major version's server binaries (`<dir>/<ver>/bin`).
pub const DEBIAN_PG_LIB: &str = "/usr/lib/postgresql";

/// The PostgreSQL programs the launcher runs.
#[derive(Debug, Clone)]
pub(super) struct PgBinaries {
    pub(super) initdb: PathBuf,
    pub(super) pg_ctl: PathBuf,
}

impl PgBinaries {
    /// Looks for `initdb` and `pg_ctl` together in one directory of [`search_dirs`].
    pub(super) fn find() -> Result<PgBinaries> {
        let dirs = search_dirs();
        dirs.iter()
            .find(|d| is_executable(&d.join("initdb")) && is_executable(&d.join("pg_ctl")))
            .map(|d| PgBinaries {
                initdb: d.join("initdb"),
                pg_ctl: d.join("pg_ctl"),
            })
            .ok_or_else(|| PgError::BinariesNotFound {
                looked_in: dirs
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

/// `$ENCBENCH_PG_BIN_DIR` if set; else `/usr/lib/postgresql/<ver>/bin`, newest version
/// first, then `PATH`.
fn search_dirs() -> Vec<PathBuf> {
    if let Some(dirs) = std::env::var_os(PG_BIN_DIR_ENV).filter(|v| !v.is_empty()) {
        return std::env::split_paths(&dirs).collect();
    }
    let mut versions: Vec<(u32, PathBuf)> = fs::read_dir(DEBIAN_PG_LIB)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v: u32 = e.file_name().to_str()?.parse().ok()?;
            Some((v, e.path().join("bin")))
        })
        .collect();
    versions.sort_by_key(|v| std::cmp::Reverse(v.0));
    let mut dirs: Vec<PathBuf> = versions.into_iter().map(|(_, d)| d).collect();
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    dirs
}

fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
