//! A small OTLP/HTTP receiver on 127.0.0.1 (no collector is packaged in the registries the
//! tests install from): it takes `POST /v1/traces` with a protobuf `ExportTraceServiceRequest`,
//! decodes it with the protocol's own definitions (`opentelemetry-proto`), answers 200, and
//! keeps every span it got, flattened with its service's name.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

/// A span as received, with the `service.name` of its resource.
#[derive(Clone, Debug)]
pub struct Received {
    pub service: String,
    pub span: Span,
}

impl Received {
    pub fn name(&self) -> &str {
        &self.span.name
    }

    /// The attribute `key` as text (a string as is, a number or bool written out).
    pub fn attr(&self, key: &str) -> Option<String> {
        let value = self
            .span
            .attributes
            .iter()
            .find(|kv| kv.key == key)?
            .value
            .as_ref()?
            .value
            .as_ref()?;
        Some(match value {
            Value::StringValue(s) => s.clone(),
            Value::IntValue(i) => i.to_string(),
            Value::BoolValue(b) => b.to_string(),
            Value::DoubleValue(d) => d.to_string(),
            other => format!("{other:?}"),
        })
    }
}

pub struct OtlpReceiver {
    port: u16,
    spans: Arc<Mutex<Vec<Received>>>,
    paths: Arc<Mutex<Vec<String>>>,
}

impl OtlpReceiver {
    pub fn start() -> OtlpReceiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let spans = Arc::new(Mutex::new(Vec::new()));
        let paths = Arc::new(Mutex::new(Vec::new()));
        let (shared, shared_paths) = (Arc::clone(&spans), Arc::clone(&paths));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (spans, paths) = (Arc::clone(&shared), Arc::clone(&shared_paths));
                std::thread::spawn(move || serve(stream, &spans, &paths));
            }
        });
        OtlpReceiver { port, spans, paths }
    }

    /// `http://127.0.0.1:PORT`, for `OTEL_EXPORTER_OTLP_ENDPOINT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn spans(&self) -> Vec<Received> {
        self.spans.lock().unwrap().clone()
    }

    /// The path of each request it got.
    pub fn paths(&self) -> Vec<String> {
        self.paths.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, spans: &Mutex<Vec<Received>>, paths: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
        let mut length = 0;
        let mut content_type = String::new();
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').unwrap();
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().unwrap(),
                "content-type" => content_type = value.trim().to_string(),
                _ => {}
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        paths.lock().unwrap().push(path.clone());
        let status = if path != "/v1/traces" || content_type != "application/x-protobuf" {
            "404 Not Found"
        } else {
            match ExportTraceServiceRequest::decode(body.as_slice()) {
                Ok(request) => {
                    spans.lock().unwrap().extend(flatten(request));
                    "200 OK"
                }
                Err(_) => "400 Bad Request",
            }
        };
        let out = reader.get_mut();
        let _ = write!(
            out,
            "HTTP/1.1 {status}\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n"
        );
        let _ = out.flush();
    }
}

fn flatten(request: ExportTraceServiceRequest) -> Vec<Received> {
    let mut out = Vec::new();
    for resource_spans in request.resource_spans {
        let service = resource_spans
            .resource
            .iter()
            .flat_map(|r| &r.attributes)
            .find(|kv| kv.key == "service.name")
            .and_then(|kv| kv.value.as_ref()?.value.as_ref())
            .map(|v| match v {
                Value::StringValue(s) => s.clone(),
                other => format!("{other:?}"),
            })
            .unwrap_or_default();
        for scope in resource_spans.scope_spans {
            for span in scope.spans {
                out.push(Received {
                    service: service.clone(),
                    span,
                });
            }
        }
    }
    out
}
