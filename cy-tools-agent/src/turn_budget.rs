//! What one answer may send: its bytes as received, and (streamed) the tokens it writes,
//! counted as they arrive. A server that streams without end is cut off at the first limit
//! passed, not when it stops, which it may never do.

/// What a streamed answer has written so far: its pieces of text, of thinking and of
/// tool-call arguments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Written {
    pieces: u64,
    bytes: u64,
}

impl Written {
    /// Counts one piece as it arrives (an empty one writes nothing).
    pub(crate) fn add(&mut self, piece: &str) {
        if !piece.is_empty() {
            self.pieces += 1;
            self.bytes += piece.len() as u64;
        }
    }

    /// The tokens written, counted low so that an honest answer is never cut short: each piece
    /// holds at least one token (the APIs stream one or a few per event), and no tokenizer
    /// averages 8 bytes a token over an answer (English runs about 4). The larger of the two
    /// counts catches both a stream of tiny pieces and one of huge ones.
    pub(crate) fn tokens(&self) -> u64 {
        self.pieces.max(self.bytes.div_ceil(8))
    }
}

/// The limits of one answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TurnBudget {
    /// The bytes the answer's body may have (event framing included).
    pub(crate) bytes: u64,
    /// The tokens it may write: the `max_tokens` the request asked for.
    pub(crate) tokens: u64,
}

/// The limit an answer passed, which stopped it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Overrun {
    /// Its body passed [`TurnBudget::bytes`].
    Bytes { received: u64, budget: u64 },
    /// What it wrote passed [`TurnBudget::tokens`] (`counted` by [`Written::tokens`]).
    Tokens { counted: u64, allowed: u64 },
}

impl TurnBudget {
    /// Whether `received` bytes are still within the budget.
    pub(crate) fn bytes(&self, received: u64) -> Result<(), Overrun> {
        if received > self.bytes {
            return Err(Overrun::Bytes {
                received,
                budget: self.bytes,
            });
        }
        Ok(())
    }

    /// Whether what was `written` is still within the budget.
    pub(crate) fn written(&self, written: Written) -> Result<(), Overrun> {
        let counted = written.tokens();
        if counted > self.tokens {
            return Err(Overrun::Tokens {
                counted,
                allowed: self.tokens,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_counted_by_pieces_or_bytes_whichever_is_more() {
        let mut small = Written::default();
        for _ in 0..10 {
            small.add("a");
        }
        small.add("");
        assert_eq!(small.tokens(), 10);
        let mut large = Written::default();
        large.add(&"x".repeat(800));
        assert_eq!(large.tokens(), 100);
        let budget = TurnBudget {
            bytes: 1000,
            tokens: 99,
        };
        assert_eq!(
            budget.written(large),
            Err(Overrun::Tokens {
                counted: 100,
                allowed: 99
            })
        );
        assert_eq!(budget.written(small), Ok(()));
        assert_eq!(budget.bytes(1000), Ok(()));
        assert_eq!(
            budget.bytes(1001),
            Err(Overrun::Bytes {
                received: 1001,
                budget: 1000
            })
        );
    }
}
