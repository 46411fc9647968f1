//! The [`Transport`] over the host's `wasi:http/outgoing-handler` (WIT in
//! `guest_tools/wit/http`, the version wasmtime-wasi-http serves).

use std::time::Duration;

use super::{NetError, Request, Response, Transport};

wit_bindgen::generate!({
    path: "../wit/http",
    world: "http-client",
    generate_all,
});

use wasi::http::outgoing_handler;
use wasi::http::types::{
    ErrorCode, Fields, HeaderError, IncomingBody, Method, OutgoingBody, OutgoingRequest,
    RequestOptions, Scheme,
};
use wasi::io::streams::StreamError;

/// Requests through `wasi:http`.
#[derive(Clone, Copy, Debug, Default)]
pub struct WasiHttp;

impl Transport for WasiHttp {
    fn send(&mut self, request: &Request) -> Result<Response, NetError> {
        let headers = Fields::new();
        for (name, value) in &request.headers {
            match headers.append(name, value.as_bytes()) {
                // Hop-by-hop headers (`Host`, `Connection`, ...) belong to the host.
                Ok(()) | Err(HeaderError::Forbidden) => {}
                Err(_) => {
                    return Err(NetError::Invalid(format!(
                        "header '{name}: {value}' is not valid HTTP"
                    )));
                }
            }
        }
        let outgoing = OutgoingRequest::new(headers);
        outgoing
            .set_method(&method(&request.method))
            .map_err(|()| {
                NetError::Invalid(format!("'{}' is not an HTTP method", request.method))
            })?;
        let scheme = if request.url.scheme == "https" {
            Scheme::Https
        } else {
            Scheme::Http
        };
        let invalid_url = || NetError::Invalid(format!("'{}' is not a valid URL", request.url));
        outgoing
            .set_scheme(Some(&scheme))
            .map_err(|()| invalid_url())?;
        outgoing
            .set_authority(Some(&request.url.authority()))
            .map_err(|()| invalid_url())?;
        outgoing
            .set_path_with_query(Some(&request.url.path_and_query()))
            .map_err(|()| invalid_url())?;
        let options = RequestOptions::new();
        let nanos = |d: Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        // A host that cannot honour a timeout refuses to take it; the request still goes.
        if let Some(t) = request.connect_timeout.or(request.timeout) {
            let _ = options.set_connect_timeout(Some(nanos(t)));
        }
        if let Some(t) = request.timeout {
            let _ = options.set_first_byte_timeout(Some(nanos(t)));
            let _ = options.set_between_bytes_timeout(Some(nanos(t)));
        }
        let body = outgoing
            .body()
            .map_err(|()| NetError::Other("the request body was taken twice".into()))?;
        let future = outgoing_handler::handle(outgoing, Some(options)).map_err(net_error)?;
        {
            let stream = body
                .write()
                .map_err(|()| NetError::Other("the request body stream was taken twice".into()))?;
            for chunk in request.body.chunks(4096) {
                stream
                    .blocking_write_and_flush(chunk)
                    .map_err(stream_error)?;
            }
        }
        OutgoingBody::finish(body, None).map_err(net_error)?;
        future.subscribe().block();
        let response = future
            .get()
            .ok_or_else(|| NetError::Other("no response after waiting for it".into()))?
            .map_err(|()| NetError::Other("the response was taken twice".into()))?
            .map_err(net_error)?;
        let status = response.status();
        let headers = response
            .headers()
            .entries()
            .into_iter()
            .map(|(k, v)| (k, String::from_utf8_lossy(&v).into_owned()))
            .collect();
        let incoming = response
            .consume()
            .map_err(|()| NetError::Other("the response body was taken twice".into()))?;
        let mut bytes = Vec::new();
        {
            let stream = incoming
                .stream()
                .map_err(|()| NetError::Other("the response stream was taken twice".into()))?;
            loop {
                match stream.blocking_read(1 << 16) {
                    Ok(chunk) => bytes.extend_from_slice(&chunk),
                    Err(StreamError::Closed) => break,
                    Err(e) => return Err(stream_error(e)),
                }
            }
        }
        drop(IncomingBody::finish(incoming));
        Ok(Response {
            status,
            headers,
            body: bytes,
        })
    }
}

fn method(m: &str) -> Method {
    match m {
        "GET" => Method::Get,
        "HEAD" => Method::Head,
        "POST" => Method::Post,
        "PUT" => Method::Put,
        "DELETE" => Method::Delete,
        "CONNECT" => Method::Connect,
        "OPTIONS" => Method::Options,
        "TRACE" => Method::Trace,
        "PATCH" => Method::Patch,
        other => Method::Other(other.to_string()),
    }
}

fn stream_error(e: StreamError) -> NetError {
    match e {
        StreamError::Closed => NetError::Reset,
        StreamError::LastOperationFailed(err) => match wasi::http::types::http_error_code(&err) {
            Some(code) => net_error(code),
            None => NetError::Other(err.to_debug_string()),
        },
    }
}

fn net_error(e: ErrorCode) -> NetError {
    match e {
        ErrorCode::DnsTimeout | ErrorCode::DnsError(_) | ErrorCode::DestinationNotFound => {
            NetError::Resolve
        }
        ErrorCode::DestinationUnavailable
        | ErrorCode::DestinationIpProhibited
        | ErrorCode::DestinationIpUnroutable
        | ErrorCode::ConnectionRefused
        | ErrorCode::ConnectionLimitReached
        | ErrorCode::HttpRequestDenied => NetError::Connect,
        ErrorCode::ConnectionTimeout => NetError::ConnectTimeout,
        ErrorCode::ConnectionReadTimeout
        | ErrorCode::ConnectionWriteTimeout
        | ErrorCode::HttpResponseTimeout => NetError::Timeout,
        ErrorCode::ConnectionTerminated | ErrorCode::HttpResponseIncomplete => NetError::Reset,
        ErrorCode::TlsProtocolError
        | ErrorCode::TlsCertificateError
        | ErrorCode::TlsAlertReceived(_) => NetError::Tls,
        other => NetError::Other(format!("{other:?}")),
    }
}
