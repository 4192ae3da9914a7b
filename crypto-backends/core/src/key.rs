//! Key material and keyrings.

use std::fmt;

use zeroize::Zeroizing;

use crate::{Aead, Descriptor, Error};

/// A key id as stored in the column envelope: 32 bits, big-endian on disk.
/// It names a key in a [`Keyring`]; it is not secret.
pub type KeyId = u32;

/// Refuses a key file that its group or other users may read or write (any of
/// the mode bits `0o077`), as ssh refuses such a private key; the message
/// gives the `chmod` to run. A file that cannot be examined passes: reading it
/// ([`read_key_file`]) names the OS error.
///
/// # Errors
/// [`Error::KeySource`] naming the path and its mode.
pub fn check_private_file(path: &std::path::Path) -> Result<(), Error> {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(());
    };
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(Error::KeySource(format!(
            "key file {} is open to other users (mode {mode:04o}): run `chmod 600 {}`",
            path.display(),
            path.display()
        )));
    }
    Ok(())
}

/// Reads the key file at `path` and parses its text with `parse`, then refuses the file
/// when its group or others may read or write it ([`check_private_file`]). Parsed
/// first: a file that holds no key (e.g. /etc/passwd given by mistake) is named as
/// such, not told to `chmod 600`. The file's text is zeroized after parsing. Used by
/// [`Key::from_hex_file`] and by oltp's key files (`ID;HEX` lines).
///
/// # Errors
/// `unreadable`'s error when the file cannot be read, `parse`'s error, then
/// [`Error::KeySource`] (into `E`) from [`check_private_file`].
pub fn read_key_file<T, E: From<Error>>(
    path: &std::path::Path,
    unreadable: impl FnOnce(std::io::Error) -> E,
    parse: impl FnOnce(&str) -> Result<T, E>,
) -> Result<T, E> {
    let text = read_bounded(path).map_err(unreadable)?;
    let parsed = parse(&text)?;
    check_private_file(path)?;
    Ok(parsed)
}

/// The most a key file may hold, in bytes: 64 KiB, thousands of keys' worth of
/// hex lines (as the column codec's key files are capped).
pub const MAX_KEY_FILE_BYTES: u64 = 64 * 1024;

/// The text of the regular file at `path`, at most [`MAX_KEY_FILE_BYTES`]:
/// anything else (a FIFO, a device such as /dev/zero, a larger file) is an
/// error, never a read without end. Zeroized when dropped.
fn read_bounded(path: &std::path::Path) -> std::io::Result<Zeroizing<String>> {
    use std::io::{Error as IoError, ErrorKind, Read};
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(IoError::new(ErrorKind::InvalidInput, "not a regular file"));
    }
    let mut bytes = Zeroizing::new(Vec::new());
    std::fs::File::open(path)?
        .take(MAX_KEY_FILE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_KEY_FILE_BYTES {
        return Err(IoError::new(
            ErrorKind::InvalidData,
            format!("larger than {} KiB", MAX_KEY_FILE_BYTES / 1024),
        ));
    }
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| IoError::new(ErrorKind::InvalidData, "not UTF-8 text"))?;
    Ok(Zeroizing::new(text.to_string()))
}

/// Secret key bytes, zeroized on drop. `Debug` prints the length only.
#[derive(Clone)]
pub struct Key(Zeroizing<Vec<u8>>);

impl Key {
    /// Wraps raw key bytes.
    pub fn from_bytes(bytes: &[u8]) -> Key {
        Key(Zeroizing::new(bytes.to_vec()))
    }

    /// Parses a key from hexadecimal text (surrounding whitespace ignored).
    ///
    /// # Errors
    /// [`Error::KeyHex`] when the text is not an even number of hex digits.
    pub fn from_hex(text: &str) -> Result<Key, Error> {
        let bytes = hex::decode(text.trim()).map_err(|_| Error::KeyHex)?;
        Ok(Key(Zeroizing::new(bytes)))
    }

    /// Reads a key from a file holding it as hex text (surrounding whitespace,
    /// such as a final newline, ignored). The file's bytes are zeroized after parsing.
    ///
    /// # Errors
    /// [`Error::KeySource`] when the file cannot be read (the message names the path
    /// and the OS error) or, holding a key, is open to group or others
    /// ([`check_private_file`]); [`Error::KeyHex`] when its text is not hex (checked
    /// first, so a file that is no key file is not told to `chmod`).
    pub fn from_hex_file(path: &std::path::Path) -> Result<Key, Error> {
        let unreadable = |e| {
            Error::KeySource(format!(
                "cannot read key file {}: {e}; give a readable file holding the key as hex",
                path.display()
            ))
        };
        read_key_file(path, unreadable, Key::from_hex)
    }

    /// Reads a key from the environment variable `name`, holding it as hex text.
    ///
    /// # Errors
    /// [`Error::KeySource`] when the variable is unset or not UTF-8;
    /// [`Error::KeyHex`] when its value is not hex.
    pub fn from_env(name: &str) -> Result<Key, Error> {
        let text = Zeroizing::new(std::env::var(name).map_err(|e| {
            Error::KeySource(format!(
                "environment variable {name}: {e}; export {name} with the key as hex"
            ))
        })?);
        Key::from_hex(&text)
    }

    /// Reads a key from a source spelled as on a command line: `hex:0011...`,
    /// `file:PATH` (hex text in a file) or `env:VAR` (hex text in a variable).
    ///
    /// # Errors
    /// [`Error::KeySource`] for an unknown prefix or an unreadable source;
    /// [`Error::KeyHex`] when the key text is not hex.
    pub fn from_source(spec: &str) -> Result<Key, Error> {
        match spec.split_once(':') {
            Some(("hex", text)) => Key::from_hex(text),
            Some(("file", path)) => Key::from_hex_file(std::path::Path::new(path)),
            Some(("env", name)) => Key::from_env(name),
            _ => Err(Error::KeySource(
                "key source must be hex:HEX, file:PATH or env:VAR".to_owned(),
            )),
        }
    }

    /// A fresh random key of `len` bytes from the operating system's CSPRNG.
    ///
    /// # Errors
    /// [`Error::Rng`] when randomness is unavailable.
    pub fn generate(len: usize) -> Result<Key, Error> {
        let mut bytes = Zeroizing::new(vec![0u8; len]);
        getrandom::fill(&mut bytes).map_err(|_| Error::Rng)?;
        Ok(Key(bytes))
    }

    /// The key as lowercase hex (for writing a key file; never log it).
    pub fn to_hex(&self) -> Zeroizing<String> {
        Zeroizing::new(hex::encode(&*self.0))
    }

    /// The raw key bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// Key length in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the key is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key {{ len: {}, bytes: <redacted> }}", self.0.len())
    }
}

/// Keys set up for one algorithm and backend, by key id, with one active key for
/// sealing. Values sealed under an older key id still open after rotation.
pub struct Keyring {
    active: KeyId,
    keys: Vec<(KeyId, Box<dyn Aead>)>,
}

impl Keyring {
    /// A keyring holding one key, `id`, which is also the active key.
    ///
    /// # Errors
    /// As [`Descriptor::new_key`].
    pub fn new(descriptor: &Descriptor, id: KeyId, key: &Key) -> Result<Keyring, Error> {
        Ok(Keyring {
            active: id,
            keys: vec![(id, descriptor.new_key(key.as_bytes())?)],
        })
    }

    /// Adds (or replaces) key `id`, set up with `descriptor`'s backend. The
    /// active key does not change.
    ///
    /// # Errors
    /// As [`Descriptor::new_key`].
    pub fn insert(&mut self, descriptor: &Descriptor, id: KeyId, key: &Key) -> Result<(), Error> {
        let aead = descriptor.new_key(key.as_bytes())?;
        match self.keys.iter_mut().find(|(k, _)| *k == id) {
            Some(slot) => slot.1 = aead,
            None => self.keys.push((id, aead)),
        }
        Ok(())
    }

    /// Makes `id` the key new values are sealed under. Returns `false` (and
    /// changes nothing) when the keyring has no such key.
    pub fn set_active(&mut self, id: KeyId) -> bool {
        let known = self.get(id).is_some();
        if known {
            self.active = id;
        }
        known
    }

    /// The active key id and its AEAD.
    pub fn active(&self) -> (KeyId, &dyn Aead) {
        let aead = self
            .get(self.active)
            .expect("the active key id is always present in the keyring");
        (self.active, aead)
    }

    /// The AEAD for key `id`, if the keyring holds it.
    pub fn get(&self, id: KeyId) -> Option<&dyn Aead> {
        self.keys
            .iter()
            .find(|(k, _)| *k == id)
            .map(|(_, a)| a.as_ref())
    }

    /// The key ids held, in insertion order.
    pub fn ids(&self) -> impl Iterator<Item = KeyId> + '_ {
        self.keys.iter().map(|(k, _)| *k)
    }
}

impl fmt::Debug for Keyring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Keyring")
            .field("active", &self.active)
            .field("ids", &self.ids().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::{Key, MAX_KEY_FILE_BYTES};

    fn message(path: &std::path::Path) -> String {
        Key::from_hex_file(path).expect_err("refused").to_string()
    }

    #[test]
    fn a_key_file_that_is_no_regular_file_or_too_large_is_refused_without_reading_it_all() {
        assert!(message(std::path::Path::new("/dev/zero")).contains("not a regular file"));
        let dir = std::env::temp_dir().join(format!("encbench-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let fifo = dir.join("fifo");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo (coreutils)");
        assert!(message(&fifo).contains("not a regular file"));
        let big = dir.join("big");
        std::fs::write(&big, vec![b'0'; MAX_KEY_FILE_BYTES as usize + 2]).expect("write");
        assert!(
            message(&big).contains("larger than 64 KiB"),
            "{}",
            message(&big)
        );
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
