//! What the fuzz targets share: fixed keys and keyrings, the envelope AAD
//! written out from its documented layout (an independent oracle, not the
//! library's own builder), and a reader that hands out input bytes.
//!
//! Nothing here is random: the keys are fixed, so a crash input reproduces
//! exactly (`cargo fuzz run TARGET INPUT`).

use encbench_crypto::envelope::{
    ColumnCipher, DETERMINISTIC_VERSION, DeterministicColumnCipher, HEADER_LEN, Location, VERSION,
};
use std::sync::{Arc, OnceLock};

use encbench_crypto::{Algorithm, Descriptor, DeterministicDescriptor, Key, KeyId, Keyring};

/// The key ids every fixed keyring holds; the highest (7) is active.
pub const KEY_IDS: [KeyId; 2] = [1, 7];

/// The fixed key of `id` for `algorithm`: `key_len` bytes, each `id * 0x11`
/// (so key 1 is `11 11 ...`, key 7 is `77 77 ...`).
pub fn fixed_key(algorithm: Algorithm, id: KeyId) -> Key {
    Key::from_bytes(&vec![(id as u8).wrapping_mul(0x11); algorithm.key_len()])
}

/// Hands out the input's bytes front to back; past the end, zeros (so every
/// input, however short, is a valid case).
pub struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    /// Reads `data`.
    pub fn new(data: &'a [u8]) -> Input<'a> {
        Input { data }
    }

    /// The next byte (0 past the end).
    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((b, rest)) => {
                self.data = rest;
                *b
            }
            None => 0,
        }
    }

    /// The next `n` bytes, zero-padded past the end.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let take = n.min(self.data.len());
        let mut out = self.data[..take].to_vec();
        self.data = &self.data[take..];
        out.resize(n, 0);
        out
    }

    /// A big-endian u16.
    pub fn u16(&mut self) -> u16 {
        u16::from_be_bytes([self.byte(), self.byte()])
    }

    /// A big-endian i64.
    pub fn i64(&mut self) -> i64 {
        let b = self.bytes(8);
        i64::from_be_bytes(b.try_into().unwrap_or([0; 8]))
    }

    /// Everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.data)
    }
}

/// The envelope AAD, written from the layout in `encbench_crypto::envelope`'s
/// documentation: `version | key id (BE) | (len (1) | bytes)` per field.
/// `None` when a field is longer than 255 bytes.
pub fn documented_aad(version: u8, key_id: KeyId, fields: &[&[u8]]) -> Option<Vec<u8>> {
    let mut aad = vec![version];
    aad.extend_from_slice(&key_id.to_be_bytes());
    for f in fields {
        aad.push(u8::try_from(f.len()).ok()?);
        aad.extend_from_slice(f);
    }
    Some(aad)
}

/// A randomized-envelope cipher with keys [`KEY_IDS`] of `d` (7 active).
pub fn fixed_cipher(d: &Descriptor) -> ColumnCipher {
    let mut ring =
        Keyring::new(d, KEY_IDS[0], &fixed_key(d.algorithm, KEY_IDS[0])).expect("key setup");
    ring.insert(d, KEY_IDS[1], &fixed_key(d.algorithm, KEY_IDS[1]))
        .expect("key setup");
    assert!(ring.set_active(KEY_IDS[1]));
    ColumnCipher::new(ring)
}

/// A deterministic cipher of `d` holding only key `ids` (the highest active).
pub fn fixed_deterministic(
    d: &DeterministicDescriptor,
    ids: &[KeyId],
) -> DeterministicColumnCipher {
    let keys: Vec<(KeyId, Key)> = ids
        .iter()
        .map(|&id| (id, fixed_key(d.algorithm, id)))
        .collect();
    DeterministicColumnCipher::new(d, &keys).expect("key setup")
}

/// Every compiled-in descriptor (registry order) with its [`fixed_cipher`],
/// keyed once per process (key setup per input would dominate the run).
pub fn ciphers() -> &'static [(&'static Descriptor, Arc<ColumnCipher>)] {
    static CIPHERS: OnceLock<Vec<(&'static Descriptor, Arc<ColumnCipher>)>> = OnceLock::new();
    CIPHERS.get_or_init(|| {
        encbench_registry::all()
            .into_iter()
            .map(|d| (d, Arc::new(fixed_cipher(d))))
            .collect()
    })
}

/// A deterministic descriptor with its ciphers: both keys, and each key alone
/// (in [`KEY_IDS`] order) for re-sealing under one key id.
pub struct DeterministicFixture {
    /// The descriptor.
    pub descriptor: &'static DeterministicDescriptor,
    /// Keys 1 and 7, 7 active.
    pub cipher: Arc<DeterministicColumnCipher>,
    /// Key 1 alone, key 7 alone.
    pub single: [DeterministicColumnCipher; 2],
}

/// Every compiled-in deterministic descriptor with its ciphers, keyed once.
pub fn deterministic_ciphers() -> &'static [DeterministicFixture] {
    static CIPHERS: OnceLock<Vec<DeterministicFixture>> = OnceLock::new();
    CIPHERS.get_or_init(|| {
        encbench_registry::deterministic()
            .into_iter()
            .map(|d| DeterministicFixture {
                descriptor: d,
                cipher: Arc::new(fixed_deterministic(d, &KEY_IDS)),
                single: KEY_IDS.map(|id| fixed_deterministic(d, &[id])),
            })
            .collect()
    })
}

/// Panics unless `stored` is exactly the version 1 envelope of `plaintext` at
/// `loc` under one of the fixed keys of `cipher`: re-seals with that key's
/// AEAD at the envelope's own nonce, with the AAD written from the documented
/// layout, and compares. `what` names the caller.
pub fn assert_sealed_here(
    cipher: &ColumnCipher,
    loc: &Location<'_>,
    stored: &[u8],
    plaintext: &[u8],
    what: &str,
) {
    assert_eq!(
        stored[0], VERSION,
        "{what}: opened a version {} envelope",
        stored[0]
    );
    let key_id = KeyId::from_be_bytes([stored[1], stored[2], stored[3], stored[4]]);
    assert!(
        KEY_IDS.contains(&key_id),
        "{what}: opened under unknown key id {key_id}"
    );
    let aead = cipher.keyring().get(key_id).expect("a fixed key id");
    let nonce_end = HEADER_LEN + aead.algorithm().nonce_len();
    let aad = documented_aad(
        VERSION,
        key_id,
        &[loc.table.as_bytes(), loc.column.as_bytes(), loc.primary_key],
    )
    .expect("fields fit");
    let resealed = aead
        .seal_to_vec(&stored[HEADER_LEN..nonce_end], &aad, plaintext)
        .expect("re-seal");
    assert!(
        resealed == stored[nonce_end..],
        "{what}: {}:{} opened bytes that are not the envelope of their plaintext at this location",
        aead.backend(),
        aead.algorithm()
    );
}

/// Panics unless `stored` is exactly the version 2 envelope of `plaintext` in
/// `table.column` under one of the fixed keys (sealed again with a cipher
/// holding only the envelope's key id: deterministic, so the bytes must be equal).
pub fn assert_deterministic_here(
    f: &DeterministicFixture,
    table: &str,
    column: &str,
    stored: &[u8],
    plaintext: &[u8],
    what: &str,
) {
    assert_eq!(
        stored[0], DETERMINISTIC_VERSION,
        "{what}: opened a version {} envelope",
        stored[0]
    );
    let key_id = KeyId::from_be_bytes([stored[1], stored[2], stored[3], stored[4]]);
    let at = KEY_IDS.iter().position(|&k| k == key_id);
    let at = at.unwrap_or_else(|| panic!("{what}: opened under unknown key id {key_id}"));
    let mut resealed = Vec::new();
    f.single[at]
        .seal(table, column, plaintext, &mut resealed)
        .expect("re-seal");
    assert!(
        resealed == stored,
        "{what}: {} opened bytes that are not the deterministic envelope of their plaintext",
        f.descriptor.name()
    );
}

/// The descriptors of `algorithm`, one per compiled-in backend.
pub fn backends_of(algorithm: Algorithm) -> Vec<&'static Descriptor> {
    encbench_registry::all()
        .into_iter()
        .filter(|d| d.algorithm == algorithm)
        .collect()
}

/// Whether `backend` can seal an empty plaintext of `algorithm` (OpenSSL
/// 3.0's AES-SIV cannot: a typed error, tested in
/// crypto-backends/registry/tests/negative.rs).
pub fn seals_empty(backend: &str, algorithm: Algorithm) -> bool {
    !(backend == "openssl" && algorithm == Algorithm::Aes256Siv)
}
