//! Packet framing: the 4-byte header (3-byte little-endian payload length, 1-byte sequence
//! id), a buffered reader that keeps whole frames in one reused buffer, and a writer.
//!
//! A payload of [`MAX_PAYLOAD`] bytes or more is split into frames of [`MAX_PAYLOAD`] bytes
//! followed by a shorter one (possibly empty): the protocol's 16 MiB split. The reader works
//! on frames (one header each); [`PacketReader::read_packet`] joins the frames of one
//! logical packet when a caller needs the payload whole.

use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};

/// Bytes of a frame header.
pub const HEADER_LEN: usize = 4;
/// The largest payload of one frame, 2^24 - 1 bytes; a frame this long is followed by
/// another frame of the same logical packet.
pub const MAX_PAYLOAD: usize = 0xFF_FFFF;

/// One frame header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Payload length in bytes (at most [`MAX_PAYLOAD`]).
    pub len: usize,
    /// Sequence id.
    pub seq: u8,
}

impl Header {
    /// Reads the header at the start of `bytes` (at least [`HEADER_LEN`] bytes).
    ///
    /// # Panics
    /// `bytes` is shorter than [`HEADER_LEN`].
    pub fn parse(bytes: &[u8]) -> Header {
        Header {
            len: usize::from(bytes[0]) | usize::from(bytes[1]) << 8 | usize::from(bytes[2]) << 16,
            seq: bytes[3],
        }
    }

    /// The 4 header bytes.
    ///
    /// # Panics
    /// `len` is above [`MAX_PAYLOAD`].
    pub fn to_bytes(self) -> [u8; HEADER_LEN] {
        assert!(self.len <= MAX_PAYLOAD, "frame payload above 16 MiB");
        let l = self.len.to_le_bytes();
        [l[0], l[1], l[2], self.seq]
    }

    /// Header plus payload, in bytes.
    pub fn frame_len(self) -> usize {
        HEADER_LEN + self.len
    }
}

/// Appends `payload` to `out` as frames starting at sequence id `seq` (split at
/// [`MAX_PAYLOAD`]); returns the sequence id after the last frame.
pub fn put_frames(out: &mut Vec<u8>, mut seq: u8, payload: &[u8]) -> u8 {
    let mut rest = payload;
    loop {
        let n = rest.len().min(MAX_PAYLOAD);
        out.extend_from_slice(&Header { len: n, seq }.to_bytes());
        out.extend_from_slice(&rest[..n]);
        rest = &rest[n..];
        seq = seq.wrapping_add(1);
        if n < MAX_PAYLOAD {
            return seq;
        }
    }
}

/// Writes `payload` as frames starting at sequence id `seq`, in one write, through the
/// reused buffer `scratch`; returns the sequence id after the last frame.
///
/// # Errors
/// The write fails.
pub async fn write_packet<W: AsyncWrite + Unpin>(
    w: &mut W,
    seq: u8,
    payload: &[u8],
    scratch: &mut Vec<u8>,
) -> std::io::Result<u8> {
    scratch.clear();
    let next = put_frames(scratch, seq, payload);
    w.write_all(scratch).await?;
    Ok(next)
}

/// A buffered reader of frames: bytes read from a stream land in one buffer, reused for the
/// life of the connection; complete frames are looked at in place and consumed.
///
/// The buffer starts at the capacity given and grows only to hold one frame longer than
/// it (at most [`HEADER_LEN`] + [`MAX_PAYLOAD`] bytes).
#[derive(Debug)]
pub struct PacketReader {
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

impl PacketReader {
    /// A reader with a buffer of `capacity` bytes (at least 64).
    pub fn new(capacity: usize) -> PacketReader {
        PacketReader {
            buf: vec![0; capacity.max(64)],
            start: 0,
            end: 0,
        }
    }

    /// The bytes read and not consumed yet.
    pub fn buffered(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Mutable access to the bytes read and not consumed (to rewrite a header in place).
    pub fn buffered_mut(&mut self) -> &mut [u8] {
        &mut self.buf[self.start..self.end]
    }

    /// Drops the first `n` buffered bytes.
    ///
    /// # Panics
    /// `n` is more than the buffered bytes.
    pub fn consume(&mut self, n: usize) {
        assert!(
            n <= self.end - self.start,
            "consume past the buffered bytes"
        );
        self.start += n;
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
    }

    /// The header of the first buffered frame and whether the whole frame is buffered;
    /// `None` when fewer than [`HEADER_LEN`] bytes are.
    pub fn first_frame(&self) -> Option<(Header, bool)> {
        let b = self.buffered();
        (b.len() >= HEADER_LEN).then(|| {
            let h = Header::parse(b);
            (h, b.len() >= h.frame_len())
        })
    }

    /// Reads once from `r` into the free part of the buffer, first moving the unconsumed
    /// bytes to its start and growing it so that a frame of `want` bytes fits. Returns the
    /// bytes read (0: end of stream). Cancel-safe: nothing is lost if the future is dropped.
    ///
    /// # Errors
    /// The read fails.
    pub async fn fill<R: AsyncRead + Unpin>(
        &mut self,
        r: &mut R,
        want: usize,
    ) -> std::io::Result<usize> {
        if self.start > 0 && (self.end == self.buf.len() || want > self.buf.len() - self.start) {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if want > self.buf.len() - self.start {
            self.buf.resize(self.start + want, 0);
        }
        if self.end == self.buf.len() {
            // A full buffer with a frame still incomplete: room for at least a header more.
            let more = self.buf.len() + HEADER_LEN.max(self.buf.len() / 2);
            self.buf.resize(more, 0);
        }
        let n = r.read(&mut self.buf[self.end..]).await?;
        self.end += n;
        Ok(n)
    }

    /// Reads until a whole frame is buffered at the start and returns its header (the
    /// frame stays buffered: [`buffered`](Self::buffered) starts with it); `None` when the
    /// stream ends before any byte of a frame.
    ///
    /// # Errors
    /// The read fails, or the stream ends inside a frame (`UnexpectedEof`).
    pub async fn read_frame<R: AsyncRead + Unpin>(
        &mut self,
        r: &mut R,
    ) -> std::io::Result<Option<Header>> {
        loop {
            let want = match self.first_frame() {
                Some((h, true)) => return Ok(Some(h)),
                Some((h, false)) => h.frame_len(),
                None => HEADER_LEN,
            };
            if self.fill(r, want).await? == 0 {
                if self.buffered().is_empty() {
                    return Ok(None);
                }
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
        }
    }

    /// Reads one logical packet (its frames joined) into `payload` (cleared first), consuming
    /// its frames; returns the sequence id of its first frame, `None` at a clean end of stream.
    ///
    /// # Errors
    /// As [`read_frame`](Self::read_frame).
    pub async fn read_packet<R: AsyncRead + Unpin>(
        &mut self,
        r: &mut R,
        payload: &mut Vec<u8>,
    ) -> std::io::Result<Option<u8>> {
        payload.clear();
        let mut first = None;
        loop {
            let Some(h) = self.read_frame(r).await? else {
                if first.is_none() {
                    return Ok(None);
                }
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            };
            first.get_or_insert(h.seq);
            payload.extend_from_slice(&self.buffered()[HEADER_LEN..h.frame_len()]);
            self.consume(h.frame_len());
            if h.len < MAX_PAYLOAD {
                return Ok(first);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip() {
        let h = Header {
            len: 0x01_0203,
            seq: 7,
        };
        assert_eq!(h.to_bytes(), [0x03, 0x02, 0x01, 7]);
        assert_eq!(Header::parse(&h.to_bytes()), h);
    }

    #[test]
    fn a_16_mib_payload_is_split_with_an_empty_last_frame() {
        let payload = vec![1u8; MAX_PAYLOAD];
        let mut out = Vec::new();
        assert_eq!(put_frames(&mut out, 3, &payload), 5);
        assert_eq!(out.len(), 2 * HEADER_LEN + MAX_PAYLOAD);
        assert_eq!(
            Header::parse(&out[MAX_PAYLOAD + HEADER_LEN..]),
            Header { len: 0, seq: 4 }
        );
    }

    #[tokio::test]
    async fn frames_read_across_short_reads_and_joined() {
        let mut bytes = Vec::new();
        put_frames(&mut bytes, 0, b"select 1");
        put_frames(&mut bytes, 0, &vec![9u8; MAX_PAYLOAD + 10]);
        // A pipe of 4093 bytes, to cut headers and payloads.
        let (mut client, mut server) = tokio::io::duplex(4093);
        let writer = tokio::spawn(async move {
            server.write_all(&bytes).await.expect("write");
        });
        let mut r = PacketReader::new(64);
        let mut p = Vec::new();
        assert_eq!(
            r.read_packet(&mut client, &mut p).await.expect("read"),
            Some(0)
        );
        assert_eq!(p, b"select 1");
        assert_eq!(
            r.read_packet(&mut client, &mut p).await.expect("read"),
            Some(0)
        );
        assert_eq!(p.len(), MAX_PAYLOAD + 10);
        writer.await.expect("writer");
        assert_eq!(
            r.read_packet(&mut client, &mut p).await.expect("read"),
            None
        );
    }

    #[tokio::test]
    async fn end_of_stream_inside_a_frame_is_an_error() {
        let (mut client, mut server) = tokio::io::duplex(64);
        server.write_all(&[10, 0, 0, 0, 1, 2]).await.expect("write");
        drop(server);
        let mut r = PacketReader::new(64);
        let e = r.read_frame(&mut client).await.expect_err("truncated");
        assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
    }
}
