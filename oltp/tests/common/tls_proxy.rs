//! A loopback proxy that ends TLS in front of a real PostgreSQL: it answers the client's
//! `SSLRequest` with `S`, completes the TLS handshake with a certificate of its own, and
//! forwards the decrypted bytes to the server over plain TCP (a plaintext client is relayed
//! as it is). The client sees a verified TLS session; the server sees plaintext, the
//! fallback `pg_stat_ssl` must catch (`tests/pg_tls.rs`).

use std::net::SocketAddr;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;

use encbench_oltp::server::TlsFiles;

/// PostgreSQL's `SSLRequest`: length 8, code 80877103.
const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f];

/// Starts the proxy on 127.0.0.1 (a port of its own, returned) in front of `server`, with
/// the certificate and key of `files`, on a thread of its own for the life of the process.
pub fn start(server: SocketAddr, files: &TlsFiles) -> u16 {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&files.cert)
        .expect("proxy certificate")
        .collect::<Result<_, _>>()
        .expect("proxy certificate");
    let key = PrivateKeyDer::from_pem_file(&files.key).expect("proxy key");
    let config = encbench_common::pki::server_config(
        Arc::new(rustls::crypto::aws_lc_rs::default_provider()),
        rustls::DEFAULT_VERSIONS,
        certs,
        key,
    )
    .expect("proxy TLS config");
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
    let port = listener.local_addr().expect("proxy address").port();
    listener.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("proxy runtime");
        rt.block_on(async move {
            let listener = TcpListener::from_std(listener).expect("proxy listener");
            while let Ok((client, _)) = listener.accept().await {
                tokio::spawn(serve(client, server, acceptor.clone()));
            }
        });
    });
    port
}

/// One connection: `S` to the `SSLRequest`, TLS with the client, plaintext to the server;
/// a client that starts without `SSLRequest` is relayed as it is (plaintext both ways).
async fn serve(mut client: TcpStream, server: SocketAddr, acceptor: TlsAcceptor) {
    let mut first = [0u8; 8];
    if client.read_exact(&mut first).await.is_err() {
        return;
    }
    let Ok(mut upstream) = TcpStream::connect(server).await else {
        return;
    };
    if first != SSL_REQUEST {
        if upstream.write_all(&first).await.is_ok() {
            let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
        }
        return;
    }
    if client.write_all(b"S").await.is_err() {
        return;
    }
    let Ok(mut tls) = acceptor.accept(client).await else {
        return;
    };
    let _ = tokio::io::copy_bidirectional(&mut tls, &mut upstream).await;
}
