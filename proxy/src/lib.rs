//! encbench-proxy: a MySQL-protocol proxy between any MySQL client (stock sysbench, the
//! `mariadb` CLI, oltp) and a MariaDB/MySQL server, forwarding packets (`forward` mode) or
//! encrypting columns on the way (`encrypt` mode).
pub mod analysis;
