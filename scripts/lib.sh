# Shared helpers of scripts/quickstart and scripts/test (sourced, not run).

# Runs a command as root: directly when we are root, else through sudo.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Installs what the project needs from Debian/Ubuntu packages when it is missing:
# MariaDB server binaries (the private server), OpenSSL headers (openssl crate),
# pkg-config, and sysbench (for the comparison benchmarks and interop tests).
ensure_system_packages() {
  local missing=()
  if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then missing+=(mariadb-server); fi
  if ! dpkg -s libssl-dev >/dev/null 2>&1; then missing+=(libssl-dev); fi
  if ! command -v pkg-config >/dev/null 2>&1; then missing+=(pkg-config); fi
  if ! command -v sysbench >/dev/null 2>&1; then missing+=(sysbench); fi
  if [ ${#missing[@]} -gt 0 ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
      echo "error: missing ${missing[*]} and no apt-get: install them with your package manager" >&2
      exit 1
    fi
    echo "==> installing ${missing[*]} (apt-get)"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
}
