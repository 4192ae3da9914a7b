//! `fault_relay`: the fault-injecting TCP relay of the tests as a program, for
//! `oltp/bench/soak`. Listens on 127.0.0.1:LISTEN_PORT (0: any free port, printed),
//! forwards to 127.0.0.1:TARGET_PORT, and resets one live connection every
//! RESET_EVERY seconds; writes the count of resets made to RESETS_FILE every
//! second (one integer).
//!
//! Usage: `cargo run --release -p encbench-oltp --example fault_relay -- LISTEN_PORT TARGET_PORT RESET_EVERY RESETS_FILE`

#[allow(dead_code)]
#[path = "../tests/common/relay.rs"]
mod relay;

use std::time::Duration;

use relay::{Fault, Relay};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: fault_relay LISTEN_PORT TARGET_PORT RESET_EVERY_SECONDS RESETS_FILE";
    let [listen, target, every, file] = args.as_slice() else {
        eprintln!("Error: {usage}");
        std::process::exit(2);
    };
    let parse = |s: &str, what: &str| -> u64 {
        s.parse().unwrap_or_else(|_| {
            eprintln!("Error: {what} {s:?} is not a whole number: {usage}");
            std::process::exit(2);
        })
    };
    let (listen, target, every) = (
        parse(listen, "LISTEN_PORT"),
        parse(target, "TARGET_PORT"),
        parse(every, "RESET_EVERY_SECONDS"),
    );
    let (Ok(listen), Ok(target)) = (u16::try_from(listen), u16::try_from(target)) else {
        eprintln!("Error: ports are 0..=65535: {usage}");
        std::process::exit(2);
    };
    let target = std::net::SocketAddr::from(([127, 0, 0, 1], target));
    let fault = Fault::ResetOneEvery(Duration::from_secs(every.max(1)));
    let relay = Relay::start_on(&format!("127.0.0.1:{listen}"), target, fault);
    println!("{}", relay.port);
    loop {
        std::thread::sleep(Duration::from_secs(1));
        let tmp = format!("{file}.tmp");
        if std::fs::write(&tmp, format!("{}\n", relay.resets())).is_ok() {
            let _ = std::fs::rename(&tmp, file);
        }
    }
}
