//! A loopback TCP relay that injects faults between `oltp` and a real server:
//! resets (RST) after a fixed time, one reset every so often across all live
//! connections, or a delay on every chunk. Used by `tests/faults.rs` and, as
//! the `fault_relay` example, by `oltp/bench/soak`.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

/// What the relay does to the connections it carries.
#[derive(Clone, Copy, Debug)]
pub enum Fault {
    /// Resets each connection (RST: SO_LINGER 0, then close) this long after it opened.
    ResetAfter(Duration),
    /// Every period, resets the oldest live connection (the soak's fault).
    ResetOneEvery(Duration),
    /// Holds every chunk this long before forwarding it, both ways.
    Delay(Duration),
}

/// A running relay: its port and the resets it has made.
pub struct Relay {
    /// The port it listens on (127.0.0.1, or ::1 for [`Relay::start_on`] with an IPv6 address).
    pub port: u16,
    resets: Arc<AtomicU64>,
}

impl Relay {
    /// Starts a relay on 127.0.0.1 to `target`, on a thread of its own for
    /// the life of the process.
    pub fn start(target: SocketAddr, fault: Fault) -> Relay {
        Relay::start_on("127.0.0.1:0", target, fault)
    }

    /// [`Relay::start`] listening on `listen` (e.g. `[::1]:0`).
    pub fn start_on(listen: &str, target: SocketAddr, fault: Fault) -> Relay {
        let listener = std::net::TcpListener::bind(listen).expect("bind the relay");
        let port = listener.local_addr().expect("relay address").port();
        listener.set_nonblocking(true).expect("nonblocking");
        let resets = Arc::new(AtomicU64::new(0));
        let counter = resets.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("relay runtime");
            rt.block_on(serve(listener, target, fault, counter));
        });
        Relay { port, resets }
    }

    /// Connections reset so far.
    pub fn resets(&self) -> u64 {
        self.resets.load(Ordering::Relaxed)
    }
}

type Victims = Arc<Mutex<VecDeque<oneshot::Sender<()>>>>;

async fn serve(
    listener: std::net::TcpListener,
    target: SocketAddr,
    fault: Fault,
    resets: Arc<AtomicU64>,
) {
    let listener = tokio::net::TcpListener::from_std(listener).expect("relay listener");
    let victims: Victims = Arc::default();
    if let Fault::ResetOneEvery(period) = fault {
        let victims = victims.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(period);
            tick.tick().await;
            loop {
                tick.tick().await;
                // The oldest connection still open (a closed one's receiver is gone).
                while let Some(v) = victims.lock().expect("victims").pop_front() {
                    if v.send(()).is_ok() {
                        break;
                    }
                }
            }
        });
    }
    while let Ok((inbound, _)) = listener.accept().await {
        let Ok(outbound) = TcpStream::connect(target).await else {
            continue;
        };
        let resets = resets.clone();
        match fault {
            Fault::ResetAfter(after) => {
                tokio::spawn(async move {
                    let (mut a, mut b) = (inbound, outbound);
                    let copy = tokio::io::copy_bidirectional(&mut a, &mut b);
                    if tokio::time::timeout(after, copy).await.is_err() {
                        reset(&a, &b, &resets);
                    }
                });
            }
            Fault::ResetOneEvery(_) => {
                let (tx, rx) = oneshot::channel();
                victims.lock().expect("victims").push_back(tx);
                tokio::spawn(async move {
                    let (mut a, mut b) = (inbound, outbound);
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut a, &mut b) => {}
                        Ok(()) = rx => reset(&a, &b, &resets),
                    }
                });
            }
            Fault::Delay(delay) => {
                tokio::spawn(async move {
                    let (ar, aw) = inbound.into_split();
                    let (br, bw) = outbound.into_split();
                    tokio::join!(delayed(ar, bw, delay), delayed(br, aw, delay));
                });
            }
        }
    }
}

/// An abortive close of both sides: the client sees "connection reset by peer".
fn reset(a: &TcpStream, b: &TcpStream, resets: &AtomicU64) {
    let _ = a.set_zero_linger();
    let _ = b.set_zero_linger();
    resets.fetch_add(1, Ordering::Relaxed);
}

/// Copies `from` to `to`, each chunk held `delay` first.
async fn delayed(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    delay: Duration,
) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        tokio::time::sleep(delay).await;
        if to.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}
