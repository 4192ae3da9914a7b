//! What the proxy's test files share: the `encbench-proxy` binary started on a free port in
//! front of a server, the `mariadb` CLI and `sysbench` run against an address, and direct
//! connections to look at the server.

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Output, Stdio};

use mysql_async::prelude::*;

/// A running `encbench-proxy`, killed when dropped (unless it has exited).
pub struct Proxy {
    /// The process.
    pub child: Child,
    /// The port it listens on (127.0.0.1).
    pub port: u16,
    /// Its standard error after the "listening" line, read by a thread.
    pub stderr: std::sync::mpsc::Receiver<String>,
}

impl Proxy {
    /// Starts the proxy in front of the server on 127.0.0.1:`backend_port` with `extra`
    /// flags; waits for its "listening on" line.
    ///
    /// # Panics
    /// The proxy does not start.
    pub fn start(backend_port: u16, extra: &[&str]) -> Proxy {
        let mut child = Command::new(env!("CARGO_BIN_EXE_encbench-proxy"))
            .args(["--listen", "127.0.0.1:0", "--backend"])
            .arg(format!("mysql://127.0.0.1:{backend_port}"))
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start encbench-proxy");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let first = lines.next().expect("a first line").expect("stderr");
        let addr = first
            .strip_prefix("encbench-proxy: listening on ")
            .and_then(|r| r.split(',').next())
            .unwrap_or_else(|| panic!("unexpected first line: {first}"));
        let port = addr
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("port");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for l in lines.map_while(Result::ok) {
                let _ = tx.send(l);
            }
        });
        Proxy {
            child,
            port,
            stderr: rx,
        }
    }

    /// Sends SIGTERM.
    pub fn terminate(&self) {
        let pid = nix::unistd::Pid::from_raw(i32::try_from(self.child.id()).expect("pid"));
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("SIGTERM");
    }

    /// Whether the process is still running.
    pub fn running(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_none()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        if self.running() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// `mysql://encbench:PASSWORD@127.0.0.1:PORT/DB` with the server's password.
pub fn url(password: &str, port: u16, db: &str) -> String {
    format!("mysql://encbench:{password}@127.0.0.1:{port}/{db}")
}

/// A direct connection (TCP, no socket swap) to `url`.
pub async fn conn(url: &str) -> mysql_async::Conn {
    let opts = mysql_async::OptsBuilder::from_opts(mysql_async::Opts::from_url(url).expect("url"))
        .prefer_socket(false);
    mysql_async::Conn::new(opts).await.expect("connect")
}

/// Runs SQL `stmts` on `url`.
pub async fn exec(url: &str, stmts: &[&str]) {
    let mut c = conn(url).await;
    for s in stmts {
        c.query_drop(*s)
            .await
            .unwrap_or_else(|e| panic!("{s}: {e}"));
    }
    c.disconnect().await.expect("disconnect");
}

/// The `mariadb` CLI on 127.0.0.1:`port` as `user` with `password`, batch mode, running `sql`.
pub fn mariadb(port: u16, user: &str, password: &str, db: Option<&str>, sql: &str) -> Output {
    let mut c = Command::new("mariadb");
    c.args(["--protocol=TCP", "-h", "127.0.0.1", "--skip-ssl", "--batch"])
        .arg(format!("--port={port}"))
        .arg(format!("--user={user}"))
        .arg(format!("--password={password}"));
    if let Some(db) = db {
        c.arg(format!("--database={db}"));
    }
    c.arg("-e")
        .arg(sql)
        .stdin(Stdio::null())
        .output()
        .expect("run mariadb")
}

/// Stock sysbench `oltp_read_write` `command` on 127.0.0.1:`port`, database `db`, with
/// `extra` flags.
pub fn sysbench(port: u16, password: &str, db: &str, command: &str, extra: &[&str]) -> Output {
    Command::new("sysbench")
        .arg("oltp_read_write")
        .args([
            "--db-driver=mysql",
            "--mysql-host=127.0.0.1",
            "--mysql-user=encbench",
        ])
        .arg(format!("--mysql-port={port}"))
        .arg(format!("--mysql-password={password}"))
        .arg(format!("--mysql-db={db}"))
        .args(["--tables=2", "--table-size=1000"])
        .args(extra)
        .arg(command)
        .stdin(Stdio::null())
        .output()
        .expect("run sysbench")
}

/// Text of a process's standard output and error.
pub fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}
