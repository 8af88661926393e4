//! The bearer token and its check.

use std::io;

use axum::http::HeaderMap;

use cy_tools_http_server::bearer_matches;

use super::MIN_TOKEN_LEN;

/// The shared secret every request must carry.
pub(super) struct Token(String);

impl Token {
    pub(super) fn new(token: String, source: &str) -> io::Result<Self> {
        if token.chars().count() < MIN_TOKEN_LEN {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{source} is shorter than {MIN_TOKEN_LEN} characters; use a long random secret, such as the output of `openssl rand -hex 32`"
                ),
            ));
        }
        Ok(Token(token))
    }

    pub(super) fn from_env(name: &str) -> io::Result<Self> {
        match std::env::var(name) {
            Ok(token) => Token::new(token, &format!("the token in `{name}`")),
            Err(_) => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "the control server needs a token: set the environment variable `{name}` to a secret of at least {MIN_TOKEN_LEN} characters, and give the same one to its clients"
                ),
            )),
        }
    }

    /// Whether `headers` carry `Authorization: Bearer <this token>` and no other
    /// `Authorization` (see [`bearer_matches`]).
    pub(super) fn admits(&self, headers: &HeaderMap) -> bool {
        bearer_matches(headers, &self.0)
    }
}

#[cfg(test)]
mod tests {
    use axum::http::header::AUTHORIZATION;

    use super::*;

    #[test]
    fn only_the_exact_bearer_token_is_admitted() {
        let token = Token::new("0123456789abcdef".into(), "t").unwrap();
        let with = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(AUTHORIZATION, value.parse().unwrap());
            token.admits(&headers)
        };
        assert!(with("Bearer 0123456789abcdef"));
        assert!(!with("Bearer 0123456789abcdeF"));
        assert!(!with("Bearer 0123456789abcde"));
        assert!(!with("Basic 0123456789abcdef"));
        assert!(!with("0123456789abcdef"));
        assert!(!token.admits(&HeaderMap::new()));
        // A value with a space after the token is another token.
        assert!(!with("Bearer 0123456789abcdef "));
        // The right token beside a second `Authorization`, either way round, is refused.
        for (first, second) in [
            ("Bearer 0123456789abcdef", "Bearer other-token-000000"),
            ("Bearer other-token-000000", "Bearer 0123456789abcdef"),
            ("Bearer 0123456789abcdef", "Bearer 0123456789abcdef"),
        ] {
            let mut headers = HeaderMap::new();
            headers.append(AUTHORIZATION, first.parse().unwrap());
            headers.append(AUTHORIZATION, second.parse().unwrap());
            assert!(!token.admits(&headers), "{first} + {second}");
        }
        let short = Token::new("short".into(), "the token in `X`")
            .err()
            .unwrap();
        assert_eq!(
            short.to_string(),
            "the token in `X` is shorter than 16 characters; use a long random secret, such as the output of `openssl rand -hex 32`"
        );
    }
}
