//! `--otlp-endpoint`: the OTLP/JSON request POSTed to a collector (OTLP/HTTP, JSON encoding).

use std::time::Duration;

use crate::error::ExportError;

/// The URL the spans go to: `endpoint` as given when it names a path, else its
/// `/v1/traces` (the OTLP/HTTP traces path).
pub fn traces_url(endpoint: &str) -> String {
    let rest = endpoint.split_once("://").map_or(endpoint, |(_, r)| r);
    match rest.split_once('/') {
        Some((_, path)) if !path.is_empty() => endpoint.to_string(),
        _ => format!("{}/v1/traces", endpoint.trim_end_matches('/')),
    }
}

/// POSTs `body` (an `ExportTraceServiceRequest` as JSON) to `endpoint`; an answer other than
/// 2xx is an error quoting it.
pub fn send(endpoint: &str, body: Vec<u8>) -> Result<(), ExportError> {
    let url = traces_url(endpoint);
    let failed = |why: String| ExportError::Send {
        endpoint: endpoint.to_string(),
        why,
    };
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(failed(
            "not an http:// or https:// URL (an OTLP/HTTP collector, e.g. http://localhost:4318)"
                .into(),
        ));
    }
    clawrun_agents::llm::install_crypto_provider();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| failed(e.to_string()))?;
    runtime.block_on(async {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .map_err(|e| failed(e.to_string()))?;
        let answer = client
            .post(&url)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .map_err(|e| failed(format!("{url}: {e}")))?;
        let status = answer.status();
        if status.is_success() {
            return Ok(());
        }
        let text = answer.text().await.unwrap_or_default();
        let text: String = text.chars().take(500).collect();
        Err(failed(format!("{url} answered {status}: {text}")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_endpoint_gets_the_traces_path_and_a_full_one_is_kept() {
        assert_eq!(
            traces_url("http://localhost:4318"),
            "http://localhost:4318/v1/traces"
        );
        assert_eq!(
            traces_url("http://localhost:4318/"),
            "http://localhost:4318/v1/traces"
        );
        assert_eq!(
            traces_url("https://c.example/otlp/v1/traces"),
            "https://c.example/otlp/v1/traces"
        );
    }
}
