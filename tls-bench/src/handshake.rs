//! Handshakes: full and resumed, over loopback sockets and in memory.
//!
//! Socket harness: client and server on one thread (a tokio current-thread
//! runtime, optionally pinned to one core) run handshakes one after another.
//! One handshake is: TCP connect, TLS handshake, and the client reading a 1-byte
//! server greeting (MySQL's server speaks first; the read also takes in TLS 1.3
//! session tickets). The time spent inside each side's code (its futures' polls,
//! syscalls included) says which side spent the CPU.
//!
//! Memory harness (rustls only): client and server connections driven directly,
//! bytes moved between them in memory, each side's time taken as rustls'
//! `rustls-bench` does (work is charged to the side that processes the bytes).
//!
//! Both harnesses time each side with the thread CPU clock
//! (CLOCK_THREAD_CPUTIME_ID), so preemption on a busy machine does not count.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::config::{Resumption, Transport};
use crate::error::{Error, Result};
use crate::measure::{Latency, thread_cpu, thread_cpu_now, thread_user_system};
use crate::pki::{Pki, SERVER_NAME};
use crate::tls::{Client, Server, TlsParams, with_timeout};

/// The byte the server sends once the handshake is done.
pub const GREETING: u8 = 0x0a;

/// Latency percentiles, µs.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Percentiles {
    /// Median, µs.
    pub p50: f64,
    /// 99th percentile, µs.
    pub p99: f64,
    /// Mean, µs.
    pub mean: f64,
}

impl Percentiles {
    fn of(l: &Latency) -> Self {
        Percentiles {
            p50: l.quantile_us(0.5),
            p99: l.quantile_us(0.99),
            mean: l.mean_us(),
        }
    }
}

/// One handshake measurement.
#[derive(Clone, Debug, Serialize)]
pub struct HandshakeRow {
    /// Transport name (`plain`, `rustls-aws-lc-rs`, `rustls-ring`, `openssl`).
    pub transport: Transport,
    /// `socket` (loopback TCP) or `memory` (rustls connections driven directly).
    pub harness: &'static str,
    /// `TLSv1_2`, `TLSv1_3`, or `none` for plain TCP.
    pub tls_version: &'static str,
    /// Server key type, `Rsa2048` or `EcdsaP256` (rustls' `KeyType` names), or `none`.
    pub cert: &'static str,
    /// Negotiated cipher suite in rustls' spelling, or `none`.
    pub suite: String,
    /// Key exchange group (`X25519`), or `none`.
    pub kx: &'static str,
    /// True if every measured handshake was a resumption.
    pub resumed: bool,
    /// rustls' label for the mode: `no-resume`, `sessionid`, `tickets`.
    pub resumption: Resumption,
    /// Handshakes measured (after warm-up), over all rounds.
    pub handshakes: u64,
    /// Handshakes per second of wall time, client and server sharing one thread
    /// (socket), or 1e6 / (client_cpu_us + server_cpu_us) (memory).
    pub handshakes_per_sec: f64,
    /// Handshakes per second of the thread's CPU time (user + system): the figure
    /// that preemption on a busy machine does not distort.
    pub cpu_handshakes_per_sec: f64,
    /// Time in the client's code per handshake, µs.
    pub client_cpu_us: f64,
    /// Time in the server's code per handshake, µs.
    pub server_cpu_us: f64,
    /// Of `client_cpu_us`, the time inside the TLS handshake alone (no TCP
    /// connect, no greeting), µs: what the memory harness measures.
    pub client_handshake_us: f64,
    /// Of `server_cpu_us`, the time inside the TLS handshake alone, µs.
    pub server_handshake_us: f64,
    /// 1e6 / (client_handshake_us + server_handshake_us): the handshake alone
    /// over sockets, comparable with the memory harness (rustls-bench's method).
    pub handshake_only_per_sec: f64,
    /// User-space CPU per handshake, both sides, µs (getrusage; tick-granular,
    /// meaningful over many handshakes). Memory harness: all of its CPU time.
    pub user_us: f64,
    /// Kernel CPU per handshake, both sides, µs (syscalls, loopback TCP); 0 in memory.
    pub system_us: f64,
    /// Connect + handshake (+ 1-byte greeting for `socket`) latency, µs.
    pub latency_us: Percentiles,
    /// Core the socket harness's thread was pinned to, if any.
    pub core: Option<usize>,
    /// Rounds measured (`--repeat`, interleaved with the other
    /// configurations). Every per-handshake figure above is the round with
    /// the median `cpu_handshakes_per_sec`.
    pub rounds: usize,
    /// `cpu_handshakes_per_sec` of every round, in round order (round r pairs
    /// with round r of the other configurations), handshakes per CPU-second.
    pub cpu_handshakes_per_sec_rounds: Vec<f64>,
    /// `handshake_only_per_sec` of every round, in round order, handshakes/s.
    pub handshake_only_per_sec_rounds: Vec<f64>,
}

impl HandshakeRow {
    /// One row of several rounds of one configuration (in round order): the
    /// median round by `cpu_handshakes_per_sec`, with every round's
    /// `cpu_handshakes_per_sec` and `handshake_only_per_sec` and the total
    /// handshakes.
    ///
    /// # Errors
    /// [`Error::Check`] for an empty list.
    pub fn of_rounds(rounds: Vec<HandshakeRow>) -> Result<HandshakeRow> {
        let mid = crate::rounds::median_index(&rounds, |r| r.cpu_handshakes_per_sec)
            .ok_or_else(|| Error::Check("a handshake configuration with no rounds".into()))?;
        let mut row = rounds[mid].clone();
        row.rounds = rounds.len();
        row.handshakes = rounds.iter().map(|r| r.handshakes).sum();
        row.cpu_handshakes_per_sec_rounds =
            rounds.iter().map(|r| r.cpu_handshakes_per_sec).collect();
        row.handshake_only_per_sec_rounds =
            rounds.iter().map(|r| r.handshake_only_per_sec).collect();
        Ok(row)
    }
}

/// How long and where to run.
#[derive(Clone, Debug)]
pub struct HandshakeOptions {
    /// Measured time per configuration.
    pub duration: Duration,
    /// Handshakes run before measuring (they also fill the session caches).
    pub warmup: u64,
    /// Timeout of every network step.
    pub timeout: Duration,
    /// Core to pin both threads to; `None` leaves them to the scheduler.
    pub core: Option<usize>,
    /// Address the server listens on (port 0: any free port).
    pub bind: SocketAddr,
}

fn pin(core: Option<usize>) -> Result<()> {
    if let Some(core) = core {
        let mut set = nix::sched::CpuSet::new();
        set.set(core)
            .map_err(|e| Error::Unsupported(format!("--core {core}: {e}")))?;
        nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set).map_err(|e| {
            Error::Unsupported(format!(
                "cannot pin to core {core}: {e} (choose a core this process may run on)"
            ))
        })?;
    }
    Ok(())
}

fn current_thread_runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("start a tokio runtime", e))
}

/// Binds a loopback listener.
///
/// # Errors
/// [`Error::Bind`] naming the address when it is in use or not local.
pub fn bind(addr: SocketAddr) -> Result<std::net::TcpListener> {
    let l = std::net::TcpListener::bind(addr).map_err(|source| Error::Bind {
        addr: addr.to_string(),
        source,
    })?;
    l.set_nonblocking(true)
        .map_err(|e| Error::io("set the listener non-blocking", e))?;
    Ok(l)
}

/// A future that adds the thread CPU time spent inside its `poll` to a counter,
/// so that one thread running both sides can still say which side spent it
/// (CPU time, not wall time: preemption on a busy machine does not count).
struct Timed<F> {
    inner: Pin<Box<F>>,
    ns: Arc<AtomicU64>,
}

impl<F: Future> Future for Timed<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let t = thread_cpu_now();
        let r = self.inner.as_mut().poll(cx);
        self.ns
            .fetch_add((thread_cpu_now() - t).as_nanos() as u64, Ordering::Relaxed);
        r
    }
}

fn timed<F: Future>(ns: &Arc<AtomicU64>, f: F) -> Timed<F> {
    Timed {
        inner: Box::pin(f),
        ns: ns.clone(),
    }
}

async fn serve_sequential(
    listener: tokio::net::TcpListener,
    server: Server,
    ns: Arc<AtomicU64>,
    tls_ns: Arc<AtomicU64>,
    timeout: Duration,
) -> Result<()> {
    loop {
        let (tcp, _) = timed(&ns, listener.accept())
            .await
            .map_err(|e| Error::io("accept", e))?;
        timed(&ns, async {
            tcp.set_nodelay(true)
                .map_err(|e| Error::io("set TCP_NODELAY", e))?;
            let mut est = timed(&tls_ns, server.accept(tcp, timeout)).await?;
            with_timeout("write greeting", timeout, async {
                est.stream.write_all(&[GREETING]).await?;
                // A clean TLS close (close_notify), on every transport alike: OpenSSL
                // drops a session from its server cache when a connection ends without
                // one, which would make session-id resumption impossible.
                est.stream.shutdown().await
            })
            .await?
            .map_err(|e| Error::io("write greeting", e))
            // The server then closes: it has read everything the client sent, so
            // the close is a FIN, never a reset.
        })
        .await?;
    }
}

async fn one_handshake(
    client: &Client,
    addr: SocketAddr,
    tls_ns: &Arc<AtomicU64>,
    timeout: Duration,
) -> Result<bool> {
    let tcp = with_timeout("connect", timeout, tokio::net::TcpStream::connect(addr))
        .await?
        .map_err(|e| Error::io(format!("connect to {addr}"), e))?;
    tcp.set_nodelay(true)
        .map_err(|e| Error::io("set TCP_NODELAY", e))?;
    let mut est = timed(tls_ns, client.connect(tcp, timeout)).await?;
    let mut b = [0u8; 1];
    with_timeout("read greeting", timeout, est.stream.read_exact(&mut b))
        .await?
        .map_err(|e| Error::io("read greeting", e))?;
    if b[0] != GREETING {
        return Err(Error::Protocol(format!(
            "greeting byte {:#04x}, expected {GREETING:#04x}",
            b[0]
        )));
    }
    // A clean close on the client side too: OpenSSL marks the session of a connection
    // freed without close_notify as not resumable. Best effort: the server may already
    // have closed its end, so an I/O error here is not a failed handshake.
    let _closed = with_timeout("close", timeout, est.stream.shutdown()).await?;
    Ok(est.resumed)
}

/// Measures handshakes of `params` over loopback sockets: client and server run
/// on one thread (one tokio current-thread runtime, pinned to `opts.core`), one
/// handshake after another, so the rate is what one core sustains doing both
/// sides; the time inside each side's code is summed separately.
///
/// # Errors
/// [`Error::Bind`], [`Error::Timeout`], [`Error::Handshake`], and [`Error::Check`] if
/// a handshake that should have resumed was full (or the reverse).
pub fn socket(params: &TlsParams, pki: &Pki, opts: &HandshakeOptions) -> Result<HandshakeRow> {
    let chain = pki.chain(params.cert);
    let server = Server::new(params, chain)?;
    let client = Client::new(params, &chain.ca)?;
    let std_listener = bind(opts.bind)?;
    let addr = std_listener
        .local_addr()
        .map_err(|e| Error::io("read the listener address", e))?;
    let opts = opts.clone();
    let params = *params;
    // A thread of its own, so pinning never touches the caller's threads.
    let worker = std::thread::Builder::new()
        .name("tls-bench-handshake".into())
        .spawn(move || -> Result<HandshakeRow> {
            pin(opts.core)?;
            let rt = current_thread_runtime()?;
            rt.block_on(run_socket(params, server, client, std_listener, addr, opts))
        })
        .map_err(|e| Error::io("start the handshake thread", e))?;
    worker
        .join()
        .map_err(|_| Error::Protocol("the handshake thread panicked".to_string()))?
}

struct Sides {
    client: f64,
    server: f64,
    client_tls: f64,
    server_tls: f64,
    user: f64,
    system: f64,
}

async fn run_socket(
    params: TlsParams,
    server: Server,
    client: Client,
    std_listener: std::net::TcpListener,
    addr: SocketAddr,
    opts: HandshakeOptions,
) -> Result<HandshakeRow> {
    let timeout = opts.timeout;
    let listener =
        tokio::net::TcpListener::from_std(std_listener).map_err(|e| Error::io("listen", e))?;
    let server_ns = Arc::new(AtomicU64::new(0));
    let client_ns = Arc::new(AtomicU64::new(0));
    let server_tls_ns = Arc::new(AtomicU64::new(0));
    let client_tls_ns = Arc::new(AtomicU64::new(0));
    let server_task = tokio::spawn(serve_sequential(
        listener,
        server,
        server_ns.clone(),
        server_tls_ns.clone(),
        timeout,
    ));
    let want_resumed = params.resumption != Resumption::Full;
    let measured = async {
        for _ in 0..opts.warmup.max(1) {
            timed(
                &client_ns,
                one_handshake(&client, addr, &client_tls_ns, timeout),
            )
            .await?;
        }
        // Let the server finish its last connection before the counters are read.
        tokio::task::yield_now().await;
        let load = |a: &Arc<AtomicU64>| a.load(Ordering::Relaxed);
        let (s0, c0, st0, ct0) = (
            load(&server_ns),
            load(&client_ns),
            load(&server_tls_ns),
            load(&client_tls_ns),
        );
        let cpu0 = thread_cpu().map_err(|e| Error::io("read thread CPU time", e))?;
        let us0 = thread_user_system().map_err(|e| Error::io("read thread CPU time", e))?;
        let mut lat = Latency::new();
        let mut n = 0u64;
        let start = Instant::now();
        while n == 0 || start.elapsed() < opts.duration {
            let t = Instant::now();
            let resumed = timed(
                &client_ns,
                one_handshake(&client, addr, &client_tls_ns, timeout),
            )
            .await?;
            lat.record(t.elapsed());
            n += 1;
            if resumed != want_resumed {
                return Err(Error::Check(format!(
                    "{} {} {}: handshake {n} was {}, expected {}",
                    params.transport,
                    params.version_name(),
                    params.resumption,
                    if resumed { "resumed" } else { "full" },
                    if want_resumed { "resumed" } else { "full" },
                )));
            }
        }
        tokio::task::yield_now().await;
        let wall = start.elapsed();
        let cpu = thread_cpu().map_err(|e| Error::io("read thread CPU time", e))? - cpu0;
        let us1 = thread_user_system().map_err(|e| Error::io("read thread CPU time", e))?;
        let system = (us1.1 - us0.1).as_secs_f64() * 1e6;
        let user = (us1.0 - us0.0).as_secs_f64() * 1e6;
        let us = |a: &Arc<AtomicU64>, base: u64| (load(a) - base) as f64 / 1e3;
        let sides = Sides {
            client: us(&client_ns, c0),
            server: us(&server_ns, s0),
            client_tls: us(&client_tls_ns, ct0),
            server_tls: us(&server_tls_ns, st0),
            user,
            system,
        };
        Ok((n, wall, cpu, sides, lat))
    }
    .await;
    server_task.abort();
    let server_end = server_task.await;
    let (n, wall, cpu, sides, lat) = match measured {
        Ok(m) => m,
        Err(e) => {
            // A server-side failure is the better explanation of a client error.
            if let Ok(Err(server_err)) = server_end {
                return Err(server_err);
            }
            return Err(e);
        }
    };
    let nf = n as f64;
    Ok(HandshakeRow {
        transport: params.transport,
        harness: "socket",
        tls_version: params.version_name(),
        cert: params.cert_name(),
        suite: if params.transport.is_tls() {
            params.suite().name()
        } else {
            "none".to_string()
        },
        kx: if params.transport.is_tls() {
            "X25519"
        } else {
            "none"
        },
        resumed: want_resumed,
        resumption: params.resumption,
        handshakes: n,
        handshakes_per_sec: nf / wall.as_secs_f64(),
        cpu_handshakes_per_sec: nf / cpu.as_secs_f64(),
        client_cpu_us: sides.client / nf,
        server_cpu_us: sides.server / nf,
        client_handshake_us: sides.client_tls / nf,
        server_handshake_us: sides.server_tls / nf,
        handshake_only_per_sec: nf * 1e6 / (sides.client_tls + sides.server_tls),
        user_us: sides.user / nf,
        system_us: sides.system / nf,
        latency_us: Percentiles::of(&lat),
        core: opts.core,
        rounds: 1,
        cpu_handshakes_per_sec_rounds: vec![nf / cpu.as_secs_f64()],
        handshake_only_per_sec_rounds: vec![nf * 1e6 / (sides.client_tls + sides.server_tls)],
    })
}

/// Measures rustls handshakes of `params` in memory, the way rustls' own
/// benchmark does: no sockets, each side's processing timed separately.
///
/// # Errors
/// [`Error::Unsupported`] for a transport that is not rustls; [`Error::Handshake`]
/// if the handshake fails; [`Error::Check`] if it does not reach the expected kind.
pub fn memory(params: &TlsParams, pki: &Pki, duration: Duration) -> Result<HandshakeRow> {
    use rustls::{ClientConnection, Connection, HandshakeKind, ServerConnection};
    if !matches!(
        params.transport,
        Transport::RustlsAwsLcRs | Transport::RustlsRing
    ) {
        return Err(Error::Unsupported(format!(
            "the in-memory handshake drives rustls connections; {} is not rustls",
            params.transport
        )));
    }
    let chain = pki.chain(params.cert);
    let server_cfg = Arc::new(crate::tls::rustls_server_config(params, chain)?);
    let client_cfg = Arc::new(crate::tls::rustls_client_config(params, &chain.ca)?);
    let name = rustls::pki_types::ServerName::try_from(SERVER_NAME)
        .map_err(|e| Error::setup("server name", e))?
        .to_owned();
    let fail = |side: &'static str, e: &dyn std::fmt::Display| Error::Handshake {
        transport: params.transport.name(),
        side,
        detail: e.to_string(),
    };
    let want = if params.resumption == Resumption::Full {
        HandshakeKind::Full
    } else {
        HandshakeKind::Resumed
    };
    let mut buf: Vec<u8> = Vec::with_capacity(16 * 1024);
    // Moves everything `from` wants to send into `to`, and lets `to` process it.
    let mut pump =
        |from: &mut Connection, to: &mut Connection| -> std::result::Result<(), String> {
            buf.clear();
            while from.wants_write() {
                from.write_tls(&mut buf).map_err(|e| e.to_string())?;
            }
            let mut rd = &buf[..];
            while !rd.is_empty() {
                to.read_tls(&mut rd).map_err(|e| e.to_string())?;
                to.process_new_packets().map_err(|e| e.to_string())?;
            }
            Ok(())
        };
    let mut lat = Latency::new();
    let (mut client_total, mut server_total) = (Duration::ZERO, Duration::ZERO);
    let mut n = 0u64;
    let mut wrong_kind = 0u64;
    let start = Instant::now();
    // One unmeasured handshake first: warm-up, and it fills the session cache.
    let mut first = true;
    let mut cpu0 = None;
    while first || start.elapsed() < duration || n == 0 {
        let t = thread_cpu_now();
        let mut client = Connection::Client(
            ClientConnection::new(client_cfg.clone(), name.clone())
                .map_err(|e| fail("client", &e))?,
        );
        let mut client_time = thread_cpu_now() - t;
        let t = thread_cpu_now();
        let mut server = Connection::Server(
            ServerConnection::new(server_cfg.clone()).map_err(|e| fail("server", &e))?,
        );
        let mut server_time = thread_cpu_now() - t;
        for round in 0..4 {
            let t = thread_cpu_now();
            if round % 2 == 0 {
                pump(&mut client, &mut server).map_err(|e| fail("server", &e))?;
                server_time += thread_cpu_now() - t;
            } else {
                pump(&mut server, &mut client).map_err(|e| fail("client", &e))?;
                client_time += thread_cpu_now() - t;
            }
        }
        if client.is_handshaking() || server.is_handshaking() {
            return Err(Error::Check(
                "in-memory handshake did not finish in 4 flights".to_string(),
            ));
        }
        if first {
            first = false;
            cpu0 = Some(thread_cpu().map_err(|e| Error::io("read thread CPU time", e))?);
            continue;
        }
        if client.handshake_kind() == Some(want) && server.handshake_kind() == Some(want) {
            client_total += client_time;
            server_total += server_time;
            lat.record(client_time + server_time);
            n += 1;
        } else {
            wrong_kind += 1;
            if wrong_kind > 100 + n {
                return Err(Error::Check(format!(
                    "in-memory {} {}: handshakes do not reach {want:?}",
                    params.transport, params.resumption
                )));
            }
        }
    }
    let cpu =
        thread_cpu().map_err(|e| Error::io("read thread CPU time", e))? - cpu0.unwrap_or_default();
    let client_cpu_us = client_total.as_secs_f64() * 1e6 / n as f64;
    let server_cpu_us = server_total.as_secs_f64() * 1e6 / n as f64;
    Ok(HandshakeRow {
        transport: params.transport,
        harness: "memory",
        tls_version: params.version_name(),
        cert: params.cert_name(),
        suite: params.suite().name(),
        kx: "X25519",
        resumed: params.resumption != Resumption::Full,
        resumption: params.resumption,
        handshakes: n,
        handshakes_per_sec: 1e6 / (client_cpu_us + server_cpu_us),
        cpu_handshakes_per_sec: (n + wrong_kind) as f64 / cpu.as_secs_f64(),
        client_cpu_us,
        server_cpu_us,
        client_handshake_us: client_cpu_us,
        server_handshake_us: server_cpu_us,
        handshake_only_per_sec: 1e6 / (client_cpu_us + server_cpu_us),
        user_us: client_cpu_us + server_cpu_us,
        system_us: 0.0,
        latency_us: Percentiles::of(&lat),
        core: None,
        rounds: 1,
        cpu_handshakes_per_sec_rounds: vec![(n + wrong_kind) as f64 / cpu.as_secs_f64()],
        handshake_only_per_sec_rounds: vec![1e6 / (client_cpu_us + server_cpu_us)],
    })
}
