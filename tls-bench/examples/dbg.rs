//! scratch
use std::time::Duration;
use tls_bench::config::*;
use tls_bench::handshake::{self, HandshakeOptions};
use tls_bench::pki::Pki;
use tls_bench::tls::TlsParams;
fn main() {
    let pki = Pki::generate().expect("pki");
    let o = HandshakeOptions { duration: Duration::from_millis(1000), warmup: 20, timeout: Duration::from_secs(3), core: Some(1), bind: "127.0.0.1:0".parse().expect("a") };
    for t in Transport::ALL { for v in [TlsVersion::Tls13] { for c in [CertType::EcdsaP256] {
        let mut p = TlsParams::new(t, v); p.cert = c;
        let r = handshake::socket(&p, &pki, &o).expect("x");
        println!("{t} {v} {c}: n={} rate={:.0} cpu_rate={:.0} c={:.0} s={:.0} p50={:.0}", r.handshakes, r.handshakes_per_sec, r.cpu_handshakes_per_sec, r.client_cpu_us, r.server_cpu_us, r.latency_us.p50);
        if t.is_tls() && t != Transport::Openssl {
        let r = handshake::memory(&p, &pki, Duration::from_secs(1)).expect("x");
        println!("  memory: n={} rate={:.0} c={:.0} s={:.0}", r.handshakes, r.handshakes_per_sec, r.client_cpu_us, r.server_cpu_us);
        }
    }}}
    let rt = tokio::runtime::Runtime::new().expect("rt");
    for t in Transport::ALL { for v in TlsVersion::ALL {
        let p = TlsParams::new(t, v);
        let rows = rt.block_on(tls_bench::record::measure(&p, &pki, &tls_bench::record::MESSAGES, "127.0.0.1:0".parse().expect("a"), Duration::from_secs(5))).expect("rec");
        for r in rows { println!("{} {} {} {} wire={} rec={} writes={} per={}", r.transport, r.tls_version, r.message, r.payload_bytes, r.wire_bytes, r.records, r.socket_writes, r.overhead_per_record); }
        if !t.is_tls() { break; }
    }}
}
