//! netprobe: tries a few socket operations and prints the result kinds, one
//! line each: `<check>: ok` or `<check>: err <ErrorKind>`. No addresses or
//! port numbers are printed. The sandbox is expected to deny all of them.
use std::io;
use std::net::{TcpListener, TcpStream, ToSocketAddrs, UdpSocket};

fn rep<T>(name: &str, r: io::Result<T>) {
    match r {
        Ok(_) => println!("{name}: ok"),
        Err(e) => println!("{name}: err {:?}", e.kind()),
    }
}

fn main() {
    rep(
        "tcp_connect_127.0.0.1:80",
        TcpStream::connect("127.0.0.1:80"),
    );
    rep("tcp_bind_127.0.0.1:0", TcpListener::bind("127.0.0.1:0"));
    rep("udp_bind_127.0.0.1:0", UdpSocket::bind("127.0.0.1:0"));
    rep("resolve_localhost", "localhost:80".to_socket_addrs());
}
