//! Records the git revision of the checkout the crate is built from, as the
//! `ENCBENCH_GIT_REVISION` environment variable of the build (read by
//! `header::GIT_REVISION`). Outside a git checkout, or without a working `git`,
//! nothing is set and the revision is `null` in every JSON result.
//!
//! Reruns only when the checkout's HEAD or the branch it points to moves (a new
//! commit, a checkout), not on every build: it watches `HEAD` of the worktree's
//! git directory, the branch's loose ref file (or, while the branch is only in
//! `packed-refs`, `packed-refs` and the directory its loose ref would appear in).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    // Only a checkout: a `.git` directory or file (worktree) in an ancestor.
    if !manifest.ancestors().any(|d| d.join(".git").exists()) {
        return;
    }
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git")
            .arg("-C")
            .arg(&manifest)
            .args(args)
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
        (!s.is_empty()).then_some(s)
    };
    let Some(revision) = git(&["rev-parse", "HEAD"]) else {
        return;
    };
    // Paths git prints are relative to the -C directory unless absolute.
    let abs = |p: String| {
        let p = PathBuf::from(p);
        if p.is_absolute() { p } else { manifest.join(p) }
    };
    if let Some(git_dir) = git(&["rev-parse", "--git-dir"]).map(abs) {
        watch(&git_dir.join("HEAD"));
        let common = git(&["rev-parse", "--git-common-dir"]).map_or(git_dir.clone(), abs);
        // `refs/heads/BRANCH`, or nothing for a detached HEAD (HEAD holds the hash).
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            let loose = common.join(&branch);
            if loose.exists() {
                watch(&loose);
            } else {
                watch(&common.join("packed-refs"));
                // The loose ref appears here on the next commit.
                if let Some(dir) = loose.ancestors().skip(1).find(|d| d.is_dir()) {
                    watch(dir);
                }
            }
        }
    }
    println!("cargo:rustc-env=ENCBENCH_GIT_REVISION={revision}");
}

/// `rerun-if-changed` for a path that exists (a missing one would rerun the
/// script on every build).
fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}
