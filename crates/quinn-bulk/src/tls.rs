//! TLS for a lab peer: the server makes a fresh self-signed certificate at start, and the client
//! accepts any certificate but still checks the handshake signatures.
//!
//! Skipping the chain check is deliberate: the peers run on loopback or inside namespaces the lab
//! created, and a shared certificate file would be one more thing for a harness to pass around.
//! Handshake signatures are still verified, so the TLS and QUIC crypto work (and cost CPU) as in
//! a real deployment.

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use std::error::Error;
use std::sync::Arc;

/// ALPN both sides offer; QUIC requires one.
const ALPN: &[u8] = b"cclab-bulk";

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A TLS 1.3 server config with a fresh self-signed certificate for "localhost".
pub(crate) fn server_crypto() -> Result<quinn::crypto::rustls::QuicServerConfig, Box<dyn Error>> {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_string()])?;
    let cert = certified.cert.der().clone();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der()));
    let mut tls = rustls::ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)?;
    tls.alpn_protocols = vec![ALPN.to_vec()];
    Ok(quinn::crypto::rustls::QuicServerConfig::try_from(tls)?)
}

/// A TLS 1.3 client config that accepts the server's self-signed certificate.
pub(crate) fn client_crypto() -> Result<quinn::crypto::rustls::QuicClientConfig, Box<dyn Error>> {
    let provider = provider();
    let mut tls = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
        .with_no_client_auth();
    tls.alpn_protocols = vec![ALPN.to_vec()];
    Ok(quinn::crypto::rustls::QuicClientConfig::try_from(tls)?)
}

/// Trusts every certificate; verifies TLS 1.3 signatures with the provider's algorithms.
#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        // QUIC is TLS 1.3 only (RFC 9001 §4.2); a TLS 1.2 signature means a broken peer.
        Err(rustls::Error::General("TLS 1.2 is not allowed in QUIC".into()))
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
