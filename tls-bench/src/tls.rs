//! Transports: building a server and a client for one (transport, version,
//! certificate, cipher, resumption) choice, and running the handshake with a
//! timeout. Every transport hands back the same boxed stream type, so the
//! sections above this module are written once.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use encbench_common::pki;
use openssl::pkey::PKey;
use openssl::ssl::{
    Ssl, SslAcceptor, SslConnector, SslMethod, SslOptions, SslSession, SslSessionCacheMode,
    SslVerifyMode, SslVersion,
};
use openssl::x509::X509;
use rustls::HandshakeKind;
use rustls::client::Resumption as ClientResumption;
use rustls::crypto::{CryptoProvider, SupportedKxGroup};
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::server::{NoServerSessionStorage, ServerSessionMemoryCache};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::config::{CertType, Cipher, Resumption, Suite, TlsVersion, Transport};
use crate::error::{Error, Result};
use crate::pki::{Chain, SERVER_NAME};

/// A byte stream: plain TCP or TLS over any inner stream.
pub trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// An established connection of any transport.
pub type BoxIo = Box<dyn Io>;

/// What one side learned from a finished handshake.
pub struct Established {
    /// The stream, ready for application data.
    pub stream: BoxIo,
    /// True if the handshake resumed an earlier session (always false for plain TCP).
    pub resumed: bool,
    /// The negotiated suite in rustls' spelling, `None` for plain TCP.
    pub suite: Option<String>,
}

impl Established {
    /// `stream` after its handshake, with what the handshake reported: whether it
    /// resumed a session, and the suite.
    fn new(stream: impl Io + 'static, (resumed, suite): (bool, Option<String>)) -> Established {
        Established {
            stream: Box::new(stream),
            resumed,
            suite,
        }
    }
}

/// [`Error::Handshake`] on `side` (`client` or `server`) of `transport`, from the
/// library's reason.
fn handshake_failure(transport: Transport, side: &'static str) -> impl Fn(String) -> Error {
    move |detail| Error::Handshake {
        transport: transport.name(),
        side,
        detail,
    }
}

/// What a finished rustls handshake reports: resumed or not, the suite.
fn rustls_outcome(conn: &rustls::CommonState) -> (bool, Option<String>) {
    let resumed = conn.handshake_kind() == Some(HandshakeKind::Resumed);
    let suite = conn
        .negotiated_cipher_suite()
        .map(|c| format!("{:?}", c.suite()));
    (resumed, suite)
}

/// What a finished OpenSSL handshake reports: resumed or not, the suite (in its
/// standard name where OpenSSL has one).
fn openssl_outcome(ssl: &openssl::ssl::SslRef) -> (bool, Option<String>) {
    let suite = ssl
        .current_cipher()
        .map(|c| c.standard_name().unwrap_or(c.name()).to_string());
    (ssl.session_reused(), suite)
}

/// Everything that selects one way of running a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TlsParams {
    /// Library (or plain TCP).
    pub transport: Transport,
    /// Protocol version (ignored for plain TCP).
    pub version: TlsVersion,
    /// Server certificate key type (ignored for plain TCP).
    pub cert: CertType,
    /// Bulk cipher of the only suite offered (ignored for plain TCP).
    pub cipher: Cipher,
    /// Full or resumed handshakes.
    pub resumption: Resumption,
}

impl TlsParams {
    /// A full-handshake configuration with ECDSA P-256 and AES-256-GCM.
    pub fn new(transport: Transport, version: TlsVersion) -> Self {
        Self {
            transport,
            version,
            cert: CertType::EcdsaP256,
            cipher: Cipher::Aes256Gcm,
            resumption: Resumption::Full,
        }
    }

    /// The only suite offered by both sides.
    pub fn suite(&self) -> Suite {
        Suite {
            version: self.version,
            cipher: self.cipher,
            cert: self.cert,
        }
    }

    /// `TLSv1_3`, or `none` for plain TCP.
    pub fn version_name(&self) -> &'static str {
        if self.transport.is_tls() {
            self.version.name()
        } else {
            "none"
        }
    }

    /// `EcdsaP256`, or `none` for plain TCP.
    pub fn cert_name(&self) -> &'static str {
        if self.transport.is_tls() {
            self.cert.name()
        } else {
            "none"
        }
    }

    fn check(&self) -> Result<()> {
        if self.version == TlsVersion::Tls13 && self.resumption == Resumption::SessionId {
            return Err(Error::Unsupported(
                "TLS 1.3 has no session-id resumption: use tickets".to_string(),
            ));
        }
        Ok(())
    }
}

/// The crypto provider of a rustls transport, cut down to one suite and X25519
/// key exchange (so every library runs the same handshake; OpenSSL 3.0 has no
/// hybrid post-quantum group).
///
/// # Errors
/// [`Error::Unsupported`] if the provider lacks the suite or `transport` is not rustls.
pub fn rustls_provider(transport: Transport, suite: Suite) -> Result<CryptoProvider> {
    let (mut provider, x25519): (CryptoProvider, &'static dyn SupportedKxGroup) = match transport {
        Transport::RustlsAwsLcRs => (
            rustls::crypto::aws_lc_rs::default_provider(),
            rustls::crypto::aws_lc_rs::kx_group::X25519,
        ),
        Transport::RustlsRing => (
            rustls::crypto::ring::default_provider(),
            rustls::crypto::ring::kx_group::X25519,
        ),
        other => {
            return Err(Error::Unsupported(format!(
                "{other} is not a rustls transport"
            )));
        }
    };
    let name = suite.name();
    provider
        .cipher_suites
        .retain(|s| format!("{:?}", s.suite()) == name);
    if provider.cipher_suites.is_empty() {
        return Err(Error::Unsupported(format!(
            "{transport} does not offer {name}"
        )));
    }
    provider.kx_groups = vec![x25519];
    Ok(provider)
}

static TLS12_ONLY: &[&rustls::SupportedProtocolVersion] = &[&rustls::version::TLS12];
static TLS13_ONLY: &[&rustls::SupportedProtocolVersion] = &[&rustls::version::TLS13];

fn rustls_versions(v: TlsVersion) -> &'static [&'static rustls::SupportedProtocolVersion] {
    match v {
        TlsVersion::Tls12 => TLS12_ONLY,
        TlsVersion::Tls13 => TLS13_ONLY,
    }
}

fn openssl_version(v: TlsVersion) -> SslVersion {
    match v {
        TlsVersion::Tls12 => SslVersion::TLS1_2,
        TlsVersion::Tls13 => SslVersion::TLS1_3,
    }
}

/// [`Error::Setup`] of `what` from a refused rustls configuration, with rustls' reason.
fn pki_setup(what: String) -> impl FnOnce(pki::PkiError) -> Error {
    move |e| match e {
        pki::PkiError::Rustls { source, .. } => Error::setup(what, source),
        other => Error::setup(what, other),
    }
}

/// The rustls server configuration of `params` (also used by the in-memory handshake).
///
/// # Errors
/// [`Error::Setup`] / [`Error::Unsupported`] when rustls refuses the combination.
pub fn rustls_server_config(params: &TlsParams, chain: &Chain) -> Result<rustls::ServerConfig> {
    params.check()?;
    let what = || format!("{} server", params.transport);
    let provider = Arc::new(rustls_provider(params.transport, params.suite())?);
    let mut cfg = chain
        .server()
        .server_config(provider, rustls_versions(params.version))
        .map_err(pki_setup(what()))?;
    match params.resumption {
        Resumption::Full => {
            cfg.session_storage = Arc::new(NoServerSessionStorage {});
            cfg.send_tls13_tickets = 0;
        }
        Resumption::SessionId => {
            cfg.session_storage = ServerSessionMemoryCache::new(1024);
        }
        Resumption::Ticket => {
            cfg.ticketer = match params.transport {
                Transport::RustlsRing => rustls::crypto::ring::Ticketer::new(),
                _ => rustls::crypto::aws_lc_rs::Ticketer::new(),
            }
            .map_err(|e| Error::setup(what(), e))?;
        }
    }
    Ok(cfg)
}

/// The rustls client configuration of `params`, trusting only `ca`.
///
/// # Errors
/// [`Error::Setup`] / [`Error::Unsupported`] when rustls refuses the combination.
pub fn rustls_client_config(
    params: &TlsParams,
    ca: &CertificateDer<'static>,
) -> Result<rustls::ClientConfig> {
    params.check()?;
    let what = || format!("{} client", params.transport);
    let provider = Arc::new(rustls_provider(params.transport, params.suite())?);
    let roots = pki::roots_of_cert(ca).map_err(pki_setup(what()))?;
    let mut cfg = pki::client_config(provider, rustls_versions(params.version), roots)
        .map_err(pki_setup(what()))?;
    cfg.resumption = match params.resumption {
        Resumption::Full => ClientResumption::disabled(),
        _ => ClientResumption::in_memory_sessions(256),
    };
    Ok(cfg)
}

enum ServerInner {
    Plain,
    Rustls(tokio_rustls::TlsAcceptor),
    Openssl(SslAcceptor),
}

/// The server side of a transport: turns accepted streams into [`Established`] ones.
pub struct Server {
    transport: Transport,
    inner: ServerInner,
}

impl Server {
    /// Builds the server of `params` presenting `chain`'s leaf.
    ///
    /// # Errors
    /// [`Error::Setup`] / [`Error::Unsupported`] when the library refuses the combination.
    pub fn new(params: &TlsParams, chain: &Chain) -> Result<Server> {
        let inner = match params.transport {
            Transport::Plain => ServerInner::Plain,
            Transport::RustlsAwsLcRs | Transport::RustlsRing => ServerInner::Rustls(
                tokio_rustls::TlsAcceptor::from(Arc::new(rustls_server_config(params, chain)?)),
            ),
            Transport::Openssl => ServerInner::Openssl(openssl_acceptor(params, chain)?),
        };
        Ok(Server {
            transport: params.transport,
            inner,
        })
    }

    /// Runs the server side of the handshake on `io`.
    ///
    /// # Errors
    /// [`Error::Timeout`] after `timeout`; [`Error::Handshake`] if the handshake fails.
    pub async fn accept<S>(&self, io: S, timeout: Duration) -> Result<Established>
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let fail = handshake_failure(self.transport, "server");
        match &self.inner {
            ServerInner::Plain => Ok(Established::new(io, (false, None))),
            ServerInner::Rustls(acceptor) => {
                let s = with_timeout("TLS handshake", timeout, acceptor.accept(io))
                    .await?
                    .map_err(|e| fail(io_detail(&e)))?;
                let outcome = rustls_outcome(s.get_ref().1);
                Ok(Established::new(s, outcome))
            }
            ServerInner::Openssl(acceptor) => {
                let ssl = Ssl::new(acceptor.context()).map_err(|e| fail(e.to_string()))?;
                let mut s =
                    tokio_openssl::SslStream::new(ssl, io).map_err(|e| fail(e.to_string()))?;
                with_timeout("TLS handshake", timeout, Pin::new(&mut s).accept())
                    .await?
                    .map_err(|e| fail(openssl_detail(&e)))?;
                let outcome = openssl_outcome(s.ssl());
                Ok(Established::new(s, outcome))
            }
        }
    }
}

/// The last session an OpenSSL client was given (by the new-session callback, which
/// OpenSSL calls when a TLS 1.2 handshake ends or a TLS 1.3 ticket arrives).
type SessionSlot = Arc<std::sync::Mutex<Option<SslSession>>>;

enum ClientInner {
    Plain,
    Rustls(tokio_rustls::TlsConnector),
    /// The connector, and the session to resume (`None` slot: full handshakes only).
    Openssl(SslConnector, Option<SessionSlot>),
}

/// The client side of a transport: turns connected streams into [`Established`] ones.
pub struct Client {
    transport: Transport,
    inner: ClientInner,
    unlimited_buffer: bool,
}

impl Client {
    /// Builds the client of `params`, trusting only `ca` (verification on, server
    /// name [`SERVER_NAME`]).
    ///
    /// # Errors
    /// [`Error::Setup`] / [`Error::Unsupported`] when the library refuses the combination.
    pub fn new(params: &TlsParams, ca: &CertificateDer<'static>) -> Result<Client> {
        let inner = match params.transport {
            Transport::Plain => ClientInner::Plain,
            Transport::RustlsAwsLcRs | Transport::RustlsRing => ClientInner::Rustls(
                tokio_rustls::TlsConnector::from(Arc::new(rustls_client_config(params, ca)?)),
            ),
            Transport::Openssl => {
                let slot = (params.resumption != Resumption::Full)
                    .then(|| Arc::new(std::sync::Mutex::new(None)));
                ClientInner::Openssl(openssl_connector(params, ca, slot.clone())?, slot)
            }
        };
        Ok(Client {
            transport: params.transport,
            inner,
            unlimited_buffer: false,
        })
    }

    /// Lifts rustls' 64 KiB limit on buffered outgoing data, so that one write of
    /// N bytes becomes exactly ceil(N / 16384) records whatever the socket accepts
    /// (OpenSSL always cuts records at 16 KiB boundaries of a write).
    pub fn with_unlimited_buffer(mut self) -> Self {
        self.unlimited_buffer = true;
        self
    }

    /// Runs the client side of the handshake on `io`.
    ///
    /// # Errors
    /// [`Error::Timeout`] after `timeout`; [`Error::Handshake`] if the handshake fails
    /// (for example a server certificate not signed by the client's CA).
    pub async fn connect<S>(&self, io: S, timeout: Duration) -> Result<Established>
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let fail = handshake_failure(self.transport, "client");
        match &self.inner {
            ClientInner::Plain => Ok(Established::new(io, (false, None))),
            ClientInner::Rustls(connector) => {
                let name = ServerName::try_from(SERVER_NAME)
                    .map_err(|e| fail(e.to_string()))?
                    .to_owned();
                let mut s = with_timeout("TLS handshake", timeout, connector.connect(name, io))
                    .await?
                    .map_err(|e| fail(io_detail(&e)))?;
                if self.unlimited_buffer {
                    s.get_mut().1.set_buffer_limit(None);
                }
                let outcome = rustls_outcome(s.get_ref().1);
                Ok(Established::new(s, outcome))
            }
            ClientInner::Openssl(connector, slot) => {
                let mut ssl = connector
                    .configure()
                    .and_then(|c| c.into_ssl(SERVER_NAME))
                    .map_err(|e| fail(e.to_string()))?;
                let session = slot
                    .as_ref()
                    .and_then(|s| s.lock().ok().and_then(|g| g.clone()));
                if let Some(session) = session {
                    set_session(&mut ssl, &session).map_err(|e| fail(e.to_string()))?;
                }
                let mut s =
                    tokio_openssl::SslStream::new(ssl, io).map_err(|e| fail(e.to_string()))?;
                with_timeout("TLS handshake", timeout, Pin::new(&mut s).connect())
                    .await?
                    .map_err(|e| fail(openssl_detail(&e)))?;
                let outcome = openssl_outcome(s.ssl());
                Ok(Established::new(s, outcome))
            }
        }
    }
}

fn openssl_acceptor(params: &TlsParams, chain: &Chain) -> Result<SslAcceptor> {
    params.check()?;
    let err = |e: openssl::error::ErrorStack| Error::setup("openssl server", e);
    let mut b = SslAcceptor::mozilla_intermediate_v5(SslMethod::tls_server()).map_err(err)?;
    configure_openssl(&mut b, params).map_err(err)?;
    let key = PKey::private_key_from_pkcs8(chain.pkcs8_der()).map_err(err)?;
    let cert = X509::from_der(&chain.leaf).map_err(err)?;
    b.set_private_key(&key).map_err(err)?;
    b.set_certificate(&cert).map_err(err)?;
    b.check_private_key().map_err(err)?;
    b.set_session_id_context(b"tls-bench").map_err(err)?;
    match params.resumption {
        // Full handshakes: no cache, no tickets.
        Resumption::Full => {
            b.set_session_cache_mode(SslSessionCacheMode::OFF);
            b.set_options(SslOptions::NO_TICKET);
            b.set_num_tickets(0).map_err(err)?;
        }
        // TLS 1.2 session ids: the server's session cache, no tickets.
        Resumption::SessionId => {
            b.set_session_cache_mode(SslSessionCacheMode::SERVER);
            b.set_options(SslOptions::NO_TICKET);
            b.set_num_tickets(0).map_err(err)?;
        }
        // Stateless tickets (TLS 1.2 RFC 5077, TLS 1.3 PSK): no server cache, one ticket.
        Resumption::Ticket => {
            b.set_session_cache_mode(SslSessionCacheMode::OFF);
            b.set_num_tickets(1).map_err(err)?;
        }
    }
    Ok(b.build())
}

/// Offers `session` for resumption on `ssl`.
///
/// `SSL_set_session` is `unsafe` in the openssl crate because the session must come
/// from the same `SSL_CTX`; the one session this client offers was handed over by the
/// new-session callback of this client's own connector (`openssl_connector`), so it
/// always does. The only unsafe code in the workspace.
#[allow(
    unsafe_code,
    reason = "SSL_set_session; see the function's documentation"
)]
fn set_session(
    ssl: &mut Ssl,
    session: &SslSession,
) -> std::result::Result<(), openssl::error::ErrorStack> {
    // SAFETY: `session` was created by a connection of the same SslContext (see above).
    unsafe { ssl.set_session(session) }
}

fn openssl_connector(
    params: &TlsParams,
    ca: &CertificateDer<'static>,
    slot: Option<SessionSlot>,
) -> Result<SslConnector> {
    params.check()?;
    let err = |e: openssl::error::ErrorStack| Error::setup("openssl client", e);
    let mut b = SslConnector::builder(SslMethod::tls_client()).map_err(err)?;
    configure_openssl(&mut b, params).map_err(err)?;
    // Trust only the test CA: a fresh store instead of the system's default paths.
    let mut store = openssl::x509::store::X509StoreBuilder::new().map_err(err)?;
    store
        .add_cert(X509::from_der(ca).map_err(err)?)
        .map_err(err)?;
    b.set_verify_cert_store(store.build()).map_err(err)?;
    b.set_verify(SslVerifyMode::PEER);
    if let Some(slot) = slot {
        // Keep the newest session (TLS 1.3 tickets arrive after the handshake, when
        // the client reads); OpenSSL calls this only for this connector's connections.
        b.set_session_cache_mode(SslSessionCacheMode::CLIENT);
        b.set_new_session_callback(move |_, session| {
            if let Ok(mut g) = slot.lock() {
                *g = Some(session);
            }
        });
    }
    Ok(b.build())
}

fn configure_openssl(
    b: &mut openssl::ssl::SslContextBuilder,
    params: &TlsParams,
) -> std::result::Result<(), openssl::error::ErrorStack> {
    let v = openssl_version(params.version);
    b.set_min_proto_version(Some(v))?;
    b.set_max_proto_version(Some(v))?;
    let suite = params.suite();
    match params.version {
        TlsVersion::Tls13 => b.set_ciphersuites(&suite.openssl_name())?,
        TlsVersion::Tls12 => b.set_cipher_list(&suite.openssl_name())?,
    }
    // P-256 is listed after X25519 (so never chosen for the key exchange) because OpenSSL
    // will not use an ECDSA P-256 certificate in TLS 1.2 unless the client lists the
    // curve (RFC 8422 §5.1).
    b.set_groups_list("X25519:P-256")?;
    Ok(())
}

/// Runs `fut` with a timeout naming `step`.
///
/// # Errors
/// [`Error::Timeout`] if `fut` is not ready within `timeout`.
pub async fn with_timeout<F: std::future::Future>(
    step: &'static str,
    timeout: Duration,
    fut: F,
) -> Result<F::Output> {
    tokio::time::timeout(timeout, fut)
        .await
        .map_err(|_| Error::Timeout {
            step,
            secs: timeout.as_secs_f64(),
        })
}

fn io_detail(e: &std::io::Error) -> String {
    let mut s = e.to_string();
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        s = "the peer closed the connection during the handshake".to_string();
    }
    hint(s)
}

fn openssl_detail(e: &openssl::ssl::Error) -> String {
    let s = match (e.io_error(), e.ssl_error()) {
        (Some(io), _) => io.to_string(),
        (None, Some(stack)) => stack.to_string(),
        (None, None)
            if e.code() == openssl::ssl::ErrorCode::SYSCALL
                || e.code() == openssl::ssl::ErrorCode::ZERO_RETURN =>
        {
            "the peer closed the connection during the handshake".to_string()
        }
        _ => e.to_string(),
    };
    hint(s)
}

fn hint(s: String) -> String {
    let l = s.to_ascii_lowercase();
    if l.contains("certificate") || l.contains("unknownissuer") || l.contains("unknown ca") {
        format!(
            "{s} (the server's certificate is not signed by the CA this client trusts: give the client the CA that issued it)"
        )
    } else {
        s
    }
}
