//! A stream wrapper that counts what goes on the wire: bytes, write calls, and
//! (for TLS) whole records, read from the 5-byte record headers of the bytes
//! written (RFC 8446 §5.1: type, legacy version, 16-bit length).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Shared counters of one [`Counting`] stream; read them from any task.
#[derive(Debug, Default)]
pub struct Counters {
    written: AtomicU64,
    writes: AtomicU64,
    records: AtomicU64,
    read: AtomicU64,
}

/// A snapshot of [`Counters`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Bytes written to the socket.
    pub written: u64,
    /// Successful write calls on the socket.
    pub writes: u64,
    /// TLS records whose header was written (0 when not parsing records).
    pub records: u64,
    /// Bytes read from the socket.
    pub read: u64,
}

impl Counters {
    /// The current values.
    pub fn get(&self) -> Counts {
        Counts {
            written: self.written.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
            records: self.records.load(Ordering::Relaxed),
            read: self.read.load(Ordering::Relaxed),
        }
    }
}

impl Counts {
    /// What happened between `earlier` and `self`.
    pub fn since(self, earlier: Counts) -> Counts {
        Counts {
            written: self.written - earlier.written,
            writes: self.writes - earlier.writes,
            records: self.records - earlier.records,
            read: self.read - earlier.read,
        }
    }
}

/// Wraps a stream, counting bytes and calls; with `parse_records`, also the TLS
/// records in the written bytes.
#[derive(Debug)]
pub struct Counting<S> {
    inner: S,
    counters: Arc<Counters>,
    parse_records: bool,
    header: [u8; 5],
    header_len: usize,
    body_left: usize,
}

impl<S> Counting<S> {
    /// Wraps `inner`; the returned counters stay readable after the stream moves.
    pub fn new(inner: S, parse_records: bool) -> (Self, Arc<Counters>) {
        let counters = Arc::new(Counters::default());
        (
            Counting {
                inner,
                counters: counters.clone(),
                parse_records,
                header: [0; 5],
                header_len: 0,
                body_left: 0,
            },
            counters,
        )
    }

    fn scan(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.body_left > 0 {
                let n = self.body_left.min(bytes.len());
                self.body_left -= n;
                bytes = &bytes[n..];
                continue;
            }
            let n = (5 - self.header_len).min(bytes.len());
            self.header[self.header_len..self.header_len + n].copy_from_slice(&bytes[..n]);
            self.header_len += n;
            bytes = &bytes[n..];
            if self.header_len == 5 {
                self.body_left = usize::from(u16::from_be_bytes([self.header[3], self.header[4]]));
                self.header_len = 0;
                self.counters.records.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Counting<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = r {
            let n = (buf.filled().len() - before) as u64;
            self.counters.read.fetch_add(n, Ordering::Relaxed);
        }
        r
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counting<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = r {
            self.counters.written.fetch_add(n as u64, Ordering::Relaxed);
            self.counters.writes.fetch_add(1, Ordering::Relaxed);
            if self.parse_records {
                self.scan(&buf[..n]);
            }
        }
        r
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
