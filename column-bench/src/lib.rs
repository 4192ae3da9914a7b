//! column-bench: the per-row decryption cost of column encryption, per backend
//! and algorithm, and how many proxy cores a workload needs.
//!
//! Data flows one way: configuration ([`cli`], [`config`], [`shape`]) -> work
//! ([`mod@bench`], timing the per-value path of [`measure`], which is `oltp`'s
//! own: the column codec of `encbench-columns`, and the client-side sort of
//! [`client_sort`]) -> comparisons ([`comparison`]: paired rounds) -> model
//! ([`capacity`], [`oltp_result`]) -> report ([`report`]: text, JSON, CSV,
//! Markdown, SVG).

pub mod bench;
pub mod capacity;
pub mod cli;
pub mod client_sort;
pub mod comparison;
pub mod config;
pub mod error;
pub mod measure;
pub mod oltp_result;
pub mod report;
pub mod shape;

pub use error::{Error, Result};
