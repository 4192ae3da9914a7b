//! `encbench-lab`: the database-server lab of encbench. It runs private database
//! servers for benchmarks and tests, each from a directory of its own, and measures
//! what they cost on this machine; it holds no database client (the tools connect
//! with their own drivers, to the URLs the servers give).
//!
//! - [`server`]: the private MariaDB ([`server::PrivateServer`]) and PostgreSQL
//!   ([`server::postgres::PgServer`]) launchers, written symmetrically: layout,
//!   binaries, initialisation, processes, logs, passwords, owners, TLS files,
//!   leases of the commands using a server ([`server::Lease`]) and IOPS caps
//!   ([`server::iops`]).
//! - [`at_rest`]: the at-rest stores a server's data directory can live on
//!   (gocryptfs, bindfs, ext4 on a loop file, fscrypt), each with its control,
//!   and the plaintext search that verifies them.
//! - [`server_cpu`]: the CPU time of a database server process tree, from `/proc`.
//! - [`io_failure`]: the one I/O error shape of the launchers and stores.
//!
//! Nothing here prints: every outcome is a return value.

pub mod at_rest;
pub mod io_failure;
pub mod server;
pub mod server_cpu;
