//! The `encbench-reproduce` binary's command line without a server: its
//! `--help` (what `oltp reproduce --help` shows) and an output directory that
//! cannot be created.

use std::process::{Command, Output};

/// The `encbench-reproduce` binary with `args` and `ENCBENCH_HOME` set to `home`.
fn reproduce(home: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_encbench-reproduce"))
        .args(args)
        .env("ENCBENCH_HOME", home)
        .output()
        .expect("run encbench-reproduce")
}

/// A clone holds no `shared/seeds/` (the reports' texts are not redistributed):
/// `--help` points at what the repository does hold, and lists the flags.
#[test]
fn help_names_files_a_clone_has() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = reproduce(dir.path(), &["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(!help.contains("shared/seeds"), "{help}");
    assert!(help.contains("reproduce/published/ID.json"), "{help}");
    for flag in [
        "--quick",
        "--out",
        "--base-dir",
        "--threads",
        "--iops-limit",
    ] {
        assert!(help.contains(flag), "{flag}: {help}");
    }
    assert!(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/published/000.json")).is_file(),
        "the help names a path that is not in the repository"
    );
}

#[test]
fn an_uncreatable_out_dir_names_the_fix() {
    // New-user finding: the message named the failure only.
    let dir = tempfile::tempdir().expect("tempdir");
    let args = ["000", "--quick", "--out", "/proc/nope"];
    let out = reproduce(dir.path(), &args);
    assert_eq!(
        encbench_test_support::one_error_line(&out, args),
        "Error: --out /proc/nope: cannot create the directory: No such file or directory (os error 2): give a directory you can write as --out DIR"
    );
    assert_eq!(out.status.code(), Some(1));
}

/// A usage error names the program it was given to: `oltp reproduce` when oltp
/// runs this binary (its program name), else `encbench-reproduce`.
#[test]
fn usage_errors_name_the_program_run() {
    use std::os::unix::process::CommandExt as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let args = ["003", "--threads", "0"];
    for (arg0, help) in [
        (None, "see encbench-reproduce --help"),
        (Some("oltp reproduce"), "see oltp reproduce --help"),
    ] {
        let mut c = Command::new(env!("CARGO_BIN_EXE_encbench-reproduce"));
        if let Some(name) = arg0 {
            c.arg0(name);
        }
        let out = c
            .args(args)
            .env("ENCBENCH_HOME", dir.path())
            .output()
            .expect("run encbench-reproduce");
        let line = encbench_test_support::usage_error_line(&out, args);
        assert!(line.contains("--threads") && line.ends_with(help), "{line}");
        assert_eq!(out.status.code(), Some(2));
    }
}
