//! The key file parser (MariaDB `file_key_management`'s `ID;HEX` lines,
//! `oltp::columns::keys::parse_key_file`) and every `Key::from_source` form
//! (`hex:`, `file:`, `env:`) on arbitrary text.
//!
//! - Never a panic.
//! - An accepted key file: ids sorted and unique, every key of the
//!   algorithm's length, and writing it back as `ID;HEX` parses to the same.
//! - `hex:`, `file:` (the text in a file) and `env:` (the text in a
//!   variable) agree with each other and with `hex::decode` of the trimmed text.
//! - Key hygiene: no error message (Display or Debug) holds a run of 12 or
//!   more hex digits of the input's text (a key id has at most 10 digits).
//!
//! Input: selector (algorithm; 0x80: the source forms too; 0x40: `file:` as
//! well), then the text.
#![no_main]

use std::io::Write;
use std::sync::OnceLock;

use encbench_crypto::{Algorithm, Key};
use encbench_oltp::columns::keys::parse_key_file;
use libfuzzer_sys::fuzz_target;

/// The variable `env:` reads (set by this target, single-threaded).
const VAR: &str = "ENCBENCH_FUZZ_KEY";

fuzz_target!(|data: &[u8]| {
    let Some((&selector, text)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let algorithm = Algorithm::ALL[usize::from(selector) % Algorithm::ALL.len()];
    key_file(text, algorithm);
    if selector & 0x80 != 0 {
        // The file form writes a file: only for a quarter of the inputs.
        sources(text, selector & 0x40 != 0);
    }
});

fn key_file(text: &str, algorithm: Algorithm) {
    // Every line is secret: a key may sit on either side of the ';' (a
    // HEX;ID line), and no message may echo 12+ hex digits of any of it.
    let secret: Vec<&str> = text.lines().collect();
    let public: Vec<&str> = Vec::new();
    match parse_key_file(text, "fuzz.keys", algorithm) {
        Ok(keys) => {
            assert!(!keys.is_empty(), "an accepted key file without a key");
            assert!(
                keys.windows(2).all(|w| w[0].0 < w[1].0),
                "ids not sorted and unique"
            );
            assert!(
                keys.iter().all(|(_, k)| k.len() == algorithm.key_len()),
                "a key of the wrong length"
            );
            let written: String = keys
                .iter()
                .map(|(id, k)| format!("{id};{}\n", k.to_hex().as_str()))
                .collect();
            let again = parse_key_file(&written, "fuzz.keys", algorithm)
                .expect("a written key file parses");
            assert!(
                again.len() == keys.len()
                    && again
                        .iter()
                        .zip(&keys)
                        .all(|(a, b)| a.0 == b.0 && a.1.as_bytes() == b.1.as_bytes()),
                "the key file changed through writing it back"
            );
        }
        Err(e) => {
            no_secret_in(&format!("{e:#}"), &secret, &public);
            no_secret_in(&format!("{e:?}"), &secret, &public);
        }
    }
}

fn sources(text: &str, file_too: bool) {
    let expected = hex::decode(text.trim()).ok();
    let hex_form = Key::from_source(&format!("hex:{text}"));
    check_form("hex:", &hex_form, &expected, text);
    if file_too {
        let file_form = Key::from_source(&format!("file:{}", key_path(text).display()));
        check_form("file:", &file_form, &expected, text);
    }
    if !text.contains('\0') {
        // SAFETY: libFuzzer runs this target on one thread; nothing else
        // reads or writes the environment meanwhile.
        unsafe { std::env::set_var(VAR, text) };
        check_form(
            "env:",
            &Key::from_source(&format!("env:{VAR}")),
            &expected,
            text,
        );
    }
    // The variable's name itself from the input: unset, or not a valid name.
    if let Err(e) = Key::from_source(&format!("env:{text}")) {
        let _ = e.to_string();
    }
    // Any other form (never file: with a path from the input: /dev/zero would
    // never end, and the target must not read the machine's files).
    if !text.starts_with("file:") {
        if let Err(e) = Key::from_source(text) {
            let _ = e.to_string();
        }
    }
}

fn check_form(
    form: &str,
    got: &Result<Key, encbench_crypto::Error>,
    expected: &Option<Vec<u8>>,
    text: &str,
) {
    match (got, expected) {
        (Ok(k), Some(e)) => assert!(
            k.as_bytes() == &e[..],
            "{form} parsed other bytes than hex::decode"
        ),
        (Err(e), None) => {
            no_secret_in(&e.to_string(), &[text], &[]);
            no_secret_in(&format!("{e:?}"), &[text], &[]);
        }
        (Ok(_), None) => panic!("{form} accepted text hex::decode refuses"),
        (Err(e), Some(_)) => panic!("{form} refused valid hex: {e}"),
    }
}

/// The file `file:` reads, rewritten with `text` (one path per process).
fn key_path(text: &str) -> &'static std::path::Path {
    static PATH: OnceLock<std::path::PathBuf> = OnceLock::new();
    let path = PATH.get_or_init(|| {
        std::env::temp_dir().join(format!("encbench-fuzz-key-{}", std::process::id()))
    });
    // 0600: a key file open to others is refused (Key::from_hex_file).
    let mut f = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(path)
            .expect("temporary key file")
    };
    f.write_all(text.as_bytes())
        .expect("write temporary key file");
    path
}

/// Panics when `message` holds a run of 12+ hex digits of a `secret` text
/// that is not also in a `public` text.
fn no_secret_in(message: &str, secret: &[&str], public: &[&str]) {
    for s in secret {
        for run in s
            .split(|c: char| !c.is_ascii_hexdigit())
            .filter(|r| r.len() >= 12)
        {
            if message.contains(run) && !public.iter().any(|p| p.contains(run)) {
                panic!("an error message holds key text: {message}");
            }
        }
    }
}
