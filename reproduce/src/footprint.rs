//! Report 003's footprint on this machine: the installed size of the
//! distribution's MariaDB packages and the share of it that is TLS.
//!
//! Definitions (Debian/Ubuntu; documented in the README):
//! - **the installation**: `mariadb-server` and `mariadb-client` and every
//!   package they depend on (Depends, Pre-Depends, recursively, first of
//!   each alternative) that is built from MariaDB's source, i.e. named
//!   `mariadb-*` or `libmariadb*`, plus the packages holding the TLS
//!   libraries below. Shared system libraries (libc, perl, ...) are not
//!   counted, as the study's `du` of a MySQL installation directory did not.
//! - **TLS**: the shared libraries that `mariadbd` and the `mariadb` client
//!   load (`ldd`) and that are a TLS library (`libssl*`, `libcrypto*`,
//!   `libgnutls*`, `libwolfssl*`, `libmbedtls*`, `libmbedcrypto*`,
//!   `libmbedx509*`), and the packages holding them (`dpkg -S`), counted whole.
//! - sizes: `dpkg-query -Wf '${Installed-Size}'` (KiB, as dpkg records
//!   them); the share is TLS packages / installation x 100.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde::Serialize;

/// One package and its installed size.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PackageSize {
    /// Package name.
    pub package: String,
    /// `Installed-Size`, KiB.
    pub installed_kib: u64,
}

/// The footprint measured.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Footprint {
    /// The MariaDB packages counted.
    pub mariadb_packages: Vec<PackageSize>,
    /// The TLS libraries `mariadbd` and `mariadb` load (resolved paths).
    pub tls_libraries: Vec<String>,
    /// The packages holding them.
    pub tls_packages: Vec<PackageSize>,
    /// Everything counted, KiB.
    pub total_kib: u64,
    /// The TLS packages, KiB.
    pub tls_kib: u64,
    /// `tls_kib / total_kib x 100`.
    pub tls_share_pct: f64,
    /// The definitions used, in words.
    pub definition: String,
}

/// TLS library file-name prefixes.
const TLS_LIBS: [&str; 7] = [
    "libssl",
    "libcrypto",
    "libgnutls",
    "libwolfssl",
    "libmbedtls",
    "libmbedcrypto",
    "libmbedx509",
];

/// Measures the footprint on this machine.
///
/// # Errors
/// No dpkg (not Debian/Ubuntu), the packages or programs are not installed,
/// or `ldd` fails; the message names what is missing.
pub fn measure() -> Result<Footprint> {
    let server = find_program(&["mariadbd", "mysqld"], &["/usr/sbin", "/usr/bin"])
        .context("mariadbd not found: install mariadb-server (apt-get install mariadb-server)")?;
    let client = find_program(&["mariadb", "mysql"], &["/usr/bin"])
        .context("the mariadb client not found: install mariadb-client")?;
    let mut mariadb: Vec<PackageSize> = Vec::new();
    let mut queue: Vec<String> = vec!["mariadb-server".into(), "mariadb-client".into()];
    while let Some(p) = queue.pop() {
        if mariadb.iter().any(|m| m.package == p) {
            continue;
        }
        let (size, deps) = package(&p)?;
        mariadb.push(PackageSize {
            package: p,
            installed_kib: size,
        });
        queue.extend(
            deps.into_iter()
                .filter(|d| d.starts_with("mariadb-") || d.starts_with("libmariadb")),
        );
    }
    mariadb.sort_by(|a, b| a.package.cmp(&b.package));
    let mut libs: Vec<String> = Vec::new();
    for program in [&server, &client] {
        for lib in tls_libraries(program)? {
            if !libs.contains(&lib) {
                libs.push(lib);
            }
        }
    }
    if libs.is_empty() {
        bail!(
            "{} and {} load no TLS library (ldd): a build without TLS has no TLS share to measure",
            server.display(),
            client.display()
        );
    }
    let mut tls: Vec<PackageSize> = Vec::new();
    for lib in &libs {
        let owner = owner(lib)?;
        if !tls.iter().any(|t| t.package == owner) {
            let (size, _) = package(&owner)?;
            tls.push(PackageSize {
                package: owner,
                installed_kib: size,
            });
        }
    }
    let tls_kib: u64 = tls.iter().map(|t| t.installed_kib).sum();
    let total_kib = mariadb.iter().map(|m| m.installed_kib).sum::<u64>() + tls_kib;
    Ok(Footprint {
        tls_share_pct: tls_kib as f64 / total_kib.max(1) as f64 * 100.0,
        mariadb_packages: mariadb,
        tls_libraries: libs,
        tls_packages: tls,
        total_kib,
        tls_kib,
        definition: "installation: mariadb-server, mariadb-client and their dependencies built from MariaDB's source (mariadb-*, libmariadb*), plus the packages of the TLS libraries; TLS: the packages holding the TLS libraries mariadbd and mariadb load (ldd); sizes: dpkg Installed-Size (KiB)".to_string(),
    })
}

/// The first of `names` found on `PATH` or in `dirs`.
fn find_program(names: &[&str], dirs: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut search: Vec<PathBuf> = std::env::split_paths(&path).collect();
    search.extend(dirs.iter().map(PathBuf::from));
    names
        .iter()
        .find_map(|n| search.iter().map(|d| d.join(n)).find(|p| p.is_file()))
}

/// `Installed-Size` (KiB) and the dependency names of installed package `name`.
fn package(name: &str) -> Result<(u64, Vec<String>)> {
    let out = Command::new("dpkg-query")
        .args([
            "-Wf",
            "${db:Status-Status}\t${Installed-Size}\t${Depends}, ${Pre-Depends}",
            name,
        ])
        .output()
        .context("dpkg-query not found: the footprint is measured from Debian/Ubuntu packages")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text.splitn(3, '\t');
    let status = parts.next().unwrap_or_default();
    if !out.status.success() || status != "installed" {
        bail!("package {name} is not installed: apt-get install {name}");
    }
    let size = parts
        .next()
        .and_then(|s| s.trim().parse().ok())
        .with_context(|| format!("package {name} has no Installed-Size"))?;
    Ok((size, parse_depends(parts.next().unwrap_or_default())))
}

/// Package names of a Depends field: the first of each alternative, without
/// versions or architecture qualifiers.
pub fn parse_depends(field: &str) -> Vec<String> {
    field
        .split(',')
        .filter_map(|d| {
            let first = d.split('|').next()?.trim();
            let name = first.split([' ', '(']).next()?.split(':').next()?;
            (!name.is_empty()).then(|| name.to_string())
        })
        .collect()
}

/// The TLS libraries `program` loads, as resolved paths.
fn tls_libraries(program: &Path) -> Result<Vec<String>> {
    let out = Command::new("ldd")
        .arg(program)
        .output()
        .context("ldd not found (package libc-bin)")?;
    if !out.status.success() {
        bail!("ldd {} failed", program.display());
    }
    Ok(parse_ldd(&String::from_utf8_lossy(&out.stdout))
        .into_iter()
        .map(|p| std::fs::canonicalize(&p).map_or(p, |c| c.display().to_string()))
        .collect())
}

/// The TLS library paths of `ldd` output (`libssl.so.3 => /lib/.../libssl.so.3 (0x...)`).
pub fn parse_ldd(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let (name, rest) = l.trim().split_once(" => ")?;
            TLS_LIBS
                .iter()
                .any(|p| name.starts_with(p))
                .then(|| rest.split(" (").next().unwrap_or(rest).trim().to_string())
        })
        .collect()
}

/// The package holding file `path` (`dpkg -S`).
fn owner(path: &str) -> Result<String> {
    let out = Command::new("dpkg")
        .args(["-S", path])
        .output()
        .context("dpkg not found")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let pkg = text
        .lines()
        .next()
        .and_then(|l| l.split(':').next())
        .filter(|p| out.status.success() && !p.is_empty());
    pkg.map(str::to_string).with_context(|| {
        format!(
            "no package holds {path} (dpkg -S): a TLS library outside the distribution's packages"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depends_and_ldd_parse() {
        assert_eq!(
            parse_depends(
                "libmariadb3 (>= 10.5.4), mariadb-common (>= 1:10.11), debconf (>= 0.5) | debconf-2.0, perl:any, "
            ),
            ["libmariadb3", "mariadb-common", "debconf", "perl"]
        );
        let ldd = "\tlinux-vdso.so.1 (0x00007ffd)\n\tlibssl.so.3 => /lib/x86_64-linux-gnu/libssl.so.3 (0x00007f)\n\tlibcrypto.so.3 => /lib/x86_64-linux-gnu/libcrypto.so.3 (0x00007f)\n\tlibz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x1)\n";
        assert_eq!(
            parse_ldd(ldd),
            [
                "/lib/x86_64-linux-gnu/libssl.so.3",
                "/lib/x86_64-linux-gnu/libcrypto.so.3"
            ]
        );
    }
}
