# shellcheck shell=bash
# Shared helpers of the scripts (sourced, not run): scripts/quickstart, test,
# reproduce, fuzz-smoke, fuzz-campaign and oltp/bench/*.

# Runs a command as root: directly when we are root, else through sudo.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# As root the private servers run as `mysql` / `postgres`, which cannot enter /root:
# their data and the keys go to /var/tmp/encbench (oltp's own default as root), unless
# ENCBENCH_HOME says otherwise; exported so every step of a script names it.
root_home() {
  if [[ $(id -u) == 0 && -z ${ENCBENCH_HOME:-} ]]; then
    export ENCBENCH_HOME=/var/tmp/encbench
    echo "==> running as root: server data and keys in $ENCBENCH_HOME (set ENCBENCH_HOME to choose)"
  fi
}

# Installs what the project needs from Debian/Ubuntu packages when it is missing,
# in one apt-get call. Always: MariaDB server binaries and PostgreSQL (the private
# servers), OpenSSL headers (openssl crate), pkg-config, and sysbench (interop
# tests, comparison benchmarks). With "test" (scripts/test, hence CI), also what
# the test suite needs: chromium (report.html rendered headless), the at-rest
# filesystems (gocryptfs, bindfs, fuse3; e2fsprogs for mkfs.ext4; fscrypt to
# inspect a policy by hand), and cargo-deny (the licence check); cargo-fuzz is
# installed by scripts/fuzz-smoke itself, only where a nightly toolchain exists.
ensure_system_packages() {
  local missing=() p
  if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then missing+=(mariadb-server); fi
  if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1 \
    && [ -z "${ENCBENCH_PG_BIN_DIR:-}" ]; then missing+=(postgresql); fi
  if ! dpkg -s libssl-dev >/dev/null 2>&1; then missing+=(libssl-dev); fi
  if ! command -v pkg-config >/dev/null 2>&1; then missing+=(pkg-config); fi
  if ! command -v sysbench >/dev/null 2>&1; then missing+=(sysbench); fi
  if [[ ${1:-} == test ]]; then
    if ! command -v chromium >/dev/null 2>&1; then missing+=(chromium); fi
    for p in gocryptfs bindfs fuse3 e2fsprogs fscrypt; do
      dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
      echo "error: missing ${missing[*]} and no apt-get: install them with your package manager" >&2
      exit 1
    fi
    echo "==> installing ${missing[*]} (apt-get)"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
  if [[ ${1:-} == test ]] && ! command -v cargo-deny >/dev/null 2>&1; then
    # About 6.5 min on 2 cores, once per machine.
    echo "==> installing cargo-deny (cargo install --locked cargo-deny)"
    cargo install --locked -j2 cargo-deny
  fi
}

# Builds the release oltp binary and sets OLTP to its path. Every script that
# runs oltp builds it with this one command (same package, features and
# profile), so after any of them the others' build is a no-op: a fresh build
# takes ~10 min on 2 cores (release profile: fat LTO, one codegen unit). Run
# from the workspace root; cargo's output goes to stderr.
build_oltp() {
  echo "==> building oltp (release)" >&2
  cargo build --release -j2 -p encbench-oltp >&2
  # shellcheck disable=SC2034 # read by the scripts that source this file
  OLTP=${CARGO_TARGET_DIR:-$PWD/target}/release/oltp
}

# Builds tls-bench and its footprint programs (release) for `oltp reproduce
# 003`, in a cargo invocation of their own: building them together with oltp
# would unify the features of their shared dependencies and rebuild oltp unlike
# build_oltp.
build_tls_bench() {
  echo "==> building tls-bench and tls-bench-footprint (release)" >&2
  cargo build --release -j2 -p tls-bench -p tls-bench-footprint >&2
}

# Checks for what the fuzz scripts need: a nightly toolchain and cargo-fuzz.
# $1: "smoke" (scripts/fuzz-smoke, CI: without nightly it says so in one line
# on stdout and exits the script with 0, so the rest of CI runs; a missing
# cargo-fuzz is installed with cargo install --locked) or "campaign"
# (scripts/fuzz-campaign: either missing is one line on stderr and exit 2).
require_fuzz_tools() {
  local mode=$1
  if ! cargo +nightly --version >/dev/null 2>&1; then
    if [[ $mode == smoke ]]; then
      echo "fuzz smoke: skipped: no nightly toolchain (rustup toolchain install nightly to run it)"
      exit 0
    fi
    echo "fuzz campaign: no nightly toolchain: rustup toolchain install nightly" >&2
    exit 2
  fi
  if ! cargo fuzz --version >/dev/null 2>&1; then
    if [[ $mode == smoke ]]; then
      echo "fuzz smoke: cargo-fuzz missing: cargo install --locked cargo-fuzz"
      cargo install --locked cargo-fuzz
      return
    fi
    echo "fuzz campaign: cargo-fuzz missing: cargo install --locked cargo-fuzz" >&2
    exit 2
  fi
}
