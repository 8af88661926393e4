//! `Authorization: Bearer <token>`, compared in constant time.

use hyper::HeaderMap;
use hyper::header::AUTHORIZATION;

/// Whether `headers` carry `Authorization: Bearer <token>`, compared in time that depends on the
/// lengths only, so a wrong token's timing does not tell how much of it was right; and no other
/// `Authorization`: with two, a proxy or log in between could read the other one, so neither
/// counts.
///
/// Whitespace after the token never reaches here (the parser drops it): a connection that
/// sent it has its header removed first, by [`Standing::forget_loose_authorization`].
///
/// [`Standing::forget_loose_authorization`]: super::connection_cap::Standing::forget_loose_authorization
pub fn bearer_matches(headers: &HeaderMap, token: &str) -> bool {
    let mut values = headers.get_all(AUTHORIZATION).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return false;
    };
    let Some(given) = value.as_bytes().strip_prefix(b"Bearer ") else {
        return false;
    };
    constant_time_eq(given, token.as_bytes())
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_bearer_token_matches() {
        let token = "0123456789abcdef";
        let with = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(AUTHORIZATION, value.parse().unwrap());
            bearer_matches(&headers, token)
        };
        assert!(with("Bearer 0123456789abcdef"));
        assert!(!with("Bearer 0123456789abcdeF"));
        assert!(!with("Bearer 0123456789abcde"));
        assert!(!with("Bearer 0123456789abcdef0"));
        assert!(!with("Basic 0123456789abcdef"));
        assert!(!with("0123456789abcdef"));
        assert!(!bearer_matches(&HeaderMap::new(), token));
        // The right token beside a second `Authorization`, either way round, is refused.
        for (first, second) in [
            ("Bearer 0123456789abcdef", "Bearer other-token-000000"),
            ("Bearer other-token-000000", "Bearer 0123456789abcdef"),
            ("Bearer 0123456789abcdef", "Bearer 0123456789abcdef"),
        ] {
            let mut headers = HeaderMap::new();
            headers.append(AUTHORIZATION, first.parse().unwrap());
            headers.append(AUTHORIZATION, second.parse().unwrap());
            assert!(!bearer_matches(&headers, token), "{first} + {second}");
        }
    }
}
