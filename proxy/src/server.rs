//! The listener: one task per client, the interval reporter, and the stop: no new client
//! once asked to stop, commands in flight finished, then the summary.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;

use crate::cli::Backend;
use crate::conn::{self, BackendTls};
use crate::stats::{Reporter, Stats, Summary};

/// A bound proxy, not serving yet.
pub struct Proxy {
    listener: TcpListener,
    backend: Arc<Backend>,
    tls: Option<Arc<TlsAcceptor>>,
    backend_tls: Option<Arc<BackendTls>>,
    stats: Arc<Stats>,
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy")
            .field("listener", &self.listener)
            .field("backend", &self.backend)
            .field("tls", &self.tls.is_some())
            .field("backend_tls", &self.backend_tls.is_some())
            .finish_non_exhaustive()
    }
}

impl Proxy {
    /// Binds `listen` for clients of `backend`; `tls`: the client leg's TLS, offered in
    /// each greeting; `backend_tls`: the backend leg's.
    ///
    /// # Errors
    /// The address cannot be bound (in use, not local).
    pub async fn bind(
        listen: SocketAddr,
        backend: Backend,
        tls: Option<TlsAcceptor>,
        backend_tls: Option<BackendTls>,
    ) -> anyhow::Result<Proxy> {
        let listener = TcpListener::bind(listen)
            .await
            .with_context(|| format!("cannot listen on {listen} (--listen)"))?;
        Ok(Proxy {
            listener,
            backend: Arc::new(backend),
            tls: tls.map(Arc::new),
            backend_tls: backend_tls.map(Arc::new),
            stats: Arc::default(),
        })
    }

    /// The address clients connect to (the port chosen when `--listen` gave port 0).
    ///
    /// # Errors
    /// The socket's address cannot be read.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves clients until `stop` completes; then accepts no one, lets every connection
    /// finish its command in flight, and returns the summary. With `report_interval`, prints
    /// a line per interval on standard output.
    pub async fn run(
        self,
        stop: impl Future<Output = ()>,
        report_interval: Option<Duration>,
    ) -> Summary {
        let start = Instant::now();
        let (tx, rx) = watch::channel(false);
        let mut tasks = JoinSet::new();
        let reporter = report_interval.map(|every| {
            let stats = self.stats.clone();
            tokio::spawn(async move {
                let mut r = Reporter::new();
                let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
                loop {
                    tick.tick().await;
                    println!("{}", r.line(&stats));
                }
            })
        });
        tokio::pin!(stop);
        loop {
            tokio::select! {
                () = &mut stop => break,
                accepted = self.listener.accept() => match accepted {
                    Ok((client, _)) => {
                        tasks.spawn(conn::serve(client, self.backend.clone(), self.tls.clone(),
                            self.backend_tls.clone(), self.stats.clone(), rx.clone()));
                    }
                    Err(e) => {
                        // Out of descriptors and the like: say so, breathe, go on.
                        eprintln!("encbench-proxy: accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                },
                Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            }
        }
        drop(self.listener);
        let _ = tx.send(true);
        while tasks.join_next().await.is_some() {}
        if let Some(r) = reporter {
            r.abort();
        }
        Summary::of(&self.stats, "forward", start.elapsed())
    }
}

/// Completes at the first SIGTERM or SIGINT.
///
/// # Errors
/// The signal handlers cannot be installed.
pub fn stop_signal() -> anyhow::Result<impl Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).context("cannot handle SIGTERM")?;
    let mut int = signal(SignalKind::interrupt()).context("cannot handle SIGINT")?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
    })
}
