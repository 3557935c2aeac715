//! Typed ARM verbs on [`ArmClient`]: get, list (paging through `nextLink`), put (with `If-Match`),
//! patch and delete, the writes finished through [`super::lro`].

use reqwest::Method;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use url::Url;

use super::client::{Answer, ArmClient, Outgoing};
use super::client_kind::ClientKind;
use super::error::ArmError;

/// What to call: the client it counts against, the resource path, the api-version, extra query.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The resource client (its limiter and gates apply).
    pub client: ClientKind,
    /// Path from the ARM root (`/subscriptions/.../providers/...`).
    pub path: &'a str,
    /// `api-version` to send.
    pub api_version: &'a str,
    /// Extra query pairs (`$expand`, `$filter`).
    pub query: &'a [(&'a str, &'a str)],
}

impl<'a> Target<'a> {
    /// A target without extra query pairs.
    pub fn new(client: ClientKind, path: &'a str, api_version: &'a str) -> Target<'a> {
        Target {
            client,
            path,
            api_version,
            query: &[],
        }
    }

    /// The same target with extra query pairs.
    pub fn with_query(self, query: &'a [(&'a str, &'a str)]) -> Target<'a> {
        Target { query, ..self }
    }
}

/// One page of an ARM list.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Page<T> {
    #[serde(default = "Vec::new")]
    value: Vec<T>,
    #[serde(default)]
    next_link: Option<String>,
}

pub(crate) fn decode<T: DeserializeOwned>(
    method: &Method,
    url: &Url,
    body: &[u8],
) -> Result<T, ArmError> {
    // An empty success body decodes as JSON null (models with all-optional fields accept it).
    let body: &[u8] = if body.iter().all(u8::is_ascii_whitespace) {
        b"null"
    } else {
        body
    };
    serde_json::from_slice(body).map_err(|source| ArmError::Decode {
        method: method.to_string(),
        path: url.path().to_string(),
        source,
    })
}

impl ArmClient {
    pub(crate) async fn call(
        &self,
        client: ClientKind,
        method: Method,
        url: &Url,
        body: Option<&[u8]>,
        if_match: Option<&str>,
        verb: &str,
    ) -> Result<Answer, ArmError> {
        self.send(
            Outgoing {
                client,
                method,
                url,
                body,
                if_match,
            },
            verb,
        )
        .await
    }

    /// GET one resource.
    pub async fn get<T: DeserializeOwned>(&self, target: Target<'_>) -> Result<T, ArmError> {
        let url = self.url(target.path, target.api_version, target.query)?;
        let answer = self
            .call(target.client, Method::GET, &url, None, None, "get")
            .await?;
        decode(&Method::GET, &url, &answer.body)
    }

    /// GET a collection, following `nextLink` until the last page (at most `max_pages` pages).
    pub async fn list<T: DeserializeOwned>(&self, target: Target<'_>) -> Result<Vec<T>, ArmError> {
        let mut url = self.url(target.path, target.api_version, target.query)?;
        let mut items = Vec::new();
        let cap = self.options().max_pages;
        for _ in 0..cap {
            let answer = self
                .call(target.client, Method::GET, &url, None, None, "list")
                .await?;
            let page: Page<T> = decode(&Method::GET, &url, &answer.body)?;
            items.extend(page.value);
            match page.next_link.filter(|l| !l.is_empty()) {
                None => return Ok(items),
                Some(next) => {
                    url = Url::parse(&next).map_err(|e| ArmError::InvalidUrl {
                        url: next.clone(),
                        reason: e.to_string(),
                    })?;
                }
            }
        }
        Err(ArmError::TooManyPages {
            path: target.path.to_string(),
            cap,
        })
    }

    /// PUT (create or replace) with `If-Match: <etag>` when the caller read one; waits for the
    /// operation and returns the resource as it ended. A stale ETag fails with
    /// [`ArmError::is_precondition_failed`].
    pub async fn put<B: Serialize, T: DeserializeOwned>(
        &self,
        target: Target<'_>,
        body: &B,
        if_match: Option<&str>,
    ) -> Result<T, ArmError> {
        self.write(
            target,
            Method::PUT,
            Some(body),
            if_match,
            "create_or_update",
        )
        .await
    }

    /// PATCH (e.g. tags, or a VMSS model update); waits for the operation.
    pub async fn patch<B: Serialize, T: DeserializeOwned>(
        &self,
        target: Target<'_>,
        body: &B,
        if_match: Option<&str>,
    ) -> Result<T, ArmError> {
        self.write(target, Method::PATCH, Some(body), if_match, "update")
            .await
    }

    /// DELETE; waits for the operation. A missing resource (204, or 404) is success.
    pub async fn delete(&self, target: Target<'_>, if_match: Option<&str>) -> Result<(), ArmError> {
        let result: Result<serde_json::Value, ArmError> = self
            .write(target, Method::DELETE, None::<&()>, if_match, "delete")
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(e) if e.is_not_found() => Ok(()),
            Err(e) => Err(e),
        }
    }

    async fn write<B: Serialize, T: DeserializeOwned>(
        &self,
        target: Target<'_>,
        method: Method,
        body: Option<&B>,
        if_match: Option<&str>,
        verb: &str,
    ) -> Result<T, ArmError> {
        let url = self.url(target.path, target.api_version, target.query)?;
        let body = body
            .map(serde_json::to_vec)
            .transpose()
            .map_err(|source| ArmError::Decode {
                method: method.to_string(),
                path: url.path().to_string(),
                source,
            })?;
        let answer = self
            .call(
                target.client,
                method.clone(),
                &url,
                body.as_deref(),
                if_match,
                verb,
            )
            .await?;
        let body = self.finish(target.client, &method, &url, answer).await?;
        decode(&method, &url, &body)
    }
}
