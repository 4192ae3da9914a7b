//! One client connection: connect the backend, relay its greeting and the login (the
//! backend's own scramble, capabilities masked), then `forward` mode: each command and
//! each reply packet forwarded verbatim after a header peek, replies followed to their end
//! by mysql-wire's [`Reply`] so that whole buffered reads go out in one write.

use std::sync::Arc;

use encbench_mysql_wire::handshake::{
    Login, mask_greeting, mask_response, parse_login, ssl_request_for,
};
use encbench_mysql_wire::mysql_common::constants::CapabilityFlags;
use encbench_mysql_wire::mysql_common::packets::HandshakeResponse;
use encbench_mysql_wire::ok_eof::{ERR_HEADER, OK_HEADER, put_err};
use encbench_mysql_wire::packet::{HEADER_LEN, Header, MAX_PAYLOAD, PacketReader, write_packet};
use encbench_mysql_wire::reply::{Reply, ReplyKind, ReplyPacket};
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio_rustls::{TlsAcceptor, TlsConnector};

use crate::cli::Backend;
use crate::reply::{Expect, command, expect};
use crate::stats::Stats;

/// Bytes of each leg's read buffer; it grows only for a longer packet.
const BUFFER: usize = 64 * 1024;

/// How long a backend connection may take to open before the client is let go.
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

// Errors the proxy writes itself carry server error codes (1xxx): libmariadb shows a code
// of its own client range (2xxx) received from a server as "Received malformed packet"
// (2027), not the message.
/// 1043, ER_HANDSHAKE_ERROR, "Bad handshake" (SQL state 08S01): a login the proxy cannot
/// carry (TLS asked for and not offered, TLS to the backend failed, a malformed login).
const BAD_HANDSHAKE: u16 = 1043;
/// 1105, ER_UNKNOWN_ERROR (SQL state HY000), with the proxy's message: the backend cannot be
/// reached or was lost.
const BACKEND_ERROR: u16 = 1105;
/// 1047, ER_UNKNOWN_COM_ERROR, "Unknown command" (SQL state 08S01).
const UNKNOWN_COMMAND: u16 = 1047;

/// Why a session ended early (logged on standard error, one line).
#[derive(Debug, thiserror::Error)]
enum Ended {
    /// The client went away or broke the protocol: nothing to tell anyone.
    #[error("client gone")]
    Client,
    /// The backend could not be reached or was lost; the client was told when it could be.
    #[error("{0}")]
    Backend(String),
}

/// Serves one client until it quits, either side closes, or the proxy stops (`shutdown`
/// set: the connection closes once no command is in flight).
pub async fn serve(
    mut client: TcpStream,
    backend: Arc<Backend>,
    tls: Option<Arc<TlsAcceptor>>,
    backend_tls: Option<Arc<BackendTls>>,
    stats: Arc<Stats>,
    shutdown: watch::Receiver<bool>,
) {
    let _open = stats.open();
    let peer = client.peer_addr().ok();
    let mut s = Session {
        stats: &stats,
        tls: tls.as_deref(),
        backend_tls: backend_tls.as_deref(),
        scratch: Vec::new(),
        payload: Vec::new(),
        capabilities: CapabilityFlags::empty(),
    };
    if let Err(Ended::Backend(e)) = s.run(&mut client, &backend, shutdown).await {
        match peer {
            Some(p) => eprintln!("encbench-proxy: client {p}: {e}"),
            None => eprintln!("encbench-proxy: {e}"),
        }
    }
}

/// Sequence ids of the login on the two legs: the first id to the backend, and how far
/// the client leg runs ahead (wrapping: 1 after an SslRequest the backend leg did not see,
/// 255 when only the backend leg had one).
#[derive(Debug, Clone, Copy)]
struct Leg {
    backend_seq: u8,
    offset: u8,
}

/// Reads one packet of at most one frame exactly (header, then payload), without reading
/// ahead; returns its sequence id.
async fn read_exact_packet(client: &mut TcpStream, payload: &mut Vec<u8>) -> Result<u8, Ended> {
    let mut header = [0u8; HEADER_LEN];
    client
        .read_exact(&mut header)
        .await
        .map_err(|_| Ended::Client)?;
    let h = Header::parse(&header);
    payload.clear();
    payload.resize(h.len, 0);
    client
        .read_exact(payload)
        .await
        .map_err(|_| Ended::Client)?;
    Ok(h.seq)
}

/// What the backend gets as the login.
struct BackendLogin {
    /// The SslRequest to send first (the backend leg runs TLS), or none.
    ssl_request: Option<Vec<u8>>,
    /// The masked HandshakeResponse.
    response: Vec<u8>,
    /// The capabilities the client asked for.
    capabilities: CapabilityFlags,
}

/// The backend leg's TLS: a connector verifying the `--backend-tls-ca` CA, and the name
/// the backend's certificate must carry (the `--backend` host).
pub type BackendTls = (TlsConnector, ServerName<'static>);

struct Session<'a> {
    stats: &'a Stats,
    /// The backend leg's TLS (`--backend-tls`).
    backend_tls: Option<&'a BackendTls>,
    /// The client leg's TLS (`--tls-cert`, `--tls-key`), offered in the greeting.
    tls: Option<&'a TlsAcceptor>,
    /// Reused for packets the proxy writes itself.
    scratch: Vec<u8>,
    /// Reused for connection-phase payloads.
    payload: Vec<u8>,
    /// The capabilities both legs run with, which set the replies' grammar: the ones the
    /// greeting offered, narrowed to the client's once it logs in.
    capabilities: CapabilityFlags,
}

impl Session<'_> {
    /// Sends ERR `code` with sequence id `seq` to the client (best effort: it may be gone).
    async fn send_err<C: AsyncWrite + Unpin>(
        &mut self,
        client: &mut C,
        seq: u8,
        code: u16,
        state: [u8; 5],
        msg: &str,
    ) {
        let mut p = Vec::new();
        put_err(&mut p, code, state, msg);
        let _ = write_packet(client, seq, &p, &mut self.scratch).await;
    }

    async fn run(
        &mut self,
        client: &mut TcpStream,
        target: &Backend,
        shutdown: watch::Receiver<bool>,
    ) -> Result<(), Ended> {
        let _ = client.set_nodelay(true);
        let connect = TcpStream::connect((target.host.as_str(), target.port));
        let connected = tokio::time::timeout(CONNECT_TIMEOUT, connect)
            .await
            .unwrap_or_else(|_| {
                Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("no answer after {} s", CONNECT_TIMEOUT.as_secs()),
                ))
            });
        let mut backend = match connected {
            Ok(b) => b,
            Err(e) => {
                // An ERR in place of the greeting, as a server refusing a connection sends.
                self.stats.error();
                let msg = format!("cannot connect to the backend {target}: {e}");
                let shown = format!("encbench-proxy: {msg}");
                self.send_err(client, 0, BACKEND_ERROR, *b"HY000", &shown)
                    .await;
                return Err(Ended::Backend(msg));
            }
        };
        let _ = backend.set_nodelay(true);
        let mut from_backend = PacketReader::new(BUFFER);
        let Some(version) = self
            .greeting(client, &mut backend, &mut from_backend, target)
            .await?
        else {
            return Ok(());
        };
        // The first login packet, read exactly: after an SslRequest the client's TLS
        // ClientHello follows at once and belongs to the TLS layer.
        let seq = read_exact_packet(client, &mut self.payload).await?;
        match (parse_login(&self.payload), self.tls) {
            (Ok(Login::SslRequest(_)), Some(acceptor)) => {
                let acceptor = acceptor.clone();
                let mut tls = acceptor.accept(&mut *client).await.map_err(|e| {
                    self.stats.error();
                    Ended::Backend(format!("TLS handshake with the client failed: {e}"))
                })?;
                let mut from_client = PacketReader::new(BUFFER);
                let Some(seq) = from_client
                    .read_packet(&mut tls, &mut self.payload)
                    .await
                    .map_err(|_| Ended::Client)?
                else {
                    return Err(Ended::Client);
                };
                let Ok(Login::Response(r)) = parse_login(&self.payload) else {
                    let msg = "encbench-proxy: malformed client handshake response";
                    self.send_err(&mut tls, seq.wrapping_add(1), BAD_HANDSHAKE, *b"08S01", msg)
                        .await;
                    self.stats.error();
                    return Ok(());
                };
                let login = self.backend_login(&r, version);
                self.finish(
                    &mut tls,
                    backend,
                    from_client,
                    from_backend,
                    login,
                    seq,
                    shutdown,
                    target,
                )
                .await
            }
            (Ok(Login::SslRequest(_)), None) => {
                // Not offered in the greeting: a client that asks anyway is refused, never
                // served in plaintext.
                let msg = "encbench-proxy: TLS was asked for but the proxy offers none; connect without TLS or start the proxy with --tls-cert and --tls-key";
                self.send_err(client, seq.wrapping_add(1), BAD_HANDSHAKE, *b"08S01", msg)
                    .await;
                self.stats.error();
                Ok(())
            }
            (Ok(Login::Response(r)), _) => {
                let login = self.backend_login(&r, version);
                let from_client = PacketReader::new(BUFFER);
                self.finish(
                    client,
                    backend,
                    from_client,
                    from_backend,
                    login,
                    seq,
                    shutdown,
                    target,
                )
                .await
            }
            (Err(e), _) => {
                let msg = format!("encbench-proxy: {e}");
                self.send_err(client, seq.wrapping_add(1), BAD_HANDSHAKE, *b"08S01", &msg)
                    .await;
                self.stats.error();
                Ok(())
            }
        }
    }

    /// The login for the backend, from the client's `response` (in `self.payload`): the
    /// SslRequest first when the backend leg runs TLS, then the masked response.
    fn backend_login(
        &self,
        response: &HandshakeResponse<'_>,
        version: (u16, u16, u16),
    ) -> BackendLogin {
        let tls = self.backend_tls.is_some();
        BackendLogin {
            ssl_request: tls.then(|| ssl_request_for(response, &self.payload)),
            response: mask_response(response, &self.payload, version, tls),
            capabilities: response.capabilities(),
        }
    }

    /// Opens the backend leg's TLS when asked, logs in (the client's login packet had
    /// sequence id `client_seq`), then forwards until the session ends.
    #[allow(clippy::too_many_arguments)]
    async fn finish<C: AsyncRead + AsyncWrite + Unpin>(
        &mut self,
        client: &mut C,
        mut backend: TcpStream,
        mut from_client: PacketReader,
        mut from_backend: PacketReader,
        login: BackendLogin,
        client_seq: u8,
        shutdown: watch::Receiver<bool>,
        target: &Backend,
    ) -> Result<(), Ended> {
        self.capabilities &= login.capabilities;
        let Some(ssl_request) = login.ssl_request else {
            let leg = Leg {
                backend_seq: 1,
                offset: client_seq.wrapping_sub(1),
            };
            if self
                .authenticate(
                    client,
                    &mut backend,
                    &mut from_client,
                    &mut from_backend,
                    &login.response,
                    leg,
                    target,
                )
                .await?
            {
                return self
                    .forward(
                        client,
                        &mut backend,
                        &mut from_client,
                        &mut from_backend,
                        shutdown,
                    )
                    .await;
            }
            return Ok(());
        };
        let Some((connector, name)) = self.backend_tls else {
            return Ok(());
        };
        let lost = |e: std::io::Error| {
            Ended::Backend(format!("lost the backend {target} during the login: {e}"))
        };
        write_packet(&mut backend, 1, &ssl_request, &mut self.scratch)
            .await
            .map_err(lost)?;
        let mut backend = match connector.connect(name.clone(), backend).await {
            Ok(b) => b,
            Err(e) => {
                self.stats.error();
                let msg = format!("TLS to the backend {target} failed: {e}");
                let shown = format!("encbench-proxy: {msg}");
                self.send_err(
                    client,
                    client_seq.wrapping_add(1),
                    BAD_HANDSHAKE,
                    *b"08S01",
                    &shown,
                )
                .await;
                return Err(Ended::Backend(msg));
            }
        };
        let leg = Leg {
            backend_seq: 2,
            offset: client_seq.wrapping_sub(2),
        };
        if self
            .authenticate(
                client,
                &mut backend,
                &mut from_client,
                &mut from_backend,
                &login.response,
                leg,
                target,
            )
            .await?
        {
            return self
                .forward(
                    client,
                    &mut backend,
                    &mut from_client,
                    &mut from_backend,
                    shutdown,
                )
                .await;
        }
        Ok(())
    }

    /// Relays the backend's greeting, masked; the server version, or `None` when the
    /// backend refused the connection (its ERR relayed).
    async fn greeting(
        &mut self,
        client: &mut TcpStream,
        backend: &mut TcpStream,
        from_backend: &mut PacketReader,
        target: &Backend,
    ) -> Result<Option<(u16, u16, u16)>, Ended> {
        let seq = match from_backend.read_packet(backend, &mut self.payload).await {
            Ok(Some(seq)) => seq,
            Ok(None) => {
                self.stats.error();
                return Err(Ended::Backend(format!(
                    "the backend {target} closed the connection before its greeting"
                )));
            }
            Err(e) => {
                self.stats.error();
                return Err(Ended::Backend(format!(
                    "lost the backend {target} before its greeting: {e}"
                )));
            }
        };
        if self.payload.first() == Some(&ERR_HEADER) {
            // The server refuses before any login (too many connections, host blocked).
            self.stats.error();
            let _ = write_packet(client, seq, &self.payload, &mut self.scratch).await;
            return Ok(None);
        }
        let greeting = match mask_greeting(&self.payload, self.tls.is_some()) {
            Ok(g) => g,
            Err(e) => {
                self.stats.error();
                // Closed before any greeting, as when the backend cannot be reached.
                return Err(Ended::Backend(format!("the backend {target} sent a {e}")));
            }
        };
        write_packet(client, seq, &greeting.payload, &mut self.scratch)
            .await
            .map_err(|_| Ended::Client)?;
        self.capabilities = greeting.capabilities;
        Ok(Some(greeting.server_version))
    }

    /// Sends the masked login to the backend and relays the authentication exchange until
    /// the backend's OK (`Ok(true)`) or ERR (`Ok(false)`, relayed).
    #[allow(clippy::too_many_arguments)]
    async fn authenticate<C: AsyncRead + AsyncWrite + Unpin, B: AsyncRead + AsyncWrite + Unpin>(
        &mut self,
        client: &mut C,
        backend: &mut B,
        from_client: &mut PacketReader,
        from_backend: &mut PacketReader,
        login: &[u8],
        leg: Leg,
        target: &Backend,
    ) -> Result<bool, Ended> {
        let lost = |e: Option<std::io::Error>| {
            Ended::Backend(match e {
                Some(e) => format!("lost the backend {target} during the login: {e}"),
                None => format!("the backend {target} closed the connection during the login"),
            })
        };
        write_packet(backend, leg.backend_seq, login, &mut self.scratch)
            .await
            .map_err(|e| lost(Some(e)))?;
        let mut seq = leg.backend_seq;
        loop {
            let next = seq.wrapping_add(1).wrapping_add(leg.offset);
            seq = match from_backend.read_packet(backend, &mut self.payload).await {
                Ok(Some(seq)) => seq,
                Ok(None) => return Err(self.lost_at_login(client, next, lost(None)).await),
                Err(e) => return Err(self.lost_at_login(client, next, lost(Some(e))).await),
            };
            write_packet(
                client,
                seq.wrapping_add(leg.offset),
                &self.payload,
                &mut self.scratch,
            )
            .await
            .map_err(|_| Ended::Client)?;
            match self.payload.as_slice() {
                [OK_HEADER, ..] => return Ok(true),
                [ERR_HEADER, ..] => {
                    self.stats.error();
                    return Ok(false);
                }
                // caching_sha2_password's fast path: the OK follows without a client packet.
                [0x01, 0x03] => {}
                _ => {
                    let Some(s) = from_client
                        .read_packet(client, &mut self.payload)
                        .await
                        .map_err(|_| Ended::Client)?
                    else {
                        return Err(Ended::Client);
                    };
                    seq = s.wrapping_sub(leg.offset);
                    write_packet(backend, seq, &self.payload, &mut self.scratch)
                        .await
                        .map_err(|e| lost(Some(e)))?;
                }
            }
        }
    }

    /// Tells the client the backend was lost during the login (ERR with sequence id `seq`).
    async fn lost_at_login<C: AsyncWrite + Unpin>(
        &mut self,
        client: &mut C,
        seq: u8,
        e: Ended,
    ) -> Ended {
        self.stats.error();
        self.send_err(
            client,
            seq,
            BACKEND_ERROR,
            *b"HY000",
            &format!("encbench-proxy: {e}"),
        )
        .await;
        e
    }

    /// `forward` mode: commands and replies verbatim until COM_QUIT, a close, or shutdown.
    async fn forward<C: AsyncRead + AsyncWrite + Unpin, B: AsyncRead + AsyncWrite + Unpin>(
        &mut self,
        client: &mut C,
        backend: &mut B,
        from_client: &mut PacketReader,
        from_backend: &mut PacketReader,
        mut shutdown: watch::Receiver<bool>,
    ) -> Result<(), Ended> {
        loop {
            // Wait for a whole command frame; while idle, a shutdown or a backend that goes
            // away ends the session.
            let h = loop {
                if let Some((h, true)) = from_client.first_frame() {
                    break h;
                }
                let stopping = *shutdown.borrow();
                if stopping && from_client.buffered().is_empty() {
                    let _ = backend.write_all(&[1, 0, 0, 0, command::QUIT]).await;
                    return Ok(());
                }
                let want = from_client
                    .first_frame()
                    .map_or(HEADER_LEN, |(h, _)| h.frame_len());
                tokio::select! {
                    n = from_client.fill(client, want) => match n {
                        Ok(0) if from_client.buffered().is_empty() => {
                            let _ = backend.write_all(&[1, 0, 0, 0, command::QUIT]).await;
                            return Ok(());
                        }
                        Ok(0) | Err(_) => return Err(Ended::Client),
                        Ok(_) => {}
                    },
                    _ = shutdown.changed(), if !stopping => {}
                    n = from_backend.fill(backend, HEADER_LEN), if from_backend.buffered().is_empty() => match n {
                        // The backend closed an idle connection (shutdown, KILL, timeout).
                        Ok(0) | Err(_) => return Err(Ended::Backend("the backend closed an idle connection".into())),
                        // Something unasked (a notice before closing): passed on as is.
                        Ok(_) => {
                            client.write_all(from_backend.buffered()).await.map_err(|_| Ended::Client)?;
                            let n = from_backend.buffered().len();
                            from_backend.consume(n);
                        }
                    },
                }
            };
            let cmd = from_client.buffered().get(HEADER_LEN).copied().unwrap_or(0);
            let expected = expect(cmd);
            if expected == Expect::Refused {
                from_client.consume(h.frame_len());
                self.stats.error();
                let msg = "encbench-proxy does not relay this command (change user, replication, bulk execute)";
                self.send_err(
                    client,
                    h.seq.wrapping_add(1),
                    UNKNOWN_COMMAND,
                    *b"08S01",
                    msg,
                )
                .await;
                continue;
            }
            if cmd == command::QUIT {
                let _ = backend
                    .write_all(&from_client.buffered()[..h.frame_len()])
                    .await;
                return Ok(());
            }
            self.forward_command(client, backend, from_client, h)
                .await?;
            let Expect::Reply(kind) = expected else {
                continue;
            };
            self.forward_reply(client, backend, from_backend, kind, h.seq)
                .await?;
        }
    }

    /// Writes the command whose first frame `h` is buffered, and its continuation frames.
    async fn forward_command<
        C: AsyncRead + AsyncWrite + Unpin,
        B: AsyncRead + AsyncWrite + Unpin,
    >(
        &mut self,
        client: &mut C,
        backend: &mut B,
        from_client: &mut PacketReader,
        mut h: Header,
    ) -> Result<(), Ended> {
        loop {
            let r = backend
                .write_all(&from_client.buffered()[..h.frame_len()])
                .await;
            from_client.consume(h.frame_len());
            if let Err(e) = r {
                self.stats.error();
                let msg = format!("encbench-proxy: lost the backend: {e}");
                self.send_err(
                    client,
                    h.seq.wrapping_add(1),
                    BACKEND_ERROR,
                    *b"HY000",
                    &msg,
                )
                .await;
                return Err(Ended::Backend(msg));
            }
            if h.len < MAX_PAYLOAD {
                return Ok(());
            }
            h = match from_client.read_frame(client).await {
                Ok(Some(h)) => h,
                _ => return Err(Ended::Client),
            };
        }
    }

    /// Follows a reply of `kind` (to a command sent with sequence id `seq`), writing each
    /// buffered run of whole packets to the client in one write. A reply outside its grammar
    /// ends the session: where the next reply starts is lost.
    async fn forward_reply<C: AsyncRead + AsyncWrite + Unpin, B: AsyncRead + AsyncWrite + Unpin>(
        &mut self,
        client: &mut C,
        backend: &mut B,
        from_backend: &mut PacketReader,
        kind: ReplyKind,
        seq: u8,
    ) -> Result<(), Ended> {
        let mut reply = Reply::new(kind, self.capabilities);
        let (mut forwarded, mut failed) = (false, false);
        loop {
            let buf = from_backend.buffered();
            let (mut pos, mut broken) = (0, None);
            while !reply.is_done() && buf.len() - pos >= HEADER_LEN {
                let h = Header::parse(&buf[pos..]);
                if buf.len() - pos < h.frame_len() {
                    break;
                }
                match reply.feed(&buf[pos..pos + h.frame_len()]) {
                    Ok(ReplyPacket::Err) => failed = true,
                    Ok(_) => {}
                    Err(e) => {
                        broken = Some(e);
                        break;
                    }
                }
                pos += h.frame_len();
            }
            if pos > 0 {
                client
                    .write_all(&buf[..pos])
                    .await
                    .map_err(|_| Ended::Client)?;
                from_backend.consume(pos);
                forwarded = true;
            }
            if let Some(e) = broken {
                self.stats.error();
                let msg = format!("encbench-proxy: the backend's reply broke the protocol: {e}");
                if !forwarded {
                    self.send_err(client, seq.wrapping_add(1), BACKEND_ERROR, *b"HY000", &msg)
                        .await;
                }
                return Err(Ended::Backend(msg));
            }
            if reply.is_done() {
                self.stats.query();
                if failed {
                    self.stats.error();
                }
                return Ok(());
            }
            let want = from_backend
                .first_frame()
                .map_or(HEADER_LEN, |(h, _)| h.frame_len());
            let cause = match from_backend.fill(backend, want).await {
                Ok(0) => "the backend closed the connection".to_string(),
                Err(e) => e.to_string(),
                Ok(_) => continue,
            };
            self.stats.error();
            let msg = format!("encbench-proxy: lost the backend during a command: {cause}");
            if !forwarded {
                self.send_err(client, seq.wrapping_add(1), BACKEND_ERROR, *b"HY000", &msg)
                    .await;
            }
            return Err(Ended::Backend(msg));
        }
    }
}
