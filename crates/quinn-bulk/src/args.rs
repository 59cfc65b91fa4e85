//! Command-line parsing (by hand: two subcommands and a few flags do not justify a parser crate).

use crate::wire::Direction;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Printed after every usage error.
pub(crate) const USAGE: &str = "usage:
  quinn-bulk server --listen ADDR [--once] [COMMON]
  quinn-bulk client --connect ADDR --bytes N [--direction upload|download] [--timeout SECS] [COMMON]
COMMON:
  --cc cubic|newreno|bbr   congestion controller of this side (default cubic)
  --qlog DIR               write one qlog (JSON-SEQ, .sqlog) per connection into DIR
  --window BYTES           stream and connection receive window and send window (default 64Mi)
  --idle-timeout SECS      QUIC idle timeout (default 10)
N and BYTES take k, M, G (10^3..) or Ki, Mi, Gi (2^10..) suffixes, e.g. 20M or 1Gi.
The client uploads by default: it is then the congestion-controlled sender and its report holds
the sender's path statistics. Each side prints one JSON line at the end of each connection.";

/// Congestion controller choice, mapped to quinn's built-ins in `transport`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cc {
    Cubic,
    NewReno,
    Bbr,
}

impl Cc {
    /// The name used on the command line and in the report.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Cc::Cubic => "cubic",
            Cc::NewReno => "newreno",
            Cc::Bbr => "bbr",
        }
    }
}

/// Options both sides take.
#[derive(Clone, Debug)]
pub(crate) struct Common {
    pub(crate) cc: Cc,
    pub(crate) qlog_dir: Option<PathBuf>,
    /// Receive windows (stream and connection) and send window, in bytes.
    pub(crate) window: u64,
    pub(crate) idle_timeout: Duration,
}

/// `quinn-bulk server ...`
#[derive(Clone, Debug)]
pub(crate) struct ServerArgs {
    pub(crate) listen: SocketAddr,
    /// Exit after the first connection closes (for harnesses that want a clean exit).
    pub(crate) once: bool,
    pub(crate) common: Common,
}

/// `quinn-bulk client ...`
#[derive(Clone, Debug)]
pub(crate) struct ClientArgs {
    pub(crate) connect: SocketAddr,
    pub(crate) bytes: u64,
    pub(crate) direction: Direction,
    /// Bound on the whole run, handshake included.
    pub(crate) timeout: Duration,
    pub(crate) common: Common,
}

/// A parsed command line.
#[derive(Clone, Debug)]
pub(crate) enum Command {
    Server(ServerArgs),
    Client(ClientArgs),
}

/// Parses the arguments after the program name.
pub(crate) fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut args = args.into_iter();
    let role = args.next().ok_or("missing subcommand (server or client)")?;
    let mut common = Common {
        cc: Cc::Cubic,
        qlog_dir: None,
        window: 64 << 20,
        idle_timeout: Duration::from_secs(10),
    };
    let (mut listen, mut once, mut connect, mut bytes) = (None, false, None, None);
    let (mut direction, mut timeout) = (Direction::Upload, Duration::from_secs(300));
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--cc" => {
                common.cc = match value()?.as_str() {
                    "cubic" => Cc::Cubic,
                    "newreno" | "reno" => Cc::NewReno,
                    "bbr" => Cc::Bbr,
                    other => return Err(format!("--cc: unknown controller {other:?} (cubic, newreno, bbr)")),
                }
            }
            "--qlog" => common.qlog_dir = Some(PathBuf::from(value()?)),
            "--window" => common.window = parse_size("--window", &value()?)?,
            "--idle-timeout" => common.idle_timeout = parse_secs("--idle-timeout", &value()?)?,
            "--listen" if role == "server" => listen = Some(parse_addr("--listen", &value()?)?),
            "--once" if role == "server" => once = true,
            "--connect" if role == "client" => connect = Some(parse_addr("--connect", &value()?)?),
            "--bytes" if role == "client" => bytes = Some(parse_size("--bytes", &value()?)?),
            "--timeout" if role == "client" => timeout = parse_secs("--timeout", &value()?)?,
            "--direction" if role == "client" => {
                direction = match value()?.as_str() {
                    "upload" => Direction::Upload,
                    "download" => Direction::Download,
                    other => return Err(format!("--direction: {other:?} is not upload or download")),
                }
            }
            _ => return Err(format!("unknown option {flag:?} for {role}")),
        }
    }
    if common.window == 0 || common.window > (1 << 62) - 1 {
        return Err(format!("--window: {} is out of range 1..2^62", common.window));
    }
    match role.as_str() {
        "server" => Ok(Command::Server(ServerArgs {
            listen: listen.ok_or("server needs --listen ADDR")?,
            once,
            common,
        })),
        "client" => Ok(Command::Client(ClientArgs {
            connect: connect.ok_or("client needs --connect ADDR")?,
            bytes: bytes.ok_or("client needs --bytes N")?,
            direction,
            timeout,
            common,
        })),
        other => Err(format!("unknown subcommand {other:?} (server or client)")),
    }
}

fn parse_addr(flag: &str, text: &str) -> Result<SocketAddr, String> {
    text.parse()
        .map_err(|_| format!("{flag}: {text:?} is not an IP:PORT address"))
}

fn parse_secs(flag: &str, text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(secs) if secs > 0.0 && secs <= 86_400.0 => Ok(Duration::from_secs_f64(secs)),
        _ => Err(format!("{flag}: {text:?} is not a number of seconds in (0, 86400]")),
    }
}

/// Parses `123`, `20M`, `1Gi` (decimal k/M/G, binary Ki/Mi/Gi); rejects overflow.
fn parse_size(flag: &str, text: &str) -> Result<u64, String> {
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (digits, suffix) = text.split_at(split);
    let multiplier: u64 = match suffix {
        "" => 1,
        "k" | "K" => 1_000,
        "M" => 1_000_000,
        "G" => 1_000_000_000,
        "Ki" => 1 << 10,
        "Mi" => 1 << 20,
        "Gi" => 1 << 30,
        _ => return Err(format!("{flag}: unknown suffix in {text:?} (k, M, G, Ki, Mi, Gi)")),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(multiplier))
        .ok_or(format!("{flag}: {text:?} is not a byte count below 2^64"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn client_flags_parse_with_suffixes() {
        let Command::Client(c) = parse(argv(
            "client --connect 127.0.0.1:4433 --bytes 20M --cc bbr --direction download",
        ))
        .unwrap() else {
            panic!("not a client");
        };
        assert_eq!(c.bytes, 20_000_000);
        assert_eq!(c.common.cc, Cc::Bbr);
        assert_eq!(c.direction, Direction::Download);
        assert_eq!(parse_size("--bytes", "1Gi"), Ok(1 << 30));
    }

    #[test]
    fn bad_input_names_the_flag() {
        for (line, needle) in [
            ("client --connect 127.0.0.1:1", "--bytes"),
            ("client --connect nowhere --bytes 1", "--connect"),
            ("client --connect 127.0.0.1:1 --bytes 99999999999999999999", "--bytes"),
            ("client --connect 127.0.0.1:1 --bytes 5T", "suffix"),
            ("server --listen 127.0.0.1:1 --cc vegas", "--cc"),
            ("server --listen 127.0.0.1:1 --bytes 1", "--bytes"),
            ("server --listen", "--listen needs a value"),
            ("proxy", "subcommand"),
        ] {
            let err = parse(argv(line)).unwrap_err();
            assert!(err.contains(needle), "{line}: {err}");
        }
    }
}
