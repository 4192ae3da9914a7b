//! Key hygiene end to end: a canary key, a fixed recognisable
//! 32-byte value, goes through every `oltp` command path that reads a key
//! file, with success and with each kind of error (wrong key id, malformed
//! file, wrong length, a file open to others, a bad URL, a server that is
//! down). Neither its hex (either case) nor its bytes may appear in any stdout,
//! stderr, JSON, CSV, Markdown or SVG output, or in the files the run leaves in
//! its base directory or the server's logs.

#[allow(dead_code)]
mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;

/// The canary key: `0badc0de` eight times (32 bytes, an AES-256 key).
const CANARY_HEX: &str = "0badc0de0badc0de0badc0de0badc0de0badc0de0badc0de0badc0de0badc0de";

/// What must never appear: the hex in lower and upper case, a run of its
/// bytes, and a 16-digit piece of the hex (a truncated print).
fn needles() -> Vec<Vec<u8>> {
    let bytes: Vec<u8> = [0x0b, 0xad, 0xc0, 0xde].repeat(4);
    vec![
        CANARY_HEX.as_bytes().to_vec(),
        CANARY_HEX.to_uppercase().into_bytes(),
        CANARY_HEX.as_bytes()[..16].to_vec(),
        CANARY_HEX[..16].to_uppercase().into_bytes(),
        bytes,
    ]
}

fn leaks(haystack: &[u8]) -> Option<String> {
    needles().into_iter().find_map(|n| {
        haystack
            .windows(n.len())
            .any(|w| w == n.as_slice())
            .then(|| String::from_utf8_lossy(&n).into_owned())
    })
}

/// Fails the test when `what` holds the canary in any form.
fn assert_clean(what: &str, bytes: &[u8]) {
    if let Some(n) = leaks(bytes) {
        panic!("the canary key ({n:?}) leaked into {what}");
    }
}

/// [`assert_clean`] of a command's stdout and stderr, which must not show the shared
/// server's password either (it is in every `--mysql-url` given).
fn assert_output_clean(what: &str, out: &Output) {
    assert_clean(&format!("{what}: stdout"), &out.stdout);
    assert_clean(&format!("{what}: stderr"), &out.stderr);
    let password = default_server().server().password().as_bytes();
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        assert!(
            !bytes.windows(password.len()).any(|w| w == password),
            "the server's password leaked into {what}: {stream}"
        );
    }
}

/// Every file under `dir` (recursively) but key files, checked clean.
fn assert_tree_clean(dir: &Path, skip: &dyn Fn(&Path) -> bool) -> usize {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let Ok(meta) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            if meta.is_dir() {
                stack.push(p);
            } else if meta.is_file() && !skip(&p) {
                if let Ok(bytes) = std::fs::read(&p) {
                    assert_clean(&p.display().to_string(), &bytes);
                    n += 1;
                }
            }
        }
    }
    n
}

fn write_mode(path: &Path, contents: &str, mode: u32) {
    write_key_file(path, contents);
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

#[test]
fn the_canary_key_never_leaves_its_key_file() {
    // The needle finder itself finds what it must.
    assert!(leaks(format!("x{}y", CANARY_HEX.to_uppercase()).as_bytes()).is_some());
    assert!(leaks(b"key id 1 of aes-256-gcm").is_none());

    let t = shared_server();
    let (url, home) = (t.url.clone(), t.base());
    std::fs::create_dir_all(&home).expect("home");
    let key = t.file("canary.keys");
    write_mode(&key, &format!("# canary\n1;{CANARY_HEX}\n"), 0o600);
    let k = utf8(&key).to_string();
    let db = "hygiene";
    let enc = "rustcrypto:aes-256-gcm";
    let base = |cmd: &str, url: &str, key: &str| -> Vec<String> {
        args(cmd, url, &home, db, &["--encrypt", enc, "--key-file", key])
    };
    let run = |url: &str, key: &str, extra: &[&str]| -> Output {
        let mut a = base("run", url, key);
        a.extend(strings(&["--time", "1", "--no-progress"]));
        a.extend(strings(extra));
        oltp_bin(&home, &a)
    };

    // Success: prepare, then a run in every format, writing every file.
    let out = oltp_bin(&home, &base("prepare", &url, &k));
    assert!(
        out.status.success(),
        "prepare: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_output_clean("prepare", &out);
    let files: Vec<PathBuf> = ["run.json", "run.svg"].iter().map(|f| t.file(f)).collect();
    let out = run(
        &url,
        &k,
        &["--json-out", utf8(&files[0]), "--svg", utf8(&files[1])],
    );
    assert!(
        out.status.success(),
        "run: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_output_clean("run --output text", &out);
    for f in &files {
        let bytes = std::fs::read(f).expect("output file written");
        assert_clean(&f.display().to_string(), &bytes);
    }
    for format in ["json", "csv", "markdown"] {
        let out = run(&url, &k, &["--output", format]);
        assert!(out.status.success(), "run --output {format}");
        assert_output_clean(&format!("run --output {format}"), &out);
    }
    // merge (two clients' reports; whether it accepts these two sequential
    // runs or refuses them, it must not print the key).
    let second = t.file("second.json");
    let out = run(&url, &k, &["--output", "json", "--json-out", utf8(&second)]);
    assert!(out.status.success(), "second run");
    let merged = t.file("merged.json");
    let out = oltp_bin(
        &home,
        &[
            "merge",
            utf8(&files[0]),
            utf8(&second),
            "--json-out",
            utf8(&merged),
        ],
    );
    assert_output_clean("merge", &out);
    if let Ok(bytes) = std::fs::read(&merged) {
        assert_clean("merged.json", &bytes);
    }

    // Errors: each must fail (non-zero) and say nothing of the key.
    let bad = t.file("bad.keys");
    let bad_files = [
        ("wrong key id", format!("2;{CANARY_HEX}\n")),
        ("not hex", format!("1;{CANARY_HEX}zz\n")),
        ("no id", format!("{CANARY_HEX}\n")),
        ("wrong length", format!("1;{}\n", &CANARY_HEX[..62])),
        (
            "other key bytes",
            format!("1;{}\n", CANARY_HEX.replace('0', "1")),
        ),
    ];
    for (what, contents) in &bad_files {
        write_mode(&bad, contents, 0o600);
        let out = run(&url, utf8(&bad), &[]);
        assert!(!out.status.success(), "{what}: must fail");
        assert_output_clean(what, &out);
    }
    write_mode(&bad, &format!("1;{CANARY_HEX}\n"), 0o644);
    let out = run(&url, utf8(&bad), &[]);
    assert!(
        !out.status.success(),
        "a key file open to others is refused"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("chmod 600"));
    assert_output_clean("mode 0644", &out);
    for (what, bad_url) in [
        ("bad URL", "mysql://u:p@127.0.0.1:notaport/"),
        ("server down", "mysql://u:p@127.0.0.1:1/"),
    ] {
        for cmd in ["run", "prepare", "cleanup"] {
            let mut a = base(cmd, bad_url, &k);
            if cmd == "run" {
                a.extend(strings(&["--time", "1"]));
            }
            let out = oltp_bin(&home, &a);
            assert!(!out.status.success(), "{cmd} with {what}: must fail");
            assert_output_clean(&format!("{cmd} with {what}"), &out);
        }
    }
    let out = oltp_bin(&home, &base("cleanup", &url, &k));
    assert!(out.status.success(), "cleanup");
    assert_output_clean("cleanup", &out);

    // What the commands left on disk: the base directory and the server's
    // directory (its error log, its own key file for at rest), key files aside.
    let is_key_file = |p: &Path| p.extension().is_some_and(|e| e == "keys");
    assert!(
        assert_tree_clean(&home, &is_key_file)
            + assert_tree_clean(t.scratch.path(), &|p| is_key_file(p))
            > 0
    );
    let logs = |p: &Path| {
        !p.extension()
            .is_some_and(|e| e == "err" || e == "log" || e == "cnf" || e == "pem")
    };
    assert!(
        assert_tree_clean(t.shared.dir(), &logs) > 0,
        "the server's logs were read"
    );
}

/// `Max core file size` of `/proc/PID/limits`: (soft, hard) as written there.
fn core_limit(pid: u32) -> (String, String) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).expect("limits");
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max core file size"))
        .unwrap_or_else(|| panic!("no core line in /proc/{pid}/limits:\n{limits}"));
    let f: Vec<&str> = line.split_whitespace().collect();
    (f[4].to_string(), f[5].to_string())
}

/// Files named `core*` in `dir` (the machine's `core_pattern` is read below).
fn core_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .expect("read dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("core"))
        })
        .collect()
}

/// `cmd` under `sh` with the core limit raised to unlimited first (what a user's
/// `ulimit -c unlimited` does), in `cwd`, stdout piped.
fn with_cores_allowed(cwd: &Path, cmd: &[String], home: &Path) -> std::process::Child {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -c unlimited && exec "$@""#)
        .arg("sh")
        .args(cmd)
        .current_dir(cwd)
        .env("ENCBENCH_HOME", home)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn")
}

/// SIGABRT to `child`; its status (reaped).
fn abort(child: &mut std::process::Child) -> std::process::ExitStatus {
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid"));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGABRT).expect("SIGABRT");
    child.wait().expect("wait")
}

/// Core dumps: an `oltp run` holding the canary key, started with
/// `ulimit -c unlimited`, has lowered its core limit to 0 (soft and hard) by the
/// time it runs, and a SIGABRT of it writes no core file. A control process
/// (`sleep`, same shell, same limit, same directory) does dump core there when
/// the machine's `core_pattern` writes core files (this machine: `core`, in the
/// process's directory); where it pipes them elsewhere, only the limit is checked
/// and the test says so. The test never changes `core_pattern`.
#[test]
fn a_running_oltp_with_a_key_is_never_dumped() {
    use std::io::BufRead as _;
    use std::os::unix::process::ExitStatusExt as _;

    let t = shared_server();
    let (url, home) = (t.url.clone(), t.base());
    std::fs::create_dir_all(&home).expect("home");
    let key = t.file("canary.keys");
    write_mode(&key, &format!("1;{CANARY_HEX}\n"), 0o600);
    let db = "hygiene_core";
    let enc = "rustcrypto:aes-256-gcm";
    let flags = ["--encrypt", enc, "--key-file", utf8(&key)];
    let out = oltp_bin(&home, &args("prepare", &url, &home, db, &flags));
    assert!(
        out.status.success(),
        "prepare: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The control: the machine dumps a core here for a process that allows it.
    let control_dir = t.file("control");
    std::fs::create_dir_all(&control_dir).expect("dir");
    let mut control = with_cores_allowed(&control_dir, &strings(&["sleep", "60"]), &home);
    while core_limit(control.id()).0 != "unlimited" {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = abort(&mut control);
    let pattern = std::fs::read_to_string("/proc/sys/kernel/core_pattern").unwrap_or_default();
    let machine_dumps = status.core_dumped() && !core_files(&control_dir).is_empty();
    if !machine_dumps {
        eprintln!(
            "core_pattern {:?} writes no core file in the process's directory: only the limit is checked",
            pattern.trim()
        );
    }

    let run_dir = t.file("run-cwd");
    std::fs::create_dir_all(&run_dir).expect("dir");
    let mut cmd = vec![env!("CARGO_BIN_EXE_oltp").to_string()];
    cmd.extend(args("run", &url, &home, db, &flags));
    cmd.extend(strings(&[
        "--time",
        "120",
        "--report-interval",
        "1",
        "--no-progress",
    ]));
    let mut run = with_cores_allowed(&run_dir, &cmd, &home);
    // An interval line: the key is loaded and the workers are running.
    let stdout = run.stdout.take().expect("stdout");
    let line = std::io::BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find(|l| l.contains("thds:"));
    assert!(line.is_some(), "oltp run printed no interval line");
    assert_eq!(
        core_limit(run.id()),
        ("0".to_string(), "0".to_string()),
        "the running oltp's core limit"
    );
    let status = abort(&mut run);
    assert_eq!(status.signal(), Some(libc::SIGABRT), "{status:?}");
    assert!(!status.core_dumped(), "oltp dumped core: {status:?}");
    assert_eq!(core_files(&run_dir), Vec::<PathBuf>::new(), "core files");
    if machine_dumps {
        eprintln!("control dumped {:?}; oltp none", core_files(&control_dir));
    }
}
