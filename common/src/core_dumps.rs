//! No core dumps: a process that holds keys (column keys, the at-rest key) must never
//! write its memory to a core file (key hygiene).
//!
//! [`disable`] does what `ssh-agent` does for its private keys (OpenSSH `ssh-agent.c`:
//! `setrlimit(RLIMIT_CORE, 0)` "since memory contains unencrypted private keys", and
//! `platform_disable_tracing`, i.e. `prctl(PR_SET_DUMPABLE, 0)`), both, because neither is
//! enough alone:
//!
//! - `RLIMIT_CORE` 0 (soft and hard, so the process cannot raise it again) stops the
//!   kernel from writing a core file, but core(5): "RLIMIT_CORE will be ignored if the
//!   system is configured to pipe core dumps to a program" (`systemd-coredump`, `apport`,
//!   a container's `core_pattern`). The limit is inherited by the children (the private
//!   `mariadbd` an `oltp` command starts, which holds the at-rest key, gets it too).
//! - `PR_SET_DUMPABLE` 0 stops every core dump, piped or not, and keeps other processes
//!   of the same (non-root) user from attaching with `ptrace` (`gdb -p`, `strace -p`) or
//!   reading `/proc/PID/mem`; `execve` resets it, so children are not affected.
//!
//! The trade-off: no core file to debug a crash with, and no attaching a debugger to a
//! running process unless root. There is deliberately no switch to keep core dumps (an
//! environment variable left set would silently dump keys): to debug, start the tool under
//! the debugger (`gdb --args oltp ...`; a tracer attached before the call stays attached)
//! or reproduce with test keys.

/// Disables core dumps for this process (both mechanisms above).
///
/// # Errors
///
/// The OS error of `setrlimit` or `prctl` (neither fails for an ordinary process on Linux);
/// callers stop: a tool that cannot keep its keys out of core dumps does not run.
#[cfg(target_os = "linux")]
pub fn disable() -> Result<(), String> {
    use nix::sys::resource::{Resource, setrlimit};
    setrlimit(Resource::RLIMIT_CORE, 0, 0)
        .map_err(|e| format!("cannot disable core dumps (setrlimit RLIMIT_CORE 0): {e}"))?;
    nix::sys::prctl::set_dumpable(false)
        .map_err(|e| format!("cannot disable core dumps (prctl PR_SET_DUMPABLE 0): {e}"))
}

/// Disables core dumps for this process: `RLIMIT_CORE` 0 (no `PR_SET_DUMPABLE` outside
/// Linux).
///
/// # Errors
///
/// The OS error of `setrlimit`.
#[cfg(all(unix, not(target_os = "linux")))]
pub fn disable() -> Result<(), String> {
    use nix::sys::resource::{Resource, setrlimit};
    setrlimit(Resource::RLIMIT_CORE, 0, 0)
        .map_err(|e| format!("cannot disable core dumps (setrlimit RLIMIT_CORE 0): {e}"))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// In a child process (the test harness's own limits stay as they were): after
    /// `disable`, the limit is 0 both ways and the process is not dumpable.
    #[test]
    fn disable_sets_the_limit_to_zero_and_the_process_undumpable() {
        if std::env::var_os("ENCBENCH_CORE_DUMPS_CHILD").is_some() {
            disable().expect("disable core dumps");
            let (soft, hard) =
                nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_CORE)
                    .expect("getrlimit");
            assert_eq!((soft, hard), (0, 0));
            assert!(!nix::sys::prctl::get_dumpable().expect("get_dumpable"));
            let limits = std::fs::read_to_string("/proc/self/limits").expect("limits");
            let line = limits
                .lines()
                .find(|l| l.starts_with("Max core file size"))
                .expect("core line");
            assert_eq!(line.split_whitespace().nth(4), Some("0"), "{line}");
            return;
        }
        let exe = std::env::current_exe().expect("test binary");
        let out = std::process::Command::new(exe)
            .args([
                "core_dumps::tests::disable_sets_the_limit_to_zero_and_the_process_undumpable",
                "--exact",
                "--nocapture",
            ])
            .env("ENCBENCH_CORE_DUMPS_CHILD", "1")
            .output()
            .expect("run the test binary");
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
    }
}
