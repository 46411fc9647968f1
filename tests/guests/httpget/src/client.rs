//! One request over wasi:http with the `wasip2` bindings.

use wasip2::http::outgoing_handler;
use wasip2::http::types::{Fields, Method, OutgoingBody, OutgoingRequest, Scheme};
use wasip2::io::streams::StreamError;

/// Sends `method url` with `body`; returns the status and the response body, or the
/// transport error's name.
pub fn request(method: &str, url: &str, body: &[u8]) -> Result<(u16, Vec<u8>), String> {
    let (scheme, rest) = url.split_once("://").ok_or("url needs a scheme")?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let headers = Fields::new();
    if !body.is_empty() {
        headers
            .append("content-type", b"application/json")
            .map_err(|e| format!("{e:?}"))?;
    }
    let request = OutgoingRequest::new(headers);
    let method = match method {
        "GET" => Method::Get,
        "POST" => Method::Post,
        "PUT" => Method::Put,
        "DELETE" => Method::Delete,
        other => Method::Other(other.to_string()),
    };
    request.set_method(&method).map_err(|()| "bad method")?;
    let scheme = if scheme == "https" {
        Scheme::Https
    } else {
        Scheme::Http
    };
    request
        .set_scheme(Some(&scheme))
        .map_err(|()| "bad scheme")?;
    request
        .set_authority(Some(authority))
        .map_err(|()| "bad authority")?;
    request
        .set_path_with_query(Some(path))
        .map_err(|()| "bad path")?;
    let outgoing = request.body().map_err(|()| "no body")?;
    let future = outgoing_handler::handle(request, None).map_err(|e| format!("{e:?}"))?;
    {
        let stream = outgoing.write().map_err(|()| "no body stream")?;
        for chunk in body.chunks(4096) {
            stream
                .blocking_write_and_flush(chunk)
                .map_err(|e| format!("{e:?}"))?;
        }
    }
    OutgoingBody::finish(outgoing, None).map_err(|e| format!("{e:?}"))?;
    future.subscribe().block();
    let response = future
        .get()
        .ok_or("no response")?
        .map_err(|()| "response taken twice")?
        .map_err(|e| format!("{e:?}"))?;
    let status = response.status();
    let incoming = response.consume().map_err(|()| "no response body")?;
    let mut bytes = Vec::new();
    {
        let stream = incoming.stream().map_err(|()| "no response stream")?;
        loop {
            match stream.blocking_read(65536) {
                Ok(chunk) => bytes.extend_from_slice(&chunk),
                Err(StreamError::Closed) => break,
                Err(e) => return Err(format!("{e:?}")),
            }
        }
    }
    Ok((status, bytes))
}
