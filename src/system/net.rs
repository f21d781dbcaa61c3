//! The network as the device sees it (downloads go through [`super::http`]).

/// The device's LAN address: the source address the kernel would use towards a public address
/// (a UDP `connect` only picks a route, it sends nothing). `None` without a route, or when the
/// route is the loopback.
pub(crate) fn lan_address() -> Option<String> {
    std::net::UdpSocket::bind("0.0.0.0:0")
        .and_then(|s| s.connect("1.1.1.1:80").map(|_| s))
        .and_then(|s| s.local_addr())
        .ok()
        .map(|a| a.ip())
        .filter(|ip| !ip.is_unspecified() && !ip.is_loopback())
        .map(|ip| ip.to_string())
}
