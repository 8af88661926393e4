//! OpenTelemetry traces (feature `otel`): the spans of the model loop's runs and turns, of its
//! requests to the model API and of every tool call (and an MCP server's requests) become
//! OpenTelemetry spans, exported over OTLP/HTTP with protobuf.
//!
//! [`Otel::from_env`] reads the standard variables: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the
//! URL spans are posted to), else `OTEL_EXPORTER_OTLP_ENDPOINT` (a collector's base URL, to
//! which `/v1/traces` is added), `OTEL_EXPORTER_OTLP_HEADERS` (`key=value,...`, for a hosted
//! backend's key), `OTEL_SERVICE_NAME` (`cy-tools` when unset), and
//! `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` (`true` puts each tool call's
//! arguments and result on its span; off by default, as they can hold anything a user typed
//! or a file held). Without an endpoint there is no exporter and nothing is sent.
//!
//! The export goes through the model loop's own client setup: the same trust roots (Mozilla's
//! and `SSL_CERT_FILE`'s) and the same proxies (`HTTPS_PROXY`, `NO_PROXY`, ...).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use cy_tools::call::{TRACE_TARGET, record_content_in_traces};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::registry::LookupSpan;

use super::error::AgentError;
use cy_tools_http_client::CaFile;

/// How long one export may take before it is given up on.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// An OTLP exporter of cy-tools' spans, and the layer that feeds it. Keep it for the life of
/// the process, and [`shutdown`](Self::shutdown) it at the end: spans are sent in batches, and
/// the last batch only then.
///
/// ```no_run
/// use tracing_subscriber::layer::SubscriberExt;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let otel = cy_tools_agent::otel::Otel::from_env()?;
/// let subscriber = tracing_subscriber::registry().with(otel.as_ref().map(|o| o.layer()));
/// tracing::subscriber::set_global_default(subscriber)?;
/// // ... run the model loop, serve MCP ...
/// if let Some(otel) = otel {
///     otel.shutdown()?;
/// }
/// # Ok(()) }
/// ```
pub struct Otel {
    provider: SdkTracerProvider,
    endpoint: String,
    failure: Arc<Mutex<Option<String>>>,
}

impl Otel {
    /// The exporter the environment asks for (see the [module](self)); `None` when no
    /// endpoint is set.
    ///
    /// # Errors
    /// The endpoint is not an `http://` or `https://` URL; the CA file or a proxy variable
    /// cannot be used.
    pub fn from_env() -> Result<Option<Otel>, AgentError> {
        Otel::with_env(&|name| std::env::var(name).ok())
    }

    /// [`from_env`](Self::from_env), the environment read with `var`.
    pub(crate) fn with_env(
        var: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<Otel>, AgentError> {
        let set = |name: &str| var(name).filter(|value| !value.trim().is_empty());
        let (endpoint, named_by) = match (
            set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
            set("OTEL_EXPORTER_OTLP_ENDPOINT"),
        ) {
            (Some(url), _) => (url.trim().to_string(), "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
            (None, Some(base)) => (
                format!("{}/v1/traces", base.trim().trim_end_matches('/')),
                "OTEL_EXPORTER_OTLP_ENDPOINT",
            ),
            (None, None) => return Ok(None),
        };
        if let Some(capture) = set("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT") {
            record_content_in_traces(capture.trim().eq_ignore_ascii_case("true"));
        }
        let service = set("OTEL_SERVICE_NAME").unwrap_or_else(|| "cy-tools".to_string());
        Otel::build(&endpoint, named_by, &service, var).map(Some)
    }

    /// An exporter posting spans to `traces_endpoint` (the whole URL, like
    /// `http://127.0.0.1:4318/v1/traces`), as service `service`.
    ///
    /// # Errors
    /// As [`from_env`](Self::from_env).
    pub fn new(traces_endpoint: &str, service: &str) -> Result<Otel, AgentError> {
        Otel::build(traces_endpoint, "the configuration", service, &|name| {
            std::env::var(name).ok()
        })
    }

    fn build(
        endpoint: &str,
        named_by: &str,
        service: &str,
        var: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Otel, AgentError> {
        let valid = reqwest::Url::parse(endpoint)
            .ok()
            .filter(|url| matches!(url.scheme(), "http" | "https") && url.has_host());
        if valid.is_none() {
            return Err(AgentError::usage(format!(
                "the OTLP endpoint `{endpoint}` (from {named_by}) is not an http:// or https:// URL; set it to a collector's OTLP/HTTP address, like `http://127.0.0.1:4318`, or unset it"
            )));
        }
        let ca_file = CaFile::choose(None, "", var);
        let client = super::http::blocking_client(ca_file, var, EXPORT_TIMEOUT)?;
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(client)
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(endpoint)
            .build()
            .map_err(|err| {
                AgentError::usage(format!(
                    "the OTLP exporter for `{endpoint}` (from {named_by}) could not be set up: {err}; check the endpoint and `OTEL_EXPORTER_OTLP_HEADERS`"
                ))
            })?;
        let failure = Arc::new(Mutex::new(None));
        let exporter = Reported {
            inner: exporter,
            endpoint: endpoint.to_string(),
            failure: Arc::clone(&failure),
        };
        let provider = SdkTracerProvider::builder()
            .with_resource(
                Resource::builder()
                    .with_service_name(service.to_string())
                    .build(),
            )
            .with_batch_exporter(exporter)
            .build();
        Ok(Otel {
            provider,
            endpoint: endpoint.to_string(),
            failure,
        })
    }

    /// The layer to add to the application's `tracing` subscriber: it turns cy-tools' spans
    /// (target [`TRACE_TARGET`]), and only those, into OpenTelemetry spans.
    pub fn layer<S>(&self) -> impl Layer<S> + use<S>
    where
        S: Subscriber + for<'a> LookupSpan<'a>,
    {
        let tracer = self.provider.tracer("cy-tools");
        tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_location(false)
            .with_threads(false)
            .with_target(false)
            .with_level(false)
            .with_filter(Targets::new().with_target(TRACE_TARGET, LevelFilter::TRACE))
    }

    /// Where the spans go.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Sends the spans ended so far.
    ///
    /// # Errors
    /// An export failed (since the last flush): the endpoint refused the spans, or could not be
    /// reached.
    pub fn flush(&self) -> Result<(), AgentError> {
        let flushed = self.provider.force_flush();
        self.failed(flushed)
    }

    /// Sends the last spans and stops the exporter.
    ///
    /// # Errors
    /// As [`flush`](Self::flush).
    pub fn shutdown(self) -> Result<(), AgentError> {
        let flushed = self.provider.force_flush();
        let _ = self.provider.shutdown();
        self.failed(flushed)
    }

    fn failed(&self, flushed: OTelSdkResult) -> Result<(), AgentError> {
        let failure = self
            .failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        match (failure, flushed) {
            (Some(message), _) => Err(AgentError::provider(message)),
            (None, Ok(())) => Ok(()),
            (None, Err(err)) => Err(AgentError::provider(format!(
                "spans could not be sent to the OTLP endpoint `{}`: {err}; check that a collector listens there",
                self.endpoint
            ))),
        }
    }
}

impl std::fmt::Debug for Otel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Otel")
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

/// The OTLP exporter, its failures kept for [`Otel::flush`] and logged: the SDK, built without
/// its internal logs, would drop them without a word.
#[derive(Debug)]
struct Reported {
    inner: opentelemetry_otlp::SpanExporter,
    endpoint: String,
    failure: Arc<Mutex<Option<String>>>,
}

impl SpanExporter for Reported {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let spans = batch.len();
        let result = self.inner.export(batch).await;
        if let Err(err) = &result {
            let message = format!(
                "spans could not be sent to the OTLP endpoint `{}` ({spans} lost): {err}; check that a collector listens there and accepts OTLP/HTTP with protobuf, or unset `OTEL_EXPORTER_OTLP_ENDPOINT`",
                self.endpoint
            );
            // Not under cy-tools' target, so this event never becomes part of a span.
            tracing::warn!(target: "cy_tools_agent::otel", "{message}");
            *self.failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(message);
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}
