//! Which addresses a live request may reach: public addresses always; loopback, private,
//! link-local, shared (CGNAT), unique-local and cloud metadata addresses only when the user
//! allowed the host with `--web-allow HOST[:PORT]`.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

/// One `--web-allow` entry: a host name or IP address, with an optional port.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct AllowedHost {
    /// Lower-case host name or IP address (IPv6 without brackets).
    pub host: String,
    /// The one port allowed, or every port when `None`.
    pub port: Option<u16>,
}

/// Why a `--web-allow` entry did not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("--web-allow `{text}`: {problem} (expected HOST or HOST:PORT)")]
pub struct BadAllow {
    /// The entry, as given.
    pub text: String,
    /// What is wrong with it.
    pub problem: AllowProblem,
}

/// What is wrong with a `--web-allow` entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AllowProblem {
    /// `[` without `]`.
    #[error("missing `]`")]
    MissingBracket,
    /// Empty, or with `/`, `@` or a space.
    #[error("not a host name or address")]
    NotAHost,
    /// The port is not a `u16`.
    #[error("the port is not a number")]
    BadPort,
}

impl FromStr for AllowedHost {
    type Err = BadAllow;

    /// Parses `HOST`, `HOST:PORT`, `[V6]` or `[V6]:PORT`.
    fn from_str(s: &str) -> Result<Self, BadAllow> {
        let bad = |problem| BadAllow {
            text: s.to_string(),
            problem,
        };
        let s = s.trim();
        let (host, port) = if let Some(rest) = s.strip_prefix('[') {
            let (h, after) = rest
                .split_once(']')
                .ok_or_else(|| bad(AllowProblem::MissingBracket))?;
            (h, after.strip_prefix(':'))
        } else if s.matches(':').count() > 1 {
            (s, None) // a bare IPv6 address
        } else {
            match s.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (s, None),
            }
        };
        if host.is_empty() || host.contains(['/', '@', ' ']) {
            return Err(bad(AllowProblem::NotAHost));
        }
        let port = match port {
            Some(p) => Some(p.parse::<u16>().map_err(|_| bad(AllowProblem::BadPort))?),
            None => None,
        };
        Ok(AllowedHost {
            host: host.to_ascii_lowercase(),
            port,
        })
    }
}

impl fmt::Display for AllowedHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        match self.port {
            Some(p) => write!(f, "{host}:{p}"),
            None => f.write_str(&host),
        }
    }
}

/// The allow list of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Guard {
    allowed: Vec<AllowedHost>,
}

impl Guard {
    /// A guard allowing `allowed` beyond the public internet.
    pub fn new(mut allowed: Vec<AllowedHost>) -> Self {
        allowed.sort();
        allowed.dedup();
        Guard { allowed }
    }

    /// Whether `host` is named by any entry (whatever its port).
    pub fn names(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        self.allowed.iter().any(|a| a.host == host)
    }

    /// Whether `host:port` may be requested: a host the allow list names must be requested on
    /// a port it allows; an IP address outside the public internet must be allowed; anything
    /// else passes here (names are checked again on resolution, see [`Guard::admits`]).
    pub fn check_url(&self, host: &str, port: u16) -> Result<(), Refusal> {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let lower = host.to_ascii_lowercase();
        let named: Vec<&AllowedHost> = self.allowed.iter().filter(|a| a.host == lower).collect();
        if !named.is_empty() {
            if named.iter().any(|a| a.port.is_none_or(|p| p == port)) {
                return Ok(());
            }
            let ports: Vec<String> = named
                .iter()
                .filter_map(|a| a.port)
                .map(|p| p.to_string())
                .collect();
            return Err(Refusal::Port {
                host: host.to_string(),
                port,
                ports: ports.join(", "),
            });
        }
        if let Ok(ip) = lower.parse::<IpAddr>()
            && let Some(class) = restricted(ip)
        {
            return Err(Refusal::Restricted {
                host: host.to_string(),
                class,
                allow: AllowedHost {
                    host: lower,
                    port: Some(port),
                },
            });
        }
        Ok(())
    }

    /// Whether a connection to `ip` is allowed for a request to host name `host`: public
    /// addresses always, others only when the allow list names the host.
    pub fn admits(&self, host: &str, ip: IpAddr) -> bool {
        restricted(ip).is_none() || self.names(host)
    }
}

/// Why [`Guard::check_url`] refused an address (the message, as the agent is told).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The allow list names the host, but not on this port.
    #[error("{host}:{port} is not allowed: --web-allow names {host} only with port {ports}")]
    Port {
        /// The host, as requested.
        host: String,
        /// The port requested.
        port: u16,
        /// The ports the allow list names for the host, comma-separated.
        ports: String,
    },
    /// An IP address outside the public internet that the allow list does not name.
    #[error(
        "{host} is a {class} address, which clawrun does not fetch from the live web; \
         allow it with --web-allow {allow}"
    )]
    Restricted {
        /// The host, as requested.
        host: String,
        /// The kind of address (`loopback`, `private`, ...).
        class: &'static str,
        /// The `--web-allow` entry that would allow it.
        allow: AllowedHost,
    },
    /// The URL names no host.
    #[error("{url} has no host")]
    NoHost {
        /// The URL.
        url: String,
    },
}

/// The kind of address `ip` is when it is not on the public internet.
pub fn restricted(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            if v4.is_loopback() {
                Some("loopback")
            } else if v4.is_unspecified() || o[0] == 0 {
                Some("unspecified")
            } else if v4.is_private() {
                Some("private")
            } else if o == [169, 254, 169, 254] || o == [100, 100, 100, 200] {
                Some("cloud metadata")
            } else if v4.is_link_local() {
                Some("link-local")
            } else if o[0] == 100 && (64..128).contains(&o[1]) {
                Some("shared (carrier-grade NAT)")
            } else if v4.is_broadcast() || v4.is_multicast() || o[0] >= 240 {
                Some("broadcast, multicast or reserved")
            } else if o[0] == 192 && o[1] == 0 && o[2] == 0 {
                Some("IETF protocol")
            } else if o[0] == 198 && (o[1] & 0xfe) == 18 {
                Some("benchmarking")
            } else {
                None
            }
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return restricted(IpAddr::V4(v4));
            }
            let s = v6.segments();
            if v6.is_loopback() {
                Some("loopback")
            } else if v6.is_unspecified() {
                Some("unspecified")
            } else if (s[0] & 0xfe00) == 0xfc00 {
                Some("unique-local (private)")
            } else if (s[0] & 0xffc0) == 0xfe80 {
                Some("link-local")
            } else if v6.is_multicast() {
                Some("multicast")
            } else if s[0] == 0xfd00 && s[1..7] == [0, 0, 0, 0, 0, 0] && s[7] == 0x0254 {
                Some("cloud metadata")
            } else if s[0] == 0x64 && s[1] == 0xff9b {
                // NAT64 of an IPv4 address: judge the embedded address.
                let v4 = std::net::Ipv4Addr::new(
                    (s[6] >> 8) as u8,
                    s[6] as u8,
                    (s[7] >> 8) as u8,
                    s[7] as u8,
                );
                restricted(IpAddr::V4(v4))
            } else {
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn addresses_outside_the_public_internet_are_restricted() {
        for a in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "169.254.1.1",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd12::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "64:ff9b::a00:1",
        ] {
            assert!(restricted(ip(a)).is_some(), "{a}");
        }
        for a in [
            "93.184.216.34",
            "8.8.8.8",
            "2606:4700::1111",
            "::ffff:1.1.1.1",
        ] {
            assert!(restricted(ip(a)).is_none(), "{a}");
        }
        assert_eq!(restricted(ip("169.254.169.254")), Some("cloud metadata"));
    }

    #[test]
    fn the_allow_list_admits_named_hosts_on_their_ports() {
        let guard = Guard::new(vec![
            "127.0.0.1:8080".parse().unwrap(),
            "Intranet.Corp".parse().unwrap(),
            "[::1]:9000".parse().unwrap(),
        ]);
        assert!(guard.check_url("127.0.0.1", 8080).is_ok());
        let err = guard.check_url("127.0.0.1", 22).unwrap_err().to_string();
        assert!(err.contains("only with port 8080"), "{err}");
        let err = guard.check_url("10.0.0.1", 80).unwrap_err().to_string();
        assert!(err.contains("--web-allow 10.0.0.1:80"), "{err}");
        assert!(guard.check_url("[::1]", 9000).is_ok());
        assert!(guard.check_url("example.com", 443).is_ok());
        assert!(guard.admits("intranet.corp", ip("10.0.0.5")));
        assert!(!guard.admits("localhost", ip("127.0.0.1")));
        assert!(guard.admits("example.com", ip("93.184.216.34")));
    }

    #[test]
    fn bad_allow_entries_name_the_flag() {
        let err = "host:http".parse::<AllowedHost>().unwrap_err().to_string();
        assert!(err.contains("--web-allow `host:http`"), "{err}");
        assert_eq!(
            "[::1]:80".parse::<AllowedHost>().unwrap().to_string(),
            "[::1]:80"
        );
    }
}
