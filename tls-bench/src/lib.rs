//! tls-bench: TLS handshake and record overhead against plain TCP.
//!
//! Not built yet beyond this placeholder: see the project's issue tracker.
