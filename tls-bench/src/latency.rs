//! Round trip under concurrency, the study's Figure 2: N established
//! connections each send a request and wait for the response, as fast as they
//! can, for a fixed time; the average and p95 round trip per transport and N.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::config::Transport;
use crate::error::{Error, Result};
use crate::measure::Latency;
use crate::net;
use crate::pki::Pki;
use crate::tls::{Client, Server, TlsParams, with_timeout};

/// The concurrency levels of the study's Figure 2 and beyond.
pub const CONNECTIONS: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];

/// What each round trip carries.
#[derive(Clone, Copy, Debug)]
pub struct Exchange {
    /// Request bytes (default 20: a COM_STMT_EXECUTE of a point SELECT).
    pub request: usize,
    /// Response bytes (default 200: one sysbench row in a result set).
    pub response: usize,
}

/// One (transport, connections) point.
#[derive(Clone, Debug, Serialize)]
pub struct LatencyRow {
    /// Transport name.
    pub transport: Transport,
    /// `TLSv1_2`, `TLSv1_3`, or `none`.
    pub tls_version: &'static str,
    /// Concurrent connections, each with one request in flight.
    pub connections: u32,
    /// Round trips measured, over all rounds.
    pub requests: u64,
    /// Round trips per second, all connections together.
    pub requests_per_sec: f64,
    /// Mean round trip, µs.
    pub avg_us: f64,
    /// Median round trip, µs.
    pub p50_us: f64,
    /// 95th percentile round trip, µs.
    pub p95_us: f64,
    /// Rounds measured (`--repeat`, interleaved with the other transports);
    /// the row's figures are the round with the median average.
    pub rounds: usize,
    /// Smallest and largest round average, µs.
    pub avg_range_us: (f64, f64),
    /// `avg_us` of every round, in round order (round r pairs with round r
    /// of plain TCP in the comparisons), µs.
    pub avg_us_rounds: Vec<f64>,
    /// `p50_us` of every round, in round order, µs.
    pub p50_us_rounds: Vec<f64>,
    /// `p95_us` of every round, in round order, µs.
    pub p95_us_rounds: Vec<f64>,
    /// Request size, bytes.
    pub request_bytes: usize,
    /// Response size, bytes.
    pub response_bytes: usize,
}

/// Runs `connections` clients of `params` for `duration` after an unmeasured `warmup`.
///
/// # Errors
/// Connection errors and timeouts of any client or of the server.
pub async fn measure(
    params: &TlsParams,
    pki: &Pki,
    connections: u32,
    exchange: Exchange,
    (duration, warmup): (Duration, Duration),
    bind: SocketAddr,
    timeout: Duration,
) -> Result<LatencyRow> {
    let chain = pki.chain(params.cert);
    let Exchange { request, response } = exchange;
    let server = net::serve(
        Server::new(params, chain)?,
        bind,
        timeout,
        move |mut s| async move {
            let mut req = vec![0u8; request];
            let resp = vec![0x5au8; response];
            loop {
                // The client closes when it is done: EOF here is the normal end.
                match s.read_exact(&mut req).await {
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
                    Err(e) => return Err(Error::io("server read", e)),
                }
                with_timeout("server write", timeout, async {
                    s.write_all(&resp).await?;
                    s.flush().await
                })
                .await?
                .map_err(|e| Error::io("server write", e))?;
            }
        },
    )?;
    let client = Client::new(params, &chain.ca)?;
    let addr = server.addr;
    let result = async {
        let mut streams = Vec::with_capacity(connections as usize);
        for _ in 0..connections {
            streams.push(net::connect(&client, addr, timeout).await?.stream);
        }
        let start = Instant::now() + warmup;
        let end = start + duration;
        let mut tasks = tokio::task::JoinSet::new();
        for mut s in streams {
            tasks.spawn(async move {
                let req = vec![0x03u8; request];
                let mut resp = vec![0u8; response];
                let mut lat = Latency::new();
                loop {
                    let t = Instant::now();
                    // Every connection measures at least one round trip: on a
                    // loaded machine a task first polled after `end` would
                    // otherwise leave the point with no sample (avg 0).
                    if t >= end && lat.count() > 0 {
                        break;
                    }
                    with_timeout("request", timeout, async {
                        s.write_all(&req).await?;
                        s.flush().await?;
                        s.read_exact(&mut resp).await
                    })
                    .await?
                    .map_err(|e| Error::io("request", e))?;
                    if t >= start {
                        lat.record(t.elapsed());
                    }
                }
                let _ = s.shutdown().await;
                Ok::<Latency, Error>(lat)
            });
        }
        let mut all = Latency::new();
        while let Some(joined) = tasks.join_next().await {
            let lat =
                joined.map_err(|e| Error::Protocol(format!("a client task failed: {e}")))??;
            all.merge(&lat);
        }
        Ok::<_, Error>(all)
    }
    .await;
    let stopped = server.stop().await;
    let all = result?;
    stopped?;
    Ok(LatencyRow {
        transport: params.transport,
        tls_version: params.version_name(),
        connections,
        requests: all.count(),
        requests_per_sec: all.count() as f64 / duration.as_secs_f64(),
        avg_us: all.mean_us(),
        p50_us: all.quantile_us(0.5),
        p95_us: all.quantile_us(0.95),
        rounds: 1,
        avg_range_us: (all.mean_us(), all.mean_us()),
        avg_us_rounds: vec![all.mean_us()],
        p50_us_rounds: vec![all.quantile_us(0.5)],
        p95_us_rounds: vec![all.quantile_us(0.95)],
        request_bytes: request,
        response_bytes: response,
    })
}

/// One row of several rounds of one point (in round order): the round with
/// the median average, the range of the round averages, every round's
/// average, p50 and p95, and the total requests.
///
/// # Errors
/// [`Error::Check`] for an empty list.
pub fn median_round(rounds: Vec<LatencyRow>) -> Result<LatencyRow> {
    let mid = crate::rounds::median_index(&rounds, |r| r.avg_us)
        .ok_or_else(|| Error::Check("a latency point with no rounds".to_string()))?;
    let avg: Vec<f64> = rounds.iter().map(|r| r.avg_us).collect();
    let spread = crate::rounds::Spread::of(&avg)
        .ok_or_else(|| Error::Check("a latency point with no rounds".to_string()))?;
    let mut row = rounds[mid].clone();
    row.rounds = rounds.len();
    row.avg_range_us = (spread.min, spread.max);
    row.requests = rounds.iter().map(|r| r.requests).sum();
    row.avg_us_rounds = avg;
    row.p50_us_rounds = rounds.iter().map(|r| r.p50_us).collect();
    row.p95_us_rounds = rounds.iter().map(|r| r.p95_us).collect();
    Ok(row)
}
