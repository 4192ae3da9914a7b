//! Blocking loopback helpers for criterion benches: a server and a client of
//! one transport on a private single-threaded runtime, one operation per call.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::runtime::Runtime;

use crate::error::{Error, Result};
use crate::handshake::GREETING;
use crate::net::{self, ServerHandle};
use crate::pki::Pki;
use crate::tls::{BoxIo, Client, Server, TlsParams, with_timeout};

const TIMEOUT: Duration = Duration::from_secs(10);

fn runtime() -> Result<Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("start a tokio runtime", e))
}

/// Full connections one after another: connect, handshake, 1-byte greeting.
pub struct Handshakes {
    rt: Runtime,
    server: Option<ServerHandle>,
    client: Client,
    addr: SocketAddr,
}

impl Handshakes {
    /// Starts the server of `params`.
    ///
    /// # Errors
    /// Setup and bind errors.
    pub fn new(params: &TlsParams, pki: &Pki) -> Result<Self> {
        let rt = runtime()?;
        let chain = pki.chain(params.cert);
        let server = Server::new(params, chain)?;
        let client = Client::new(params, &chain.ca)?;
        let handle = rt.block_on(async {
            net::serve(
                server,
                "127.0.0.1:0"
                    .parse()
                    .map_err(|_| Error::Protocol("address".into()))?,
                TIMEOUT,
                |mut s: BoxIo| async move {
                    with_timeout("write greeting", TIMEOUT, async {
                        s.write_all(&[GREETING]).await?;
                        s.flush().await
                    })
                    .await?
                    .map_err(|e| Error::io("write greeting", e))
                },
            )
        })?;
        let addr = handle.addr;
        Ok(Self {
            rt,
            server: Some(handle),
            client,
            addr,
        })
    }

    /// One connection: connect, handshake, read the greeting; true if resumed.
    ///
    /// # Errors
    /// Connection, handshake and timeout errors.
    pub fn one(&self) -> Result<bool> {
        self.rt.block_on(async {
            let mut est = net::connect(&self.client, self.addr, TIMEOUT).await?;
            let mut b = [0u8; 1];
            with_timeout("read greeting", TIMEOUT, est.stream.read_exact(&mut b))
                .await?
                .map_err(|e| Error::io("read greeting", e))?;
            Ok(est.resumed)
        })
    }
}

impl Drop for Handshakes {
    fn drop(&mut self) {
        if let Some(h) = self.server.take() {
            let _ = self.rt.block_on(h.stop());
        }
    }
}

/// One established connection for request/response round trips.
pub struct RoundTrips {
    rt: Runtime,
    server: Option<ServerHandle>,
    stream: BoxIo,
    request: Vec<u8>,
    response: Vec<u8>,
}

impl RoundTrips {
    /// Connects a client of `params` to a server answering each `request`-byte
    /// request with `response` bytes.
    ///
    /// # Errors
    /// Setup, bind, connection and handshake errors.
    pub fn new(params: &TlsParams, pki: &Pki, request: usize, response: usize) -> Result<Self> {
        let rt = runtime()?;
        let chain = pki.chain(params.cert);
        let server = Server::new(params, chain)?;
        let client = Client::new(params, &chain.ca)?;
        let (handle, stream) = rt.block_on(async {
            let handle = net::serve(
                server,
                "127.0.0.1:0"
                    .parse()
                    .map_err(|_| Error::Protocol("address".into()))?,
                TIMEOUT,
                move |mut s: BoxIo| async move {
                    let mut req = vec![0u8; request];
                    let resp = vec![0x5au8; response];
                    while s.read_exact(&mut req).await.is_ok() {
                        s.write_all(&resp)
                            .await
                            .map_err(|e| Error::io("server write", e))?;
                        s.flush().await.map_err(|e| Error::io("server write", e))?;
                    }
                    Ok(())
                },
            )?;
            let est = net::connect(&client, handle.addr, TIMEOUT).await?;
            Ok::<_, Error>((handle, est.stream))
        })?;
        Ok(Self {
            rt,
            server: Some(handle),
            stream,
            request: vec![0x03; request],
            response: vec![0; response],
        })
    }

    /// One round trip.
    ///
    /// # Errors
    /// I/O and timeout errors.
    pub fn one(&mut self) -> Result<()> {
        let Self {
            rt,
            stream,
            request,
            response,
            ..
        } = self;
        rt.block_on(async {
            with_timeout("round trip", TIMEOUT, async {
                stream.write_all(request).await?;
                stream.flush().await?;
                stream.read_exact(response).await
            })
            .await?
            .map_err(|e| Error::io("round trip", e))?;
            Ok(())
        })
    }
}

impl Drop for RoundTrips {
    fn drop(&mut self) {
        if let Some(h) = self.server.take() {
            let _ = self.rt.block_on(h.stop());
        }
    }
}
