//! `oltp`: a sysbench 1.0-compatible OLTP load generator on a real MariaDB/MySQL
//! server, through `mysql_async` on `tokio`, measuring the three encryption
//! layers: column encryption by any compiled-in encbench backend, TLS to the
//! server, and InnoDB encryption at rest ([`security`]).
//!
//! Data flows one way: configuration ([`cli`], [`run::RunOptions`]) -> server
//! ([`server`] with [`security::server_config`], or a URL) -> workers
//! ([`workload`], with the column [`codec`]) -> measurement ([`measure`]) ->
//! report ([`report`], one exporter per format; [`merge`] for several clients).

pub mod cli;
pub mod codec;
pub mod measure;
pub mod merge;
pub mod ps_mode;
pub mod rand;
pub mod report;
pub mod run;
pub mod schema;
pub mod security;
pub mod server;
pub mod workload;
