//! Record overhead on the wire: one connection per transport and version, the
//! client's socket wrapped in [`crate::counting::Counting`], and one
//! write of each MySQL-sized message; the server checks every byte and acks.

use std::net::SocketAddr;
use std::time::Duration;

use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::config::Transport;
use crate::counting::Counting;
use crate::error::{Error, Result};
use crate::net;
use crate::pki::Pki;
use crate::tls::{Client, Server, TlsParams, with_timeout};

/// A message size the study's workload sends, with its name.
#[derive(Clone, Copy, Debug)]
pub struct Message {
    /// Name in reports.
    pub name: &'static str,
    /// Payload bytes.
    pub bytes: usize,
}

/// The MySQL-sized messages: a COM_STMT_EXECUTE of a point SELECT (4-byte packet
/// header + command byte + statement id + flags + iteration count + one INT
/// parameter: 20 bytes), a sysbench `sbtest` row of about 200 bytes (id, k,
/// c CHAR(120), pad CHAR(60) plus packet framing), a 16 KiB result (one full TLS
/// record of plaintext, RFC 8446 §5.1) and a 1 MiB result set.
pub const MESSAGES: [Message; 4] = [
    Message {
        name: "COM_STMT_EXECUTE",
        bytes: 20,
    },
    Message {
        name: "row",
        bytes: 200,
    },
    Message {
        name: "16 KiB",
        bytes: 16 * 1024,
    },
    Message {
        name: "1 MiB",
        bytes: 1024 * 1024,
    },
];

/// Bytes of one message as they cross the wire.
#[derive(Clone, Debug, Serialize)]
pub struct RecordRow {
    /// Transport name.
    pub transport: Transport,
    /// `TLSv1_2`, `TLSv1_3`, or `none`.
    pub tls_version: &'static str,
    /// Negotiated suite in rustls' spelling, or `none`.
    pub suite: String,
    /// Message name (`COM_STMT_EXECUTE`, `row`, `16 KiB`, `1 MiB`).
    pub message: &'static str,
    /// Application bytes written, bytes.
    pub payload_bytes: u64,
    /// Bytes the client wrote to the TCP socket for them, bytes.
    pub wire_bytes: u64,
    /// TLS records carrying them (0 for plain TCP).
    pub records: u64,
    /// write() calls on the socket.
    pub socket_writes: u64,
    /// wire_bytes - payload_bytes, bytes.
    pub overhead_bytes: u64,
    /// Overhead per record, bytes (0 for plain TCP).
    pub overhead_per_record: f64,
    /// Overhead relative to the payload, %.
    pub overhead_pct: f64,
}

fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

/// Sends every message of `messages` once over `params` and counts the wire.
///
/// # Errors
/// Connection errors; [`Error::Protocol`] if the server did not receive the exact bytes.
pub async fn measure(
    params: &TlsParams,
    pki: &Pki,
    messages: &[Message],
    bind: SocketAddr,
    timeout: Duration,
) -> Result<Vec<RecordRow>> {
    let chain = pki.chain(params.cert);
    let sizes: Vec<usize> = messages.iter().map(|m| m.bytes).collect();
    let server = net::serve(Server::new(params, chain)?, bind, timeout, move |mut s| {
        let sizes = sizes.clone();
        async move {
            for len in sizes {
                let mut buf = vec![0u8; len];
                with_timeout("server read", timeout, s.read_exact(&mut buf))
                    .await?
                    .map_err(|e| Error::io("server read", e))?;
                let ok = buf == pattern(len);
                with_timeout("server ack", timeout, async {
                    s.write_all(&[u8::from(ok)]).await?;
                    s.flush().await
                })
                .await?
                .map_err(|e| Error::io("server ack", e))?;
            }
            Ok(())
        }
    })?;
    let client = Client::new(params, &chain.ca)?.with_unlimited_buffer();
    let result = async {
        let mut counters = None;
        let mut est = net::connect_with(&client, server.addr, timeout, |tcp| {
            let (c, k) = Counting::new(tcp, params.transport.is_tls());
            counters = Some(k);
            c
        })
        .await?;
        let counters = counters.ok_or_else(|| Error::Protocol("no counters".to_string()))?;
        let suite = est.suite.clone().unwrap_or_else(|| "none".to_string());
        let mut rows = Vec::new();
        for m in messages {
            let payload = pattern(m.bytes);
            let before = counters.get();
            with_timeout("client write", timeout, async {
                est.stream.write_all(&payload).await?;
                est.stream.flush().await
            })
            .await?
            .map_err(|e| Error::io("client write", e))?;
            let mut ack = [0u8; 1];
            with_timeout("read ack", timeout, est.stream.read_exact(&mut ack))
                .await?
                .map_err(|e| Error::io("read ack", e))?;
            let c = counters.get().since(before);
            if ack[0] != 1 {
                return Err(Error::Protocol(format!(
                    "{}: the server received different bytes for {}",
                    params.transport, m.name
                )));
            }
            let payload_bytes = m.bytes as u64;
            let overhead = c.written.saturating_sub(payload_bytes);
            rows.push(RecordRow {
                transport: params.transport,
                tls_version: params.version_name(),
                suite: suite.clone(),
                message: m.name,
                payload_bytes,
                wire_bytes: c.written,
                records: c.records,
                socket_writes: c.writes,
                overhead_bytes: overhead,
                overhead_per_record: if c.records > 0 {
                    overhead as f64 / c.records as f64
                } else {
                    0.0
                },
                overhead_pct: 100.0 * overhead as f64 / payload_bytes as f64,
            });
        }
        Ok(rows)
    }
    .await;
    let stopped = server.stop().await;
    let rows = result?;
    stopped?;
    Ok(rows)
}
