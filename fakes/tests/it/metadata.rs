//! `/metadata/endpoints`: a client knowing only the ARM URL discovers the fake's Entra ID and
//! audience, gets a token there and calls ARM.

use reqwest::Method;
use serde_json::Value;

use crate::support::{CLIENT_ID, CLIENT_SECRET, Fake};

#[tokio::test]
async fn discovery_document_points_clients_at_the_fake() {
    let fake = Fake::start(&[]);
    let response = fake
        .http
        .get(fake.url("/metadata/endpoints?api-version=2019-05-01"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "no auth needed");
    let envs: Value = response.json().await.unwrap();
    let names: Vec<&str> = envs
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["AzureCloud", "AzureStackCloud"]);
    assert_eq!(
        envs[0]["resourceManager"], envs[1]["resourceManager"],
        "the custom-cloud entry points at the same fake"
    );
    let env = &envs[1];
    assert_eq!(env["resourceManager"], format!("{}/", fake.base));
    let login = env["authentication"]["loginEndpoint"]
        .as_str()
        .unwrap()
        .trim_end_matches('/');
    let audience = env["authentication"]["audiences"][0].as_str().unwrap();
    // Do what the Go CCM does with the document: token from loginEndpoint for audiences[0].
    let token: Value = fake
        .http
        .post(format!("{login}/{}/oauth2/v2.0/token", fake.tenant))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(crate::support::form(&[
            ("grant_type", "client_credentials"),
            ("client_id", CLIENT_ID),
            ("client_secret", CLIENT_SECRET),
            ("scope", &format!("{audience}.default")),
        ]))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = token["access_token"].as_str().unwrap();
    let arm = env["resourceManager"].as_str().unwrap();
    let response = fake
        .arm(
            token,
            Method::GET,
            &format!(
                "{arm}subscriptions/{}/resourcegroups/k8s-small-rg?api-version=2021-04-01",
                fake.subscription
            ),
            None,
        )
        .await;
    assert_eq!(response.status(), 200);
    let legacy: Value = fake
        .http
        .get(fake.url("/metadata/endpoints"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        legacy["authentication"]["loginEndpoint"],
        format!("{}/", fake.base)
    );
}
