//! tls-bench: what TLS costs a database connection, against plain TCP.
//!
//! Data flows one way: configuration ([`config`], [`cli`]) -> work (the
//! sections [`handshake`], [`record`], [`latency`], [`bulk`], [`footprint`],
//! over the transports of [`tls`]) -> measurement ([`measure`]) -> report
//! ([`report`], its [`report::summary`], [`chart`]). Every exporter reads the one [`report::Report`].

pub mod bulk;
pub mod chart;
pub mod cli;
pub mod comparison;
pub mod config;
pub mod counting;
pub mod error;
pub mod footprint;
pub mod handshake;
pub mod latency;
pub mod loopback;
pub mod measure;
pub mod net;
pub mod pki;
pub mod record;
pub mod report;
pub mod rounds;
pub mod run;
pub mod tls;

pub use error::{Error, Result};
