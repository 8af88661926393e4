//! Spotting, in the raw bytes of a connection, an `Authorization` header line that ends in
//! whitespace.
//!
//! hyper's parser drops whitespace after a header's value before any handler sees it (HTTP
//! says it is not part of the value), so `Authorization: Bearer <token> ` arrives as the exact
//! token and would be let in. A client that sends it is not sending the token it was given;
//! rather than accept a near-miss, the servers refuse it, and only the bytes on the wire can
//! tell.
//!
//! The scan looks at every line a connection sends, not only at request heads: a JSON body,
//! the only kind these servers accept, cannot hold a line starting `authorization:` (its
//! strings cannot hold a raw line break, and outside strings that word is not JSON), so a
//! well-formed request never trips it.

/// The header name, lowercase, with its colon.
const NAME: &[u8] = b"authorization:";

/// Where the scan is in the current line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    /// This many bytes of the line match [`NAME`] so far.
    Name(usize),
    /// In an `Authorization` line's value; the last byte seen that is not a carriage return.
    Value(u8),
    /// Some other line.
    Other,
}

/// The state of one connection's scan, fed the bytes as they are read.
#[derive(Debug)]
pub(crate) struct AuthorizationScan {
    line: Line,
}

impl Default for AuthorizationScan {
    fn default() -> Self {
        AuthorizationScan {
            line: Line::Name(0),
        }
    }
}

impl AuthorizationScan {
    /// Reads `bytes`, the next ones the connection sent; whether an `Authorization` line among
    /// them ended in a space or tab.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> bool {
        let mut found = false;
        for &byte in bytes {
            self.line = match (self.line, byte) {
                (Line::Value(last), b'\n') => {
                    found |= matches!(last, b' ' | b'\t');
                    Line::Name(0)
                }
                (_, b'\n') => Line::Name(0),
                (Line::Value(last), b'\r') => Line::Value(last),
                (Line::Value(_), byte) => Line::Value(byte),
                (Line::Name(n), byte) if byte.to_ascii_lowercase() == NAME[n] => {
                    if n + 1 == NAME.len() {
                        Line::Value(byte)
                    } else {
                        Line::Name(n + 1)
                    }
                }
                _ => Line::Other,
            };
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trips(text: &str) -> bool {
        AuthorizationScan::default().feed(text.as_bytes())
    }

    #[test]
    fn only_an_authorization_line_ending_in_whitespace_trips_it() {
        let head = |auth: &str| {
            format!("POST /x HTTP/1.1\r\nhost: x\r\n{auth}\r\ncontent-length: 2\r\n\r\n{{}}")
        };
        assert!(!trips(&head("Authorization: Bearer 0123456789abcdef")));
        assert!(!trips(&head("authorization:Bearer 0123456789abcdef")));
        assert!(trips(&head("Authorization: Bearer 0123456789abcdef ")));
        assert!(trips(&head("AUTHORIZATION: Bearer 0123456789abcdef\t")));
        assert!(trips(&head("Authorization: ")));
        // Other headers may end as they like; a name that only starts alike is another header.
        assert!(!trips(&head("x-note: trailing ")));
        assert!(!trips(&head("authorization-hint: x ")));
        assert!(!trips(&head("x-authorization: x ")));
    }

    #[test]
    fn a_line_split_across_reads_is_followed() {
        let mut scan = AuthorizationScan::default();
        let text = b"GET / HTTP/1.1\r\nAuthor";
        assert!(!scan.feed(text));
        assert!(!scan.feed(b"ization: Bearer t "));
        assert!(scan.feed(b"\r\n\r\n"));
        // A later clean request on the same connection does not trip it again.
        assert!(!scan.feed(b"GET / HTTP/1.1\r\nAuthorization: Bearer t\r\n\r\n"));
    }
}
