//! A certificate authority made for one test (rcgen, `ring`), and a server certificate it signed
//! for `127.0.0.1` and `localhost`: what a TLS server of a test presents, and what its client is
//! told to trust. Made anew each run, so no key sits in the tree.

use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A test CA and the server certificate it signed.
pub struct TestCa {
    ca_pem: String,
    server_chain: Vec<CertificateDer<'static>>,
    server_key: Vec<u8>,
}

impl TestCa {
    pub fn new() -> TestCa {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, "cy-tools test CA");
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca_key = KeyPair::generate().unwrap();
        let ca = params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(params, ca_key);

        let mut params =
            CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
        params
            .distinguished_name
            .push(DnType::CommonName, "fake model API");
        params.use_authority_key_identifier_extension = true;
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let key = KeyPair::generate().unwrap();
        let server = params.signed_by(&key, &issuer).unwrap();
        TestCa {
            ca_pem: ca.pem(),
            server_chain: vec![server.der().clone()],
            server_key: key.serialize_der(),
        }
    }

    /// The CA's certificate, PEM: what a client is told to trust.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// A server configuration presenting the server certificate, speaking HTTP/1.1 only (ALPN).
    pub fn server_config(&self) -> Arc<rustls::ServerConfig> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.server_key.clone()));
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(self.server_chain.clone(), key)
            .unwrap();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Arc::new(config)
    }
}

impl Default for TestCa {
    fn default() -> Self {
        TestCa::new()
    }
}
