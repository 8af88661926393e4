//! The HTTPS client every cy-tools host shares: reqwest on rustls with the `ring` provider (no
//! aws-lc), Mozilla's roots compiled in plus the CA file the operator names
//! ([`CaFile`]), and the proxies the environment names (`HTTPS_PROXY`, `HTTP_PROXY`,
//! `ALL_PROXY`, `NO_PROXY`, read as curl reads them, a value that cannot be used refused by
//! name rather than skipped). The model loop and the MCP client's streamable HTTP transport
//! are built on it.
//!
//! ```
//! let var = |_: &str| None;
//! let (builder, proxies) = cy_tools_http_client::builder(None, &var).unwrap();
//! assert!(proxies.https.is_none());
//! let _client = builder.build().unwrap();
//! ```

mod proxy;
mod trust;

/// An environment of fixed variables, for the tests of what reads one.
#[cfg(test)]
mod test_env {
    pub(crate) fn env(
        pairs: &'static [(&'static str, &'static str)],
    ) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }
}

pub use proxy::{Proxies, from_env as proxies_from_env};
pub use trust::{CaFile, tls_config};

/// Why a client could not be set up: a message naming the setting and what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpSetupError {
    message: String,
}

impl HttpSetupError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        HttpSetupError {
            message: message.into(),
        }
    }
}

impl std::fmt::Display for HttpSetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HttpSetupError {}

/// A reqwest builder trusting Mozilla's roots and `ca_file`'s, offering HTTP/2 by ALPN, going
/// through the proxies the environment (read with `var`) names, and those proxies (for
/// messages). reqwest's own reading of the environment is off: the proxies are the ones read
/// here.
///
/// # Errors
/// The CA file cannot be used, or a proxy variable holds no usable URL.
pub fn builder(
    ca_file: Option<&CaFile>,
    var: &dyn Fn(&str) -> Option<String>,
) -> Result<(reqwest::ClientBuilder, Proxies), HttpSetupError> {
    let tls = tls_config(ca_file)?;
    let proxies = proxies_from_env(var)?;
    let mut builder = reqwest::Client::builder()
        .no_proxy()
        .tls_backend_preconfigured(tls);
    for proxy in &proxies.list {
        builder = builder.proxy(proxy.clone());
    }
    Ok((builder, proxies))
}
