//! What the three encbench tools (`oltp`, `column-bench`, `tls-bench`) share,
//! written once:
//!
//! - [`cli_error`]: the one-line `Error: ...` of a binary, for clap's usage
//!   errors and for an error with its chain of causes (each cause once).
//! - [`output`]: output files written atomically (temporary file in the same
//!   directory, fsync, rename), and the check before a run that they can be.
//! - [`machine`]: the machine a result was measured on (CPU model, the
//!   crypto-relevant CPU flags, logical CPUs, kernel).
//! - [`header`]: the self-describing head of every JSON result
//!   (`schema_version`, `tool`, `started_at`, `ended_at`, `machine`).
//! - [`core_dumps`]: no core dumps for a process that holds keys (`oltp`,
//!   `column-bench`).
//! - [`compare`]: the one comparison method of a variant with the baseline
//!   over paired, interleaved rounds: median of the paired ratios, its exact
//!   distribution-free interval (sign test), the verdict and the A/A noise floor.
//! - [`rounds`]: the round schedule: a rotating order, and the A/A control
//!   run half a round after its baseline.
//! - [`number`]: numbers grouped by thousands, as every report prints them.
//! - [`svg`]: the frame of every SVG chart: canvas, caption, axes, legend.
//! - [`pki`]: a private CA and the server certificates it signs, made on the
//!   spot, the PEM files a server reads, and the rustls configurations of a
//!   front end and of a client (a CA given in memory or as a PEM file).
//! - [`password`]: a server URL's password from `--password-file` or the
//!   environment instead of argv, and the rule for an `@` in USER:PASS.
//! - [`files`]: every other file a user names (key files, a CA's PEM file,
//!   result JSON), read whole with a cap suited to what it holds, and refused in
//!   one line when it is not a regular file.
//! - [`table`]: the titled table of formatted cells every report draws, as
//!   aligned text and as Markdown.

pub mod cli_error;
pub mod compare;
#[cfg(unix)]
pub mod core_dumps;
#[cfg(unix)]
pub mod files;
pub mod header;
pub mod machine;
pub mod number;
pub mod output;
#[cfg(unix)]
pub mod password;
pub mod pki;
pub mod rounds;
pub mod svg;
pub mod table;

pub use header::{ResultHeader, ToolInfo};
pub use machine::Machine;
pub use output::OutputError;
