//! The proxies a client's requests go through: `HTTPS_PROXY`, `HTTP_PROXY` and `ALL_PROXY` (or
//! their lowercase forms), hosts in `NO_PROXY` excepted, as curl reads them. Read here rather
//! than left to reqwest, which skips a value it cannot parse without a word: a mistyped proxy
//! would send the requests straight out, where a company network drops them.

use crate::HttpSetupError;

/// The proxies of a client, and what a message says of each.
#[derive(Debug, Default)]
pub struct Proxies {
    /// The proxies, in the order they are tried.
    pub list: Vec<reqwest::Proxy>,
    /// The proxy of `https://` requests, for messages: its URL without credentials and the
    /// variable it came from.
    pub https: Option<String>,
    /// The same for `http://` requests.
    pub http: Option<String>,
}

/// The proxies the environment (read with `var`) names.
///
/// # Errors
/// A variable holds something that is not an `http://` or `https://` proxy URL.
pub fn from_env(var: &dyn Fn(&str) -> Option<String>) -> Result<Proxies, HttpSetupError> {
    let first = |names: [&'static str; 2]| {
        names.into_iter().find_map(|name| {
            var(name)
                .filter(|value| !value.trim().is_empty())
                .map(|value| (name, value))
        })
    };
    let no_proxy =
        first(["NO_PROXY", "no_proxy"]).and_then(|(_, v)| reqwest::NoProxy::from_string(&v));
    let mut proxies = Proxies::default();
    for (scheme, names) in [
        ("https", ["HTTPS_PROXY", "https_proxy"]),
        ("http", ["HTTP_PROXY", "http_proxy"]),
        ("all", ["ALL_PROXY", "all_proxy"]),
    ] {
        let Some((name, value)) = first(names) else {
            continue;
        };
        let url = parse(name, value.trim())?;
        let shown = format!("`{}` (from `{name}`)", redacted(&url));
        let proxy = match scheme {
            "https" => reqwest::Proxy::https(url),
            "http" => reqwest::Proxy::http(url),
            _ => reqwest::Proxy::all(url),
        }
        .map_err(|err| bad(name, &value, &err.to_string()))?
        .no_proxy(no_proxy.clone());
        // The first that matches a request is used: HTTPS_PROXY before ALL_PROXY.
        if scheme != "http" && proxies.https.is_none() {
            proxies.https = Some(shown.clone());
        }
        if scheme != "https" && proxies.http.is_none() {
            proxies.http = Some(shown);
        }
        proxies.list.push(proxy);
    }
    Ok(proxies)
}

/// `value` as a proxy URL; without a scheme it is `http://`, as curl takes it.
fn parse(name: &str, value: &str) -> Result<reqwest::Url, HttpSetupError> {
    let text = if value.contains("://") {
        value.to_string()
    } else {
        format!("http://{value}")
    };
    let url = reqwest::Url::parse(&text).map_err(|err| bad(name, value, &err.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad(
            name,
            value,
            &format!("`{}://` proxies are not supported", url.scheme()),
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad(name, value, "it names no host"));
    }
    Ok(url)
}

fn bad(name: &str, value: &str, why: &str) -> HttpSetupError {
    let shown = reqwest::Url::parse(value).map_or_else(|_| value.to_string(), |u| redacted(&u));
    HttpSetupError::new(format!(
        "the proxy in `{name}` (`{shown}`) cannot be used: {why}; set it to a URL like `http://proxy.example.com:3128`, or unset it"
    ))
}

/// The URL without a password, which a message must not show.
fn redacted(url: &reqwest::Url) -> String {
    let mut url = url.clone();
    if url.password().is_some() {
        let _ = url.set_password(Some("***"));
    }
    url.as_str().trim_end_matches('/').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_env::env;

    #[test]
    fn proxies_are_read_as_curl_reads_them() {
        let none = from_env(&env(&[("HTTPS_PROXY", " ")])).unwrap();
        assert!(none.list.is_empty() && none.https.is_none());
        let read = from_env(&env(&[
            ("https_proxy", "proxy.corp:3128"),
            ("HTTP_PROXY", "http://u:secret@10.0.0.1:8080/"),
            ("NO_PROXY", "localhost,.internal"),
        ]))
        .unwrap();
        assert_eq!(read.list.len(), 2);
        assert_eq!(
            read.https.as_deref(),
            Some("`http://proxy.corp:3128` (from `https_proxy`)")
        );
        assert_eq!(
            read.http.as_deref(),
            Some("`http://u:***@10.0.0.1:8080` (from `HTTP_PROXY`)")
        );
        let all = from_env(&env(&[("ALL_PROXY", "https://p:443")])).unwrap();
        assert_eq!(all.https, all.http);
    }

    #[test]
    fn a_proxy_that_cannot_be_used_is_named_with_the_fix() {
        for (value, why) in [
            ("http://[::1", "invalid IPv6 address"),
            (
                "socks5://127.0.0.1:1080",
                "`socks5://` proxies are not supported",
            ),
            ("http://:3128", "empty host"),
        ] {
            let err = from_env(&env(Box::leak(Box::new([("HTTPS_PROXY", value)]))))
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with("the proxy in `HTTPS_PROXY` (`")
                    && err.contains(why)
                    && err.ends_with(
                        "set it to a URL like `http://proxy.example.com:3128`, or unset it"
                    ),
                "{value}: {err}"
            );
        }
    }
}
