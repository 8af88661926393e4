//! The unread output of one background stream: the newest bytes up to a cap, and a count of
//! the older ones dropped to stay under it.

use std::collections::VecDeque;

use crate::exec::capture::complete_prefix;

#[derive(Debug)]
pub(crate) struct Ring {
    unread: VecDeque<u8>,
    cap: usize,
    dropped: u64,
}

impl Ring {
    pub(crate) fn new(cap: usize) -> Self {
        Ring {
            unread: VecDeque::new(),
            cap,
            dropped: 0,
        }
    }

    /// Appends `bytes`, dropping the oldest unread ones beyond the cap.
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        let keep = bytes.len().min(self.cap);
        let skipped = bytes.len() - keep;
        let overflow = (self.unread.len() + keep).saturating_sub(self.cap);
        self.unread.drain(..overflow);
        self.unread.extend(&bytes[skipped..]);
        self.dropped += (overflow + skipped) as u64;
    }

    /// The unread text and the bytes dropped since the last take. Unless `all`, a character
    /// whose last bytes have not arrived yet stays for the next take.
    pub(crate) fn take(&mut self, all: bool) -> (String, u64) {
        let bytes = self.unread.make_contiguous();
        let ready = if all {
            bytes.len()
        } else {
            complete_prefix(bytes).len()
        };
        let text = String::from_utf8_lossy(&bytes[..ready]).into_owned();
        self.unread.drain(..ready);
        (text, std::mem::take(&mut self.dropped))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_newest_bytes_and_counts_the_dropped() {
        let mut ring = Ring::new(4);
        ring.push(b"abc");
        ring.push(b"def");
        assert_eq!(ring.take(false), ("cdef".to_string(), 2));
        assert_eq!(ring.take(false), (String::new(), 0));
        ring.push(b"0123456789");
        assert_eq!(ring.take(false), ("6789".to_string(), 6));
    }

    #[test]
    fn a_character_split_across_reads_arrives_whole() {
        let mut ring = Ring::new(16);
        let euro = "€".as_bytes();
        ring.push(b"a");
        ring.push(&euro[..1]);
        assert_eq!(ring.take(false), ("a".to_string(), 0));
        ring.push(&euro[1..]);
        assert_eq!(ring.take(false), ("€".to_string(), 0));
        ring.push(&euro[..2]);
        assert_eq!(ring.take(true), ("\u{FFFD}".to_string(), 0));
    }
}
