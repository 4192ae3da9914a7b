//! What every encbench crate's tests share, written once (the `rustls-test`
//! idea): private MariaDB and PostgreSQL servers, one per test or one shared by
//! a whole test binary ([`servers`]); the one-line error check of a binary's
//! output and JSON accessors ([`output`]); temporary directories a private
//! server can reach, key files and argv helpers ([`files`]).
//!
//! A dev-dependency only: it depends on the lab (`encbench-lab`), never on a
//! tool crate, so every tool's tests can use it.

pub mod files;
pub mod output;
pub mod servers;

pub use files::{server_tempdir, strings, utf8, write_key_file};
pub use output::{VERDICTS, one_error_line, read_json, stdout_json, u, usage_error_line};
pub use servers::{
    SharedPg, SharedServer, Use, default_server, shared_pg, shared_server, shared_server_alone,
    start, start_pg, start_server,
};

use std::sync::OnceLock;

/// A two-worker tokio runtime, as the tools' binaries build.
///
/// # Panics
/// The runtime cannot be built.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// Keeps an async value computed once per test binary (e.g. tables prepared on
/// the shared server): the first test to ask computes it on its own runtime.
pub fn once<T: Send + Sync>(
    cell: &'static OnceLock<T>,
    init: impl std::future::Future<Output = T>,
) -> &'static T {
    cell.get_or_init(|| runtime().block_on(init))
}
