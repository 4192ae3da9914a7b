//! Bulk throughput per cipher suite: one connection, the client writes a fixed
//! amount in 1 MiB writes, the server reads it all and acks; MB/s = bytes /
//! 10^6 / seconds from the first write to the ack (both sides' crypto included).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::config::Transport;
use crate::error::{Error, Result};
use crate::net;
use crate::pki::Pki;
use crate::tls::{Client, Server, TlsParams, with_timeout};

/// Size of each application write, bytes (rustls-bench's default plaintext size).
pub const WRITE_BYTES: usize = 1024 * 1024;

/// One suite's throughput.
#[derive(Clone, Debug, Serialize)]
pub struct BulkRow {
    /// Transport name.
    pub transport: Transport,
    /// `TLSv1_2`, `TLSv1_3`, or `none`.
    pub tls_version: &'static str,
    /// Suite in rustls' spelling, or `none` for plain TCP.
    pub suite: String,
    /// Bytes sent per round, bytes.
    pub bytes: u64,
    /// Throughput, MB/s (10^6 bytes per second): the median of the rounds.
    pub mb_per_sec: f64,
    /// Rounds measured (`--repeat`, interleaved with the other suites and plain TCP).
    pub rounds: usize,
    /// MB/s of every round, in round order (round r pairs with round r of
    /// plain TCP in the comparisons).
    pub mb_per_sec_rounds: Vec<f64>,
}

impl BulkRow {
    /// One row of several rounds of one suite (in round order): the median
    /// MB/s and every round's.
    ///
    /// # Errors
    /// [`Error::Check`] for an empty list.
    pub fn of_rounds(rounds: Vec<BulkRow>) -> Result<BulkRow> {
        let figures: Vec<f64> = rounds.iter().map(|r| r.mb_per_sec).collect();
        let spread = crate::rounds::Spread::of(&figures)
            .ok_or_else(|| Error::Check("a bulk suite with no rounds".into()))?;
        let mut row = rounds[0].clone();
        row.mb_per_sec = spread.median;
        row.rounds = rounds.len();
        row.mb_per_sec_rounds = figures;
        Ok(row)
    }
}

/// Sends `total` bytes over one connection of `params`.
///
/// # Errors
/// Connection errors and timeouts; [`Error::Protocol`] if the server saw a different count.
pub async fn measure(
    params: &TlsParams,
    pki: &Pki,
    total: u64,
    bind: SocketAddr,
    timeout: Duration,
) -> Result<BulkRow> {
    let chain = pki.chain(params.cert);
    let server = net::serve(
        Server::new(params, chain)?,
        bind,
        timeout,
        move |mut s| async move {
            let mut buf = vec![0u8; 256 * 1024];
            let mut got = 0u64;
            while got < total {
                let n = with_timeout("server read", timeout, s.read(&mut buf))
                    .await?
                    .map_err(|e| Error::io("server read", e))?;
                if n == 0 {
                    return Err(Error::Protocol(format!(
                        "bulk: EOF after {got} of {total} bytes"
                    )));
                }
                got += n as u64;
            }
            with_timeout("server ack", timeout, async {
                s.write_all(&[1]).await?;
                s.flush().await
            })
            .await?
            .map_err(|e| Error::io("server ack", e))
        },
    )?;
    let client = Client::new(params, &chain.ca)?;
    let result = async {
        let mut est = net::connect(&client, server.addr, timeout).await?;
        let chunk = vec![0xa5u8; WRITE_BYTES];
        let start = Instant::now();
        let mut sent = 0u64;
        while sent < total {
            let n = (total - sent).min(WRITE_BYTES as u64) as usize;
            with_timeout("client write", timeout, est.stream.write_all(&chunk[..n]))
                .await?
                .map_err(|e| Error::io("client write", e))?;
            sent += n as u64;
        }
        let mut ack = [0u8; 1];
        with_timeout("client flush + ack", timeout, async {
            est.stream.flush().await?;
            est.stream.read_exact(&mut ack).await
        })
        .await?
        .map_err(|e| Error::io("read ack", e))?;
        Ok::<_, Error>((start.elapsed(), est.suite))
    }
    .await;
    let stopped = server.stop().await;
    let (elapsed, _) = result?;
    stopped?;
    Ok(BulkRow {
        transport: params.transport,
        tls_version: params.version_name(),
        suite: if params.transport.is_tls() {
            params.suite().name()
        } else {
            "none".to_string()
        },
        bytes: total,
        mb_per_sec: total as f64 / 1e6 / elapsed.as_secs_f64(),
        rounds: 1,
        mb_per_sec_rounds: vec![total as f64 / 1e6 / elapsed.as_secs_f64()],
    })
}
