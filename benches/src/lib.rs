//! criterion benches of encbench live in `benches/`; this library is empty.
