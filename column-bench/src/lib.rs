//! column-bench: per-row decryption cost of column encryption and proxy capacity.
//!
//! Not built yet beyond this placeholder: see the project's issue tracker.
