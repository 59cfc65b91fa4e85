//! The transfer request: the first 9 bytes the client writes on its bidirectional stream.
//!
//! Byte 0 is the direction (`b'U'`: the client uploads, `b'D'`: the server sends), bytes 1..9
//! the transfer size in bytes, big-endian. For an upload the server answers with the 8-byte
//! count it received once the client finished the stream, so the client's clock stops when
//! every byte has reached the server's application.

/// Length of the request header in bytes.
pub(crate) const REQUEST_LEN: usize = 9;

/// Who sends the bulk data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    /// The client sends N bytes to the server (the client is the congestion-controlled sender).
    Upload,
    /// The server sends N bytes to the client.
    Download,
}

impl Direction {
    /// The name used on the command line and in the report.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Direction::Upload => "upload",
            Direction::Download => "download",
        }
    }
}

/// Encodes a request for `bytes` bytes in `direction`.
pub(crate) fn encode_request(direction: Direction, bytes: u64) -> [u8; REQUEST_LEN] {
    let mut out = [0u8; REQUEST_LEN];
    out[0] = match direction {
        Direction::Upload => b'U',
        Direction::Download => b'D',
    };
    out[1..].copy_from_slice(&bytes.to_be_bytes());
    out
}

/// Decodes a request; `None` for an unknown direction byte.
pub(crate) fn decode_request(buf: &[u8; REQUEST_LEN]) -> Option<(Direction, u64)> {
    let direction = match buf[0] {
        b'U' => Direction::Upload,
        b'D' => Direction::Download,
        _ => return None,
    };
    let mut size = [0u8; 8];
    size.copy_from_slice(&buf[1..]);
    Some((direction, u64::from_be_bytes(size)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_round_trips_and_rejects_unknown_direction() {
        for direction in [Direction::Upload, Direction::Download] {
            let buf = encode_request(direction, 0x0102_0304_0506_0708);
            assert_eq!(decode_request(&buf), Some((direction, 0x0102_0304_0506_0708)));
        }
        let mut bad = encode_request(Direction::Upload, 1);
        bad[0] = b'X';
        assert_eq!(decode_request(&bad), None);
    }
}
