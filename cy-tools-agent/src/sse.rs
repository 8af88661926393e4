//! Server-sent events, as both providers stream: `event:` and `data:` lines, a blank line ends
//! an event. Bytes arrive in arbitrary pieces, so lines are cut here, not by the network.

/// One event: its name (empty when the server sent none) and its data lines joined by `\n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Event {
    pub(crate) name: String,
    pub(crate) data: String,
}

/// Turns pieces of a stream into events.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    pending: Vec<u8>,
    name: String,
    data: Vec<String>,
}

impl Decoder {
    /// The events `bytes` completes.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Vec<Event> {
        self.pending.extend_from_slice(bytes);
        let mut events = Vec::new();
        while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches(['\n', '\r']);
            if let Some(event) = self.line(line) {
                events.push(event);
            }
        }
        events
    }

    /// The event a stream ending without its blank line leaves.
    pub(crate) fn finish(&mut self) -> Option<Event> {
        let rest = String::from_utf8_lossy(&std::mem::take(&mut self.pending)).into_owned();
        let mut event = self.line(rest.trim_end_matches('\r'));
        if event.is_none() {
            event = self.line("");
        }
        event
    }

    fn line(&mut self, line: &str) -> Option<Event> {
        if line.is_empty() {
            if self.data.is_empty() {
                self.name.clear();
                return None;
            }
            return Some(Event {
                name: std::mem::take(&mut self.name),
                data: std::mem::take(&mut self.data).join("\n"),
            });
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => self.name = value.to_string(),
            "data" => self.data.push(value.to_string()),
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_anywhere_come_out_whole() {
        let text = "event: a\r\ndata: {\"x\":\ndata: 1}\r\n\r\n: comment\n\ndata: [DONE]\n\n";
        for cut in 0..text.len() {
            let mut decoder = Decoder::default();
            let mut events = decoder.feed(&text.as_bytes()[..cut]);
            events.extend(decoder.feed(&text.as_bytes()[cut..]));
            assert_eq!(
                events,
                [
                    Event {
                        name: "a".into(),
                        data: "{\"x\":\n1}".into()
                    },
                    Event {
                        name: String::new(),
                        data: "[DONE]".into()
                    },
                ],
                "cut at {cut}"
            );
        }
        let mut decoder = Decoder::default();
        assert!(decoder.feed(b"data: last").is_empty());
        assert_eq!(decoder.finish().unwrap().data, "last");
    }
}
