// The MySQL-style exchange every footprint program runs, shared by `#[path]`:
// read the server greeting packet, send COM_QUERY "SELECT 1", read the OK packet.
// MySQL framing: 3-byte little-endian payload length, 1-byte sequence id, payload.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;

fn read_packet(s: &mut impl Read) -> std::io::Result<Vec<u8>> {
    let mut h = [0u8; 4];
    s.read_exact(&mut h)?;
    let len = usize::from(h[0]) | usize::from(h[1]) << 8 | usize::from(h[2]) << 16;
    let mut p = vec![0u8; len];
    s.read_exact(&mut p)?;
    Ok(p)
}

/// Runs the exchange; Ok(()) if the server answered the query with an OK packet.
pub fn exchange(s: &mut (impl Read + Write)) -> Result<(), String> {
    let greeting = read_packet(s).map_err(|e| format!("read greeting: {e}"))?;
    if greeting.first() != Some(&0x0a) {
        return Err("not a protocol-10 greeting".to_string());
    }
    let query = b"\x03SELECT 1";
    let mut pkt = vec![query.len() as u8, 0, 0, 0];
    pkt.extend_from_slice(query);
    s.write_all(&pkt)
        .map_err(|e| format!("send COM_QUERY: {e}"))?;
    s.flush().map_err(|e| format!("send COM_QUERY: {e}"))?;
    let ok = read_packet(s).map_err(|e| format!("read reply: {e}"))?;
    if ok.first() != Some(&0x00) {
        return Err("the reply is not an OK packet".to_string());
    }
    Ok(())
}

/// `PROGRAM HOST:PORT [CA.der]` from the command line.
pub fn args() -> Result<(String, Option<String>), String> {
    let mut a = std::env::args().skip(1);
    let addr = a.next().ok_or("usage: PROGRAM HOST:PORT [CA.der]")?;
    Ok((addr, a.next()))
}

/// The CA certificate (DER bytes) named by the second argument.
#[allow(dead_code, reason = "footprint-plain reads no CA")]
pub fn read_ca(ca: Option<String>) -> Result<Vec<u8>, String> {
    std::fs::read(ca.ok_or("missing CA.der")?).map_err(|e| format!("read CA: {e}"))
}

/// A TCP connection to `addr` (`HOST:PORT`).
pub fn connect(addr: &str) -> Result<TcpStream, String> {
    TcpStream::connect(addr).map_err(|e| format!("connect {addr}: {e}"))
}

/// The program's outcome: prints `ok` and exits 0 when `run` succeeds, prints
/// `Error: ...` to stderr and exits 1 otherwise.
pub fn report(run: impl FnOnce() -> Result<(), String>) -> ExitCode {
    match run() {
        Ok(()) => {
            println!("ok");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("Error: {e}");
            ExitCode::FAILURE
        }
    }
}
