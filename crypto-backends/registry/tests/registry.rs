//! Name resolution: every listed name resolves, and every error message names
//! the problem and lists the valid names.
//!
//! Vectors: none; the names come from `encbench_registry::names()` and from the
//! backends and algorithms this version knows (`aws-lc-rs`, `openssl`, `ring`,
//! `rustcrypto`;
//! `aes-128-gcm`, `aes-256-gcm`, `chacha20-poly1305`).

use encbench_registry::{Algorithm, RegistryError, all, backends, lookup, names};

/// Asserts that `message` is one line and lists every valid name.
fn assert_lists_valid_names(message: &str) {
    assert!(!message.contains('\n'), "one line: {message}");
    assert!(message.contains("valid names: "), "{message}");
    for name in names() {
        assert!(message.contains(&name), "{message} lacks {name}");
    }
}

#[test]
fn every_listed_name_resolves_to_itself() {
    let names = names();
    assert_eq!(names.len(), all().len());
    for name in &names {
        let d = lookup(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(&d.name(), name);
        let upper = lookup(&name.to_ascii_uppercase()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(&upper.name(), name, "lookup is ASCII case-insensitive");
    }
}

#[test]
fn descriptors_are_ordered_by_backend_then_algorithm() {
    let keys: Vec<(&str, Algorithm)> = all().iter().map(|d| (d.backend, d.algorithm)).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(keys, sorted, "sorted and without duplicates");
    let mut from_all: Vec<&str> = all().iter().map(|d| d.backend).collect();
    from_all.dedup();
    assert_eq!(backends(), from_all);
}

#[cfg(all(
    feature = "aws-lc-rs",
    feature = "openssl",
    feature = "ring",
    feature = "rustcrypto"
))]
#[test]
fn default_build_has_all_four_backends_and_all_algorithms() {
    assert_eq!(backends(), ["aws-lc-rs", "openssl", "ring", "rustcrypto"]);
    assert_eq!(
        names(),
        [
            "aws-lc-rs:aes-128-gcm",
            "aws-lc-rs:aes-256-gcm",
            "aws-lc-rs:chacha20-poly1305",
            "aws-lc-rs:aes-256-gcm-siv",
            "openssl:aes-128-gcm",
            "openssl:aes-256-gcm",
            "openssl:chacha20-poly1305",
            "openssl:aes-256-siv",
            "openssl:aes-256-cbc-hmac-sha256",
            "ring:aes-128-gcm",
            "ring:aes-256-gcm",
            "ring:chacha20-poly1305",
            "rustcrypto:aes-128-gcm",
            "rustcrypto:aes-256-gcm",
            "rustcrypto:chacha20-poly1305",
            "rustcrypto:xchacha20-poly1305",
            "rustcrypto:aes-256-gcm-siv",
            "rustcrypto:aes-256-siv",
            "rustcrypto:aes-256-cbc-hmac-sha256",
        ]
    );
    let d = lookup("OpenSSL:AES-256-GCM").expect("lookup");
    assert_eq!((d.backend, d.algorithm), ("openssl", Algorithm::Aes256Gcm));
    let d = lookup("rustcrypto:chacha20-poly1305").expect("lookup");
    assert_eq!(
        (d.backend, d.algorithm),
        ("rustcrypto", Algorithm::ChaCha20Poly1305)
    );
    let d = lookup("Ring:AES-128-GCM").expect("lookup");
    assert_eq!((d.backend, d.algorithm), ("ring", Algorithm::Aes128Gcm));
    let d = lookup("AWS-LC-RS:chacha20-poly1305").expect("lookup");
    assert_eq!(
        (d.backend, d.algorithm),
        ("aws-lc-rs", Algorithm::ChaCha20Poly1305)
    );
}

#[test]
fn unknown_backend_lists_valid_names() {
    let e = lookup("foo:aes-256-gcm").expect_err("foo is no backend");
    assert!(
        matches!(&e, RegistryError::UnknownBackend { backend, .. } if backend == "foo"),
        "{e:?}"
    );
    let message = e.to_string();
    assert!(
        message.starts_with("unknown backend \"foo\" in \"foo:aes-256-gcm\""),
        "{message}"
    );
    assert_lists_valid_names(&message);
}

#[test]
fn unknown_algorithm_lists_valid_names() {
    for backend in backends() {
        let name = format!("{backend}:aes-512-gcm");
        let e = lookup(&name).expect_err("aes-512-gcm is no algorithm");
        assert!(
            matches!(&e, RegistryError::UnknownAlgorithm { algorithm, .. } if algorithm == "aes-512-gcm"),
            "{e:?}"
        );
        let message = e.to_string();
        assert!(
            message.contains("unknown algorithm \"aes-512-gcm\""),
            "{message}"
        );
        assert_lists_valid_names(&message);
    }
}

#[test]
fn a_name_without_a_colon_says_the_expected_form() {
    for name in ["aes-256-gcm", "openssl", "", "openssl aes-256-gcm"] {
        let e = lookup(name).expect_err("no colon");
        assert!(matches!(e, RegistryError::Form { .. }), "{e:?}");
        let message = e.to_string();
        assert!(message.contains("BACKEND:ALGORITHM"), "{message}");
        assert_lists_valid_names(&message);
    }
}

#[test]
fn odd_names_give_errors_not_panics() {
    for name in [
        ":",
        "::",
        "openssl:",
        ":aes-256-gcm",
        "openssl:aes-256-gcm:",
        " openssl:aes-256-gcm",
        "ö:ü",
    ] {
        let e = lookup(name).expect_err(name);
        assert_lists_valid_names(&e.to_string());
    }
}

/// Only in builds without the `openssl` feature, e.g.
/// `cargo test -p encbench-registry --no-default-features --features rustcrypto`.
#[cfg(not(feature = "openssl"))]
#[test]
fn a_backend_not_compiled_in_names_its_feature() {
    let message = assert_not_compiled_in("openssl:aes-256-gcm", "openssl", "openssl").to_string();
    assert_lists_valid_names(&message);
    assert!(!backends().contains(&"openssl"));
}

/// Asserts that `name` is refused as not compiled in, naming `backend` and the
/// cargo feature that adds it; returns the error for further checks.
#[cfg(not(all(
    feature = "aws-lc-rs",
    feature = "openssl",
    feature = "ring",
    feature = "rustcrypto"
)))]
fn assert_not_compiled_in(name: &str, backend: &str, feature: &str) -> RegistryError {
    let e = lookup(name).expect_err("not compiled in");
    assert!(
        matches!(&e, RegistryError::NotCompiledIn { backend: b, feature: f, .. } if *b == backend && *f == feature),
        "{e:?}"
    );
    assert!(
        e.to_string().contains(&format!("--features {feature}")),
        "{e}"
    );
    e
}

/// Only in builds without the `rustcrypto` feature.
#[cfg(not(feature = "rustcrypto"))]
#[test]
fn rustcrypto_not_compiled_in_names_its_feature() {
    assert_not_compiled_in("rustcrypto:aes-128-gcm", "rustcrypto", "rustcrypto");
}

/// Only in builds without the `ring` feature.
#[cfg(not(feature = "ring"))]
#[test]
fn ring_not_compiled_in_names_its_feature() {
    assert_not_compiled_in("ring:aes-256-gcm", "ring", "ring");
}

/// Only in builds without the `aws-lc-rs` feature.
#[cfg(not(feature = "aws-lc-rs"))]
#[test]
fn aws_lc_rs_not_compiled_in_names_its_feature() {
    assert_not_compiled_in("aws-lc-rs:aes-256-gcm", "aws-lc-rs", "aws-lc-rs");
}
