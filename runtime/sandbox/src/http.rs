//! Guests' outgoing HTTP (`wasi:http`): every request is handed to an in-process
//! [`HttpRouter`]; nothing ever reaches the network. wasmtime-wasi-http is built without its
//! default sender, so a request the router does not take cannot leave the process.

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use wasmtime_wasi_http::{Error as HttpError, RequestOptions, WasiBody, WasiHttpHooks};

pub use clawrun_hostcall::http::{
    GuestHttpError, GuestNetwork, GuestRequest, GuestResponse, HttpRouter, NoNetwork,
};

/// The wasi:http hooks of a store: hand everything to the router.
pub(super) struct RouterHooks {
    router: Arc<Mutex<Box<dyn HttpRouter>>>,
}

impl RouterHooks {
    pub(super) fn new(router: Box<dyn HttpRouter>) -> Self {
        Self {
            router: Arc::new(Mutex::new(router)),
        }
    }
}

fn transport_error(e: GuestHttpError) -> HttpError {
    match e {
        GuestHttpError::DestinationNotFound => HttpError::DestinationNotFound,
        GuestHttpError::ConnectionReset => HttpError::ConnectionTerminated,
        GuestHttpError::Timeout => HttpError::ConnectionReadTimeout,
    }
}

type SendFuture = Box<
    dyn Future<
            Output = Result<
                (
                    http::Response<WasiBody>,
                    Box<dyn Future<Output = Result<(), HttpError>> + Send>,
                ),
                HttpError,
            >,
        > + Send,
>;

impl WasiHttpHooks for RouterHooks {
    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        _options: Option<RequestOptions>,
        _fut: Box<dyn Future<Output = Result<(), HttpError>> + Send>,
    ) -> SendFuture {
        let router = self.router.clone();
        Box::new(async move {
            let (parts, body) = request.into_parts();
            let body = body.collect().await?.to_bytes();
            let request = GuestRequest {
                method: parts.method.as_str().to_string(),
                scheme: parts.uri.scheme_str().unwrap_or("http").to_string(),
                authority: parts
                    .uri
                    .authority()
                    .map(|a| a.as_str().to_string())
                    .unwrap_or_default(),
                path_and_query: parts
                    .uri
                    .path_and_query()
                    .map(|p| p.as_str().to_string())
                    .unwrap_or_else(|| "/".into()),
                headers: parts
                    .headers
                    .iter()
                    .map(|(k, v)| {
                        (
                            k.as_str().to_string(),
                            String::from_utf8_lossy(v.as_bytes()).into_owned(),
                        )
                    })
                    .collect(),
                body: body.to_vec(),
            };
            let routed = router
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .route(&request);
            let response = routed.map_err(transport_error)?;
            let mut builder = http::Response::builder().status(response.status);
            for (k, v) in &response.headers {
                builder = builder.header(k, v);
            }
            let body = Full::new(Bytes::from(response.body))
                .map_err(|never| match never {})
                .boxed_unsync();
            let response = builder
                .body(body)
                .map_err(|e| HttpError::InternalError(Some(e.to_string())))?;
            let done: Box<dyn Future<Output = Result<(), HttpError>> + Send> =
                Box::new(async { Ok(()) });
            Ok((response, done))
        })
    }
}
