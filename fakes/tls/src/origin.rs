//! The origin (`https://host[:port]`) a client addressed, for the absolute URLs fakes put in answers
//! (LRO polling URLs, OpenID metadata): they must point back at the address the client used.

use http::{HeaderMap, Uri};

/// `https://<authority>` of a request: the HTTP/2 `:authority` (absolute URI), else the HTTP/1.1 `Host`
/// header, else `default_host` (the public service's host name).
pub fn request_origin(uri: &Uri, headers: &HeaderMap, default_host: &str) -> String {
    let host = uri
        .authority()
        .map(|a| a.as_str())
        .or_else(|| {
            headers
                .get(http::header::HOST)
                .and_then(|h| h.to_str().ok())
        })
        .unwrap_or(default_host);
    format!("https://{host}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    #[test]
    fn authority_then_host_then_default() {
        let mut headers = HeaderMap::new();
        headers.insert(
            http::header::HOST,
            HeaderValue::from_static("127.0.0.1:8443"),
        );
        let absolute: Uri = "https://10.0.0.1:9443/x".parse().unwrap();
        let relative: Uri = "/x".parse().unwrap();
        assert_eq!(
            request_origin(&absolute, &headers, "example.com"),
            "https://10.0.0.1:9443"
        );
        assert_eq!(
            request_origin(&relative, &headers, "example.com"),
            "https://127.0.0.1:8443"
        );
        assert_eq!(
            request_origin(&relative, &HeaderMap::new(), "example.com"),
            "https://example.com"
        );
    }
}
