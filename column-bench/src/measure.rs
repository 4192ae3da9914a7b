//! The measurement: the per-value path of a decrypting proxy, timed.
//!
//! The timed code is the column codec's per-value path, the code `oltp` runs per
//! row: [`Codec::open_column_in_place`] (envelope header parse, AAD from the
//! column's prefix and the primary key, AEAD open, plaintext moved to the front
//! of the driver's buffer) on envelopes sealed by [`Codec::seal_column`], with
//! the codec's cipher keyed by [`keys::cipher_from_keys`] (what a key file
//! becomes) from a registry [`Descriptor`]. Variants:
//!
//! - [`KeyMode::Reused`]: one key set up once and shared by every worker (a proxy);
//!   [`KeyMode::PerValue`]: the key schedule (`Descriptor::new_key`) runs for every
//!   value before it is opened, as products with a data key per value do (the
//!   unwrapping of that data key is not included): a codec built per value.
//! - [`PathKind::Envelope`]: the whole per-value path above; [`PathKind::Bare`]:
//!   only `Aead::open_in_place` (the detached call for length-preserving algorithms)
//!   on the same nonce, AAD, ciphertext and tag
//!   (the codec's AAD bytes, [`TableColumn::aad`], built beforehand), so the
//!   difference is the envelope's own cost.
//! - batches: `batch_rows` values of a result set opened as one unit by
//!   `open_batch` (a loop over the per-value call).
//!
//! How a point is timed: a corpus of `corpus_rows` sealed values is copied into
//! working buffers (not timed, allocations reused), then one *sample* times the
//! opening of all of them with [`Instant`]; samples repeat for the measurement
//! time after a warm-up. The sample's time divided by its values is one
//! ns-per-value observation; a point reports the median and the 10th/90th
//! percentiles of its observations. With several threads every thread runs the
//! same loop on its own buffers, sharing one cipher, started together.

use std::hint::black_box;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use crate::error::{Error, Result, invalid};
use encbench_columns::{Codec, TableColumn, keys};
use encbench_registry::{Aead, ColumnCipher, Descriptor, Key, KeyId};
use serde::Serialize;

use crate::shape::{Column, plaintexts};

/// The key id every measured value is sealed under.
pub const KEY_ID: KeyId = 1;

/// How the key is set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyMode {
    /// One key schedule, shared by every value and thread (an encrypting proxy).
    Reused,
    /// The key schedule runs for every value (a data key per value).
    PerValue,
}

impl KeyMode {
    /// `reused` or `per_value`.
    pub fn name(self) -> &'static str {
        match self {
            KeyMode::Reused => "reused",
            KeyMode::PerValue => "per_value",
        }
    }
}

/// What is inside the timed call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathKind {
    /// The whole envelope path: header parse, key lookup, AAD build, AEAD, move.
    Envelope,
    /// The AEAD call alone on the same bytes (AAD built beforehand).
    Bare,
}

impl PathKind {
    /// `envelope` or `bare`.
    pub fn name(self) -> &'static str {
        match self {
            PathKind::Envelope => "envelope",
            PathKind::Bare => "bare",
        }
    }
}

/// Open (decrypt, the proxy's read path) or seal (encrypt, its write path).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// Authenticate and decrypt.
    Open,
    /// Encrypt with a fresh random nonce (envelope) or a precomputed nonce (bare).
    Seal,
}

impl Operation {
    /// `open` or `seal`.
    pub fn name(self) -> &'static str {
        match self {
            Operation::Open => "open",
            Operation::Seal => "seal",
        }
    }
}

/// One measured configuration, applied to one backend and one column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    /// Open or seal.
    pub operation: Operation,
    /// Key set up once or per value.
    pub key_mode: KeyMode,
    /// Envelope path or bare AEAD.
    pub path: PathKind,
    /// Values opened as one unit (a result set of this many rows).
    pub batch_rows: usize,
    /// Worker threads running at once.
    pub threads: usize,
}

/// Warm-up and measurement times of one point.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Timing {
    /// Warm-up per point before samples are kept, ms.
    pub warmup_ms: u64,
    /// Measurement time per point, ms.
    pub measure_ms: u64,
    /// Values in the corpus, i.e. per sample.
    pub corpus_rows: usize,
}

impl Timing {
    /// column-bench's defaults (`--warmup-ms 30 --measure-ms 150 --corpus-rows 1000`).
    pub const DEFAULT: Timing = Timing {
        warmup_ms: 30,
        measure_ms: 150,
        corpus_rows: 1000,
    };
}

/// The observations of one point.
#[derive(Clone, Debug, Default)]
pub struct Observations {
    /// ns per value, one per sample, across all threads.
    pub ns_per_value: Vec<f64>,
    /// Values processed in the kept samples.
    pub values: u64,
}

impl Observations {
    /// Adds another round's or thread's observations.
    pub fn merge(&mut self, other: Observations) {
        self.ns_per_value.extend(other.ns_per_value);
        self.values += other.values;
    }

    /// The `q` quantile (0..=1) of the ns-per-value observations (nearest rank);
    /// `NaN` without observations.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.ns_per_value.is_empty() {
            return f64::NAN;
        }
        let mut v = self.ns_per_value.clone();
        v.sort_by(f64::total_cmp);
        let idx = ((v.len() - 1) as f64 * q).round() as usize;
        v[idx.min(v.len() - 1)]
    }
}

/// One column's values for one backend: plaintexts, their envelopes, and what
/// the bare path needs (the AAD the envelope binds). Value `i` is the row with
/// primary key `i + 1`.
pub struct Corpus {
    descriptor: &'static Descriptor,
    /// The one key, as a key file holds it: `(KEY_ID, key)`.
    keys: Vec<(KeyId, Key)>,
    /// The codec's cipher (the bare path calls its AEAD directly).
    cipher: Arc<ColumnCipher>,
    /// The column codec over `cipher`: what oltp's client seals and opens with.
    codec: Codec,
    /// The table and column, with the column's AAD prefix built once as a
    /// proxy does per result column.
    column: TableColumn,
    plaintexts: Vec<Vec<u8>>,
    envelopes: Vec<Vec<u8>>,
    aads: Vec<Vec<u8>>,
}

impl std::fmt::Debug for Corpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Corpus")
            .field("descriptor", &self.descriptor.name())
            .field("column", &self.column.column())
            .field("values", &self.plaintexts.len())
            .finish_non_exhaustive()
    }
}

/// The primary key of value `i`: rows are numbered from 1, as sysbench's are.
fn id_of(i: usize) -> i64 {
    i as i64 + 1
}

/// The column cipher of the keys `keys` of `descriptor`, set up as the keys of
/// a key file are (`keys::cipher_from_keys`).
fn cipher_from_keys(
    descriptor: &'static Descriptor,
    keys: &[(KeyId, Key)],
) -> Result<ColumnCipher> {
    keys::cipher_from_keys(descriptor, keys, "the generated key").map_err(|source| Error::Codec {
        context: format!("{}: key setup", descriptor.name()),
        source,
    })
}

impl Corpus {
    /// Generates `rows` values of `column`, seals them for `table`, primary keys
    /// 1..=rows, under a fresh random key of `descriptor`.
    ///
    /// # Errors
    /// Key setup or sealing fails (backend error, or a name longer than 255 bytes).
    pub fn new(
        descriptor: &'static Descriptor,
        table: &str,
        column: &Column,
        rows: usize,
    ) -> Result<Corpus> {
        let key = Key::generate(descriptor.algorithm.key_len())
            .map_err(|e| crypto(descriptor, "drawing a random key", e))?;
        let keys = vec![(KEY_ID, key)];
        let cipher = Arc::new(cipher_from_keys(descriptor, &keys)?);
        let codec = Codec::encrypted(Arc::clone(&cipher));
        let plaintexts = plaintexts(column, rows, 0x636f_6c75_6d6e);
        let column = TableColumn::new(table, column.name.as_str())
            .map_err(|e| envelope(descriptor, "building the column's AAD prefix", e))?;
        let mut envelopes = Vec::with_capacity(rows);
        let mut aads = Vec::with_capacity(rows);
        for (i, pt) in plaintexts.iter().enumerate() {
            let mut out = Vec::new();
            codec
                .seal_column(&column, id_of(i), pt, &mut out)
                .map_err(|e| envelope(descriptor, "sealing a value", e))?;
            envelopes.push(out);
            aads.push(
                column
                    .aad(KEY_ID, id_of(i))
                    .map_err(|e| envelope(descriptor, "building a value's AAD", e))?,
            );
        }
        let corpus = Corpus {
            descriptor,
            keys,
            cipher,
            codec,
            column,
            plaintexts,
            envelopes,
            aads,
        };
        corpus.check()?;
        Ok(corpus)
    }

    /// Opens every value once through both paths and compares with the plaintext,
    /// so a point never times a failing call.
    fn check(&self) -> Result<()> {
        let mut w = Worker::new(self);
        for variant in [PathKind::Envelope, PathKind::Bare] {
            w.restore_envelopes(self);
            for i in 0..self.plaintexts.len() {
                match variant {
                    PathKind::Envelope => self.open_envelope(&self.codec, i, &mut w.bufs[i])?,
                    PathKind::Bare => {
                        let aead = self.cipher.keyring().active().1;
                        let len = self.open_bare(aead, i, &mut w.bufs[i])?;
                        let start = encbench_registry::envelope::HEADER_LEN + self.nonce_len();
                        w.bufs[i].copy_within(start..start + len, 0);
                        w.bufs[i].truncate(len);
                    }
                }
                if w.bufs[i] != self.plaintexts[i] {
                    invalid!(
                        "{}: value {i} of column {} opened to other bytes than were sealed",
                        self.descriptor.name(),
                        self.column.column()
                    );
                }
            }
        }
        Ok(())
    }

    /// The stored envelope of value `i` (what the database returns).
    ///
    /// # Panics
    /// `i >= self.len()`.
    pub fn envelope(&self, i: usize) -> &[u8] {
        &self.envelopes[i]
    }

    /// The plaintext of value `i`.
    ///
    /// # Panics
    /// `i >= self.len()`.
    pub fn plaintext(&self, i: usize) -> &[u8] {
        &self.plaintexts[i]
    }

    /// Opens value `i`, held as an envelope in `buf`, in place through the
    /// proxy's path (key reused, envelope): the call every timed open makes.
    ///
    /// # Errors
    /// The value does not open (wrong bytes in `buf`).
    ///
    /// # Panics
    /// `i >= self.len()`.
    pub fn open_value(&self, i: usize, buf: &mut Vec<u8>) -> Result<()> {
        self.open_envelope(&self.codec, i, buf)
    }

    /// The AEAD call alone on value `i` (nonce, AAD, ciphertext and tag of its
    /// envelope in `buf`), in place; the plaintext is left between the nonce and tag.
    ///
    /// # Errors
    /// The value does not open.
    ///
    /// # Panics
    /// `i >= self.len()`.
    pub fn open_value_bare(&self, i: usize, buf: &mut [u8]) -> Result<()> {
        self.open_bare(self.cipher.keyring().active().1, i, buf)
            .map(|_| ())
    }

    /// Values in the corpus.
    pub fn len(&self) -> usize {
        self.plaintexts.len()
    }

    /// Whether the corpus is empty.
    pub fn is_empty(&self) -> bool {
        self.plaintexts.is_empty()
    }

    /// Mean plaintext length, bytes.
    pub fn mean_value_bytes(&self) -> f64 {
        if self.plaintexts.is_empty() {
            return 0.0;
        }
        self.plaintexts.iter().map(Vec::len).sum::<usize>() as f64 / self.plaintexts.len() as f64
    }

    fn nonce_len(&self) -> usize {
        self.descriptor.algorithm.nonce_len()
    }

    /// The envelope path: the column codec's open of value `i`, the call
    /// `oltp`'s client and a decrypting proxy make per value.
    fn open_envelope(&self, codec: &Codec, i: usize, buf: &mut Vec<u8>) -> Result<()> {
        codec
            .open_column_in_place(&self.column, id_of(i), buf)
            .map_err(|source| Error::Envelope {
                context: format!("{}: opening value {i}", self.descriptor.name()),
                source,
            })
    }

    /// The bare AEAD call on the envelope's nonce, ciphertext and tag, in place;
    /// returns the plaintext length (the plaintext starts after the nonce).
    fn open_bare(&self, aead: &dyn Aead, i: usize, buf: &mut [u8]) -> Result<usize> {
        let hdr = encbench_registry::envelope::HEADER_LEN;
        let nonce_end = hdr + self.nonce_len();
        let (header_nonce, sealed) = buf.split_at_mut(nonce_end);
        // `open_in_place` is the detached call for length-preserving algorithms and
        // the padded path for AES-256-CBC-HMAC-SHA256.
        aead.open_in_place(&header_nonce[hdr..], &self.aads[i], sealed)
            .map(|plaintext| plaintext.len())
            .map_err(|source| crypto(self.descriptor, "opening a value", source))
    }
}

/// [`Error::Crypto`] for `d` while doing `what`.
fn crypto(d: &Descriptor, what: &str, source: encbench_registry::Error) -> Error {
    Error::Crypto {
        context: format!("{}: {what}", d.name()),
        source,
    }
}

/// [`Error::Envelope`] for `d` while doing `what`.
fn envelope(d: &Descriptor, what: &str, source: encbench_registry::EnvelopeError) -> Error {
    Error::Envelope {
        context: format!("{}: {what}", d.name()),
        source,
    }
}

/// One thread's working buffers.
struct Worker {
    bufs: Vec<Vec<u8>>,
    tags: Vec<Vec<u8>>,
}

impl Worker {
    fn new(corpus: &Corpus) -> Worker {
        let cap = corpus
            .envelopes
            .iter()
            .map(Vec::len)
            .max()
            .unwrap_or(0)
            .max(1);
        Worker {
            bufs: (0..corpus.len()).map(|_| Vec::with_capacity(cap)).collect(),
            tags: (0..corpus.len())
                .map(|_| vec![0u8; corpus.descriptor.algorithm.tag_len()])
                .collect(),
        }
    }

    fn restore_envelopes(&mut self, corpus: &Corpus) {
        for (b, e) in self.bufs.iter_mut().zip(&corpus.envelopes) {
            b.clear();
            b.extend_from_slice(e);
        }
    }

    fn restore_plaintexts(&mut self, corpus: &Corpus) {
        for (b, p) in self.bufs.iter_mut().zip(&corpus.plaintexts) {
            b.clear();
            b.extend_from_slice(p);
        }
    }
}

/// Opens the values `first..first + bufs.len()` of a result set as one unit,
/// through the envelope path with the shared codec.
///
/// This is the one place a batch is opened. The envelope has no batch form (each
/// value carries its own key id, nonce and AAD), so a batch is the per-value
/// envelope open, N times in one timed unit.
///
/// # Errors
/// The first value that does not open.
fn open_batch(corpus: &Corpus, codec: &Codec, first: usize, bufs: &mut [Vec<u8>]) -> Result<()> {
    for (j, buf) in bufs.iter_mut().enumerate() {
        corpus.open_envelope(codec, first + j, buf)?;
    }
    Ok(())
}

/// Runs one sample (every value of the corpus once) and returns its duration.
fn sample(corpus: &Corpus, v: &Variant, w: &mut Worker) -> Result<Duration> {
    let n = corpus.len();
    match v.operation {
        Operation::Open => w.restore_envelopes(corpus),
        Operation::Seal => w.restore_plaintexts(corpus),
    }
    let start = Instant::now();
    match (v.operation, v.key_mode, v.path) {
        (Operation::Open, KeyMode::Reused, PathKind::Envelope) => {
            let mut first = 0;
            for chunk in w.bufs.chunks_mut(v.batch_rows.max(1)) {
                open_batch(corpus, &corpus.codec, first, chunk)?;
                first += chunk.len();
            }
        }
        (Operation::Open, KeyMode::Reused, PathKind::Bare) => {
            let aead = corpus.cipher.keyring().active().1;
            for (i, buf) in w.bufs.iter_mut().enumerate() {
                corpus.open_bare(aead, i, buf)?;
            }
        }
        (Operation::Open, KeyMode::PerValue, PathKind::Envelope) => {
            for (i, buf) in w.bufs.iter_mut().enumerate() {
                let codec =
                    Codec::encrypted(Arc::new(cipher_from_keys(corpus.descriptor, &corpus.keys)?));
                corpus.open_envelope(&codec, i, buf)?;
            }
        }
        (Operation::Open, KeyMode::PerValue, PathKind::Bare) => {
            for (i, buf) in w.bufs.iter_mut().enumerate() {
                let aead = corpus
                    .descriptor
                    .new_key(corpus.keys[0].1.as_bytes())
                    .map_err(|e| crypto(corpus.descriptor, "key setup", e))?;
                corpus.open_bare(aead.as_ref(), i, buf)?;
            }
        }
        (Operation::Seal, KeyMode::Reused, PathKind::Envelope) => {
            for (i, buf) in w.bufs.iter_mut().enumerate() {
                corpus
                    .codec
                    .seal_column(
                        &corpus.column,
                        id_of(i),
                        black_box(&corpus.plaintexts[i]),
                        buf,
                    )
                    .map_err(|e| envelope(corpus.descriptor, "sealing a value", e))?;
            }
        }
        (Operation::Seal, KeyMode::PerValue, PathKind::Envelope) => {
            for (i, buf) in w.bufs.iter_mut().enumerate() {
                let codec =
                    Codec::encrypted(Arc::new(cipher_from_keys(corpus.descriptor, &corpus.keys)?));
                codec
                    .seal_column(
                        &corpus.column,
                        id_of(i),
                        black_box(&corpus.plaintexts[i]),
                        buf,
                    )
                    .map_err(|e| envelope(corpus.descriptor, "sealing a value", e))?;
            }
        }
        (Operation::Seal, key_mode, PathKind::Bare) => {
            // The envelope's nonce of the same value: a nonce repeats under this
            // throwaway benchmark key, whose output is discarded.
            let hdr = encbench_registry::envelope::HEADER_LEN;
            let nonce_end = hdr + corpus.nonce_len();
            let shared = corpus.cipher.keyring().active().1;
            for (i, (buf, tag)) in w.bufs.iter_mut().zip(w.tags.iter_mut()).enumerate() {
                let nonce = &corpus.envelopes[i][hdr..nonce_end];
                let owned;
                let aead: &dyn Aead = match key_mode {
                    KeyMode::Reused => shared,
                    KeyMode::PerValue => {
                        owned = corpus
                            .descriptor
                            .new_key(corpus.keys[0].1.as_bytes())
                            .map_err(|e| crypto(corpus.descriptor, "key setup", e))?;
                        owned.as_ref()
                    }
                };
                // The padded CBC algorithm has no detached form: it grows `buf`.
                let sealed = match aead.detached() {
                    Some(detached) => {
                        detached.seal_in_place_detached(nonce, &corpus.aads[i], buf, tag)
                    }
                    None => aead.seal_in_place(nonce, &corpus.aads[i], buf),
                };
                sealed.map_err(|e| crypto(corpus.descriptor, "sealing a value", e))?;
            }
        }
    }
    let elapsed = start.elapsed();
    black_box(&w.bufs);
    debug_assert!(n > 0);
    Ok(elapsed)
}

/// Measures `variant` on `corpus`: warm-up, then samples for the measurement time,
/// on `variant.threads` threads at once.
///
/// # Errors
/// A value fails to open or seal (never expected: the corpus is checked when built).
pub fn measure(corpus: &Corpus, variant: &Variant, timing: &Timing) -> Result<Observations> {
    let threads = variant.threads.max(1);
    let warmup = Duration::from_millis(timing.warmup_ms);
    let span = Duration::from_millis(timing.measure_ms);
    if threads == 1 {
        return run_thread(corpus, variant, warmup, span, None);
    }
    let gate = Barrier::new(threads);
    let results: Vec<Result<Observations>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| s.spawn(|| run_thread(corpus, variant, warmup, span, Some(&gate))))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(Error::ThreadPanicked)))
            .collect()
    });
    let mut all = Observations::default();
    for r in results {
        all.merge(r?);
    }
    Ok(all)
}

fn run_thread(
    corpus: &Corpus,
    variant: &Variant,
    warmup: Duration,
    span: Duration,
    gate: Option<&Barrier>,
) -> Result<Observations> {
    let mut w = Worker::new(corpus);
    if let Some(g) = gate {
        g.wait();
    }
    let t0 = Instant::now();
    while t0.elapsed() < warmup {
        sample(corpus, variant, &mut w)?;
    }
    let mut obs = Observations::default();
    let t1 = Instant::now();
    let n = corpus.len() as f64;
    // At least 5 samples, so a slow variant (per-value key) still has a median.
    while t1.elapsed() < span || obs.ns_per_value.len() < 5 {
        let d = sample(corpus, variant, &mut w)?;
        obs.ns_per_value.push(d.as_nanos() as f64 / n);
        obs.values += corpus.len() as u64;
    }
    Ok(obs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::Shape;

    #[test]
    fn every_variant_runs_on_every_backend_and_gives_positive_times() {
        let shape = Shape::sysbench();
        let timing = Timing {
            warmup_ms: 0,
            measure_ms: 1,
            corpus_rows: 20,
        };
        for d in encbench_registry::all() {
            let corpus = Corpus::new(d, &shape.table, &shape.columns[0], 20).expect("corpus");
            for operation in [Operation::Open, Operation::Seal] {
                for key_mode in [KeyMode::Reused, KeyMode::PerValue] {
                    for path in [PathKind::Envelope, PathKind::Bare] {
                        for (batch_rows, threads) in [(1, 1), (10, 1), (1, 2)] {
                            let v = Variant {
                                operation,
                                key_mode,
                                path,
                                batch_rows,
                                threads,
                            };
                            let obs = measure(&corpus, &v, &timing).expect("measure");
                            assert!(obs.ns_per_value.len() >= 5 * threads, "{v:?}");
                            assert!(obs.quantile(0.5) > 0.0, "{} {v:?}", d.name());
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn aad_rebuilt_for_the_bare_path_matches_the_envelope() {
        // A value sealed by the envelope opens through the bare call with our AAD:
        // Corpus::new checks exactly that for every value and fails otherwise.
        let shape = Shape::parse_columns("x:0-40").expect("shape");
        for d in encbench_registry::all() {
            Corpus::new(d, "t", &shape.columns[0], 50).expect("bare path opens the envelopes");
        }
    }

    /// The corpus's envelopes are the ones oltp's client stores: its codec's
    /// sysbench-column path (`Codec::open_in_place` on a `TableAad`) opens
    /// them at the same ids, and a value moved to another row does not open.
    #[test]
    fn the_envelopes_are_the_ones_oltp_reads() {
        use encbench_columns::{Column as SysbenchColumn, TableAad};
        let shape = Shape::sysbench();
        let table = TableAad::new(shape.table.as_str()).expect("fits");
        let d = encbench_registry::lookup("ring:aes-256-gcm").expect("compiled in");
        for (col, sysbench) in shape
            .columns
            .iter()
            .zip([SysbenchColumn::C, SysbenchColumn::Pad])
        {
            assert_eq!(col.name, sysbench.name());
            let corpus = Corpus::new(d, &shape.table, col, 20).expect("corpus");
            for i in 0..corpus.len() {
                let mut buf = corpus.envelope(i).to_vec();
                corpus
                    .codec
                    .open_in_place(&table, sysbench, id_of(i), &mut buf)
                    .expect("oltp's path opens it");
                assert_eq!(buf, corpus.plaintext(i));
                let mut moved = corpus.envelope(i).to_vec();
                assert!(
                    corpus
                        .codec
                        .open_in_place(&table, sysbench, id_of(i) + 1, &mut moved)
                        .is_err()
                );
            }
        }
    }

    #[test]
    fn quantiles_are_order_statistics() {
        let o = Observations {
            ns_per_value: vec![5.0, 1.0, 3.0, 2.0, 4.0],
            values: 5,
        };
        assert_eq!(o.quantile(0.5), 3.0);
        assert_eq!(o.quantile(0.0), 1.0);
        assert_eq!(o.quantile(1.0), 5.0);
        assert!(Observations::default().quantile(0.5).is_nan());
    }
}
