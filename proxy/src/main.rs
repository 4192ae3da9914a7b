//! The `encbench-proxy` binary.

fn main() {
    eprintln!("encbench-proxy: not built yet");
    std::process::exit(2);
}
