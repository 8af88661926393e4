//! Which servers a client trusts: Mozilla's root certificates compiled in (`webpki-roots`), the
//! same on every machine and in an image without `/etc/ssl`, plus the CA certificates of one PEM
//! file the operator names (a host's setting, else `SSL_CERT_FILE`): a company proxy's or a
//! private server's CA is added, the public roots kept.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

use crate::HttpSetupError;

/// A PEM file of CA certificates to trust, and who named it (for the messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaFile {
    /// The file.
    pub path: PathBuf,
    /// `SSL_CERT_FILE`, or the configuration's field.
    pub named_by: &'static str,
}

impl CaFile {
    /// The file `configured` names (`setting` says where it was set, for the messages), else
    /// the one `SSL_CERT_FILE` names (read with `var`).
    ///
    /// ```
    /// use std::path::Path;
    /// use cy_tools_http_client::CaFile;
    /// let var = |name: &str| (name == "SSL_CERT_FILE").then(|| "/etc/corp-ca.pem".to_string());
    /// assert_eq!(CaFile::choose(None, "`--ca-file`", &var).unwrap().named_by, "`SSL_CERT_FILE`");
    /// let given = CaFile::choose(Some(Path::new("/a.pem")), "`--ca-file`", &var).unwrap();
    /// assert_eq!(given.named_by, "`--ca-file`");
    /// ```
    pub fn choose(
        configured: Option<&Path>,
        setting: &'static str,
        var: &dyn Fn(&str) -> Option<String>,
    ) -> Option<CaFile> {
        if let Some(path) = configured {
            return Some(CaFile {
                path: path.to_path_buf(),
                named_by: setting,
            });
        }
        var("SSL_CERT_FILE")
            .filter(|path| !path.is_empty())
            .map(|path| CaFile {
                path: PathBuf::from(path),
                named_by: "`SSL_CERT_FILE`",
            })
    }

    /// Its certificates.
    fn certificates(&self) -> Result<Vec<CertificateDer<'static>>, HttpSetupError> {
        let path = self.path.display();
        let named_by = self.named_by;
        let bytes = std::fs::read(&self.path).map_err(|err| {
            HttpSetupError::new(format!(
                "cannot read the CA file `{path}` named by {named_by}: {err}; name a readable PEM file of CA certificates, or unset it"
            ))
        })?;
        let certificates = CertificateDer::pem_slice_iter(&bytes)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|err| {
                HttpSetupError::new(format!(
                    "the CA file `{path}` named by {named_by} is not valid PEM ({err}); give a file of `-----BEGIN CERTIFICATE-----` blocks"
                ))
            })?;
        if certificates.is_empty() {
            return Err(HttpSetupError::new(format!(
                "the CA file `{path}` named by {named_by} holds no certificate; give a file of `-----BEGIN CERTIFICATE-----` blocks"
            )));
        }
        Ok(certificates)
    }
}

/// The TLS configuration of a client's connections: the `ring` provider, Mozilla's roots and
/// `ca_file`'s, ALPN offering HTTP/2 and HTTP/1.1.
///
/// # Errors
/// `ca_file` cannot be read, or holds no certificate a root can be made of.
pub fn tls_config(ca_file: Option<&CaFile>) -> Result<rustls::ClientConfig, HttpSetupError> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(file) = ca_file {
        for certificate in file.certificates()? {
            roots.add(certificate).map_err(|err| {
                HttpSetupError::new(format!(
                    "the CA file `{}` named by {} holds a certificate that cannot be a root ({err}); give the CA's own certificate",
                    file.path.display(),
                    file.named_by
                ))
            })?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        // The ring provider supports the default versions: this cannot fail.
        .unwrap_or_else(|err| panic!("rustls rejected its own default versions: {err}"))
        .with_root_certificates(roots)
        .with_no_client_auth();
    // reqwest leaves ALPN to a configuration it is handed: without `h2` here it would never
    // speak HTTP/2.
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_env::env;

    #[test]
    fn the_configured_file_comes_before_ssl_cert_file() {
        let var = env(&[("SSL_CERT_FILE", "/etc/corp-ca.pem")]);
        let chosen = CaFile::choose(Some(Path::new("/a.pem")), "`--ca-file`", &var).unwrap();
        assert_eq!(chosen.path, PathBuf::from("/a.pem"));
        let chosen = CaFile::choose(None, "`--ca-file`", &var).unwrap();
        assert_eq!(
            (chosen.path, chosen.named_by),
            (PathBuf::from("/etc/corp-ca.pem"), "`SSL_CERT_FILE`")
        );
        assert_eq!(
            CaFile::choose(None, "`--ca-file`", &env(&[("SSL_CERT_FILE", "")])),
            None
        );
    }

    #[test]
    fn a_ca_file_that_cannot_be_used_is_named_with_the_fix() {
        let dir =
            std::env::temp_dir().join(format!("cy-tools-http-client-trust-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = CaFile {
            path: dir.join("missing.pem"),
            named_by: "`SSL_CERT_FILE`",
        };
        let err = tls_config(Some(&missing)).unwrap_err().to_string();
        assert!(
            err.starts_with("cannot read the CA file `")
                && err.contains("missing.pem` named by `SSL_CERT_FILE`")
                && err.ends_with("name a readable PEM file of CA certificates, or unset it"),
            "{err}"
        );
        let empty = dir.join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let err = tls_config(Some(&CaFile {
            path: empty,
            named_by: "`SSL_CERT_FILE`",
        }))
        .unwrap_err()
        .to_string();
        assert!(err.contains("holds no certificate"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
        let config = tls_config(None).unwrap();
        assert_eq!(config.alpn_protocols[0], b"h2");
    }
}
