//! The loopback plumbing the record, latency and bulk sections share: a server
//! that accepts any number of connections and runs a handler on each, and a
//! client connect, both with a timeout on every step.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::error::{Error, Result};
use crate::tls::{BoxIo, Client, Established, Server, with_timeout};

/// A running server; [`ServerHandle::stop`] ends it and returns the first error
/// any connection hit.
pub struct ServerHandle {
    /// The address it listens on.
    pub addr: SocketAddr,
    stop: Arc<Notify>,
    first_error: Arc<Mutex<Option<Error>>>,
    task: JoinHandle<()>,
}

impl ServerHandle {
    /// Stops accepting, aborts open connections, and reports the first error.
    ///
    /// # Errors
    /// The first error of any connection (handshake, read, write, timeout).
    pub async fn stop(self) -> Result<()> {
        self.stop.notify_one();
        let _ = self.task.await;
        match self.first_error.lock() {
            Ok(mut g) => g.take().map_or(Ok(()), Err),
            Err(_) => Err(Error::Protocol("a server connection panicked".to_string())),
        }
    }
}

/// Starts a server on `bind` that runs the TLS (or plain) handshake of `server`
/// on each accepted connection, then `handler` on the stream.
///
/// # Errors
/// [`Error::Bind`] if the address is in use.
pub fn serve<H, F>(
    server: Server,
    bind: SocketAddr,
    timeout: Duration,
    handler: H,
) -> Result<ServerHandle>
where
    H: Fn(BoxIo) -> F + Send + Sync + 'static,
    F: Future<Output = Result<()>> + Send + 'static,
{
    let std_listener = crate::handshake::bind(bind)?;
    let addr = std_listener
        .local_addr()
        .map_err(|e| Error::io("read the listener address", e))?;
    let listener =
        tokio::net::TcpListener::from_std(std_listener).map_err(|e| Error::io("listen", e))?;
    let stop = Arc::new(Notify::new());
    let first_error: Arc<Mutex<Option<Error>>> = Arc::new(Mutex::new(None));
    let server = Arc::new(server);
    let handler = Arc::new(handler);
    let (stop2, errors) = (stop.clone(), first_error.clone());
    let task = tokio::spawn(async move {
        let mut conns = tokio::task::JoinSet::new();
        loop {
            let accepted = tokio::select! {
                r = listener.accept() => r,
                () = stop2.notified() => break,
            };
            let (tcp, _) = match accepted {
                Ok(a) => a,
                Err(e) => {
                    keep_first(&errors, Error::io("accept", e));
                    break;
                }
            };
            let (server, handler, errors) = (server.clone(), handler.clone(), errors.clone());
            conns.spawn(async move {
                let r = async {
                    tcp.set_nodelay(true)
                        .map_err(|e| Error::io("set TCP_NODELAY", e))?;
                    let est = server.accept(tcp, timeout).await?;
                    handler(est.stream).await
                }
                .await;
                if let Err(e) = r {
                    keep_first(&errors, e);
                }
            });
        }
        conns.abort_all();
        while conns.join_next().await.is_some() {}
    });
    Ok(ServerHandle {
        addr,
        stop,
        first_error,
        task,
    })
}

fn keep_first(slot: &Mutex<Option<Error>>, e: Error) {
    if let Ok(mut g) = slot.lock() {
        if g.is_none() {
            *g = Some(e);
        }
    }
}

/// Connects to `addr` over TCP (TCP_NODELAY on) and runs the client handshake;
/// `wrap` may wrap the TCP stream first (for counting).
///
/// # Errors
/// [`Error::Timeout`], [`Error::Io`] for the connect, [`Error::Handshake`].
pub async fn connect_with<S, W>(
    client: &Client,
    addr: SocketAddr,
    timeout: Duration,
    wrap: W,
) -> Result<Established>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    W: FnOnce(tokio::net::TcpStream) -> S,
{
    let tcp = with_timeout("connect", timeout, tokio::net::TcpStream::connect(addr))
        .await?
        .map_err(|e| Error::io(format!("connect to {addr}"), e))?;
    tcp.set_nodelay(true)
        .map_err(|e| Error::io("set TCP_NODELAY", e))?;
    client.connect(wrap(tcp), timeout).await
}

/// [`connect_with`] without a wrapper.
///
/// # Errors
/// As [`connect_with`].
pub async fn connect(client: &Client, addr: SocketAddr, timeout: Duration) -> Result<Established> {
    connect_with(client, addr, timeout, |t| t).await
}
